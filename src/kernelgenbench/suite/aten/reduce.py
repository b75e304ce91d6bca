"""Reductions and scans: sum, mean, softmax, cumsum."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from ..build import FLOATS, SUM_TOLERANCE, covering
from ..spec import Operator, Overload, Size, TensorSpec
from .family import aten_operator, samples_of
from .shapes import ROWS


def _dims(shape: tuple[int, ...], i: int) -> int:
    if len(shape) <= 1:
        return -1 if i % 2 else 0
    return (-1, 0, 1)[i % 3]


def _layouts(size: Size):
    return ("contiguous",) if size == "perf" else ("contiguous", "transposed", "strided", "expanded")


def reduction_sampler(ov: Overload, size: Size):
    """`dim` lists of one or two dims, keepdim both ways, and an fp32 `dtype` on low-precision input."""

    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(ROWS[size], FLOATS, _layouts(size))):
            d = _dims(shape, i)
            dim = [d] if (len(shape) < 3 or i % 2) else [0, 2]
            out_dtype = torch.float32 if (dtype != torch.float32 and i % 3 == 2) else None
            yield {
                "self": TensorSpec(shape, dtype, layout),
                "dim": dim,
                "keepdim": bool(i % 2),
                "dtype": out_dtype,
            }

    return samples_of(ov, grid())


def softmax_sampler(ov: Overload, size: Size):
    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(ROWS[size], FLOATS, _layouts(size))):
            wide = i % 4 == 3
            yield {
                "self": TensorSpec(shape, dtype, layout, "uniform" if wide else "normal",
                                   -60.0 if wide else -1.0, 60.0 if wide else 1.0),
                "dim": _dims(shape, i),
                "dtype": torch.float32 if (dtype != torch.float32 and i % 3 == 1) else None,
            }

    return samples_of(ov, grid())


def scan_sampler(ov: Overload, size: Size):
    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(ROWS[size], FLOATS, _layouts(size))):
            yield {
                "self": TensorSpec(shape, dtype, layout),
                "dim": _dims(shape, i),
                "dtype": torch.float32 if (dtype != torch.float32 and i % 3 == 1) else None,
            }

    return samples_of(ov, grid())


OPERATORS: dict[str, Callable[[], Operator]] = {
    "sum": partial(aten_operator, "sum", "reduce",
                   "Sum over all elements or over `dim`; low-precision input accumulates in float32.",
                   reduction_sampler, tolerance=SUM_TOLERANCE),
    "mean": partial(aten_operator, "mean", "reduce",
                    "Arithmetic mean over all elements or over `dim`; NaN for empty reductions.",
                    reduction_sampler, tolerance=SUM_TOLERANCE),
    "softmax": partial(aten_operator, "softmax", "reduce",
                       "exp(x - max) / sum(exp(x - max)) along `dim`, optionally in `dtype`.", softmax_sampler),
    "cumsum": partial(aten_operator, "cumsum", "reduce", "Inclusive prefix sum along `dim`, optionally in `dtype`.",
                      scan_sampler, tolerance=SUM_TOLERANCE),
}
