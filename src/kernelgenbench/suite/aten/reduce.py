"""Reductions and scans: sum, mean, amin, softmax, _softmax, cumsum, diff, renorm."""

from __future__ import annotations

import math
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
                "half_to_float": False,  # _softmax only; True is rejected by ATen's CPU kernel
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


def functional_perf(sampler, limit: int = 6):
    """`sampler` with perf cases only on the functional overload, at most `limit` of them."""

    def wrapped(ov: Overload, size: Size):
        if size == "perf" and ov.writes:
            return ()
        got = list(sampler(ov, size))
        return got[:limit] if size == "perf" else got

    return wrapped


INTS = (torch.int32, torch.int64)


def _int_cases(size: Size, dtypes=INTS):
    """A few integer (and bool) inputs, drawn from a range wide enough to have distinct values."""
    shapes = {"small": [(33, 65), (4, 300)], "large": [(1025, 4097)], "perf": []}[size]
    for shape in shapes:
        for dtype in dtypes:
            yield shape, dtype, "transposed" if dtype == torch.int32 else "contiguous"


def amin_sampler(ov: Overload, size: Size):
    """`dim` lists of one or two dims and the empty list (all dims), keepdim both ways, NaN rows
    (`special`), integer inputs; the `out=` form takes every other case."""

    def grid():
        cases = list(covering(ROWS[size], FLOATS, _layouts(size))) + list(_int_cases(size))
        for i, (shape, dtype, layout) in enumerate(cases):
            if ov.writes and i % 2:
                continue
            if 0 in shape:
                dim = [d for d in range(len(shape)) if shape[d]][-1:]  # a reduction over a zero-size dim raises
            elif i % 4 == 0:
                dim = []
            elif len(shape) >= 2 and i % 4 == 1:
                dim = [0, 2] if len(shape) >= 3 else [-1, 0]
            else:
                dim = [_dims(shape, i)]
            special = dtype.is_floating_point and size != "perf" and (i + i // 3) % 3 == 1
            yield {
                "self": TensorSpec(shape, dtype, layout, "special" if special else
                                   ("uniform" if not dtype.is_floating_point else "normal"),
                                   -1000.0 if not dtype.is_floating_point else -1.0,
                                   1000.0 if not dtype.is_floating_point else 1.0),
                "dim": dim,
                "keepdim": bool((i + i // 4) % 2),
            }

    return samples_of(ov, grid())


def diff_sampler(ov: Overload, size: Size):
    """n = 1, 2, 3 along any dim, prepend/append tensors, integer and bool (xor) inputs."""

    def grid():
        shapes = [s for s in ROWS[size] if s]
        cases = list(covering(shapes, FLOATS, _layouts(size)))
        cases += list(_int_cases(size, (torch.int32, torch.int64, torch.bool)))
        for i, (shape, dtype, layout) in enumerate(cases):
            if ov.writes and i % 2:
                continue
            dim = _dims(shape, i)
            n = 1 + (i + i // 3) % 3 if size != "perf" else 1
            extra = {}
            if size != "perf" and i % 4 in (1, 2):
                d = dim % len(shape)
                for j, name in enumerate(("prepend", "append")):
                    if i % 4 == 1 or j:
                        side = shape[:d] + (1 + (i + j) % 3,) + shape[d + 1:]
                        extra[name] = TensorSpec(side, dtype, "contiguous", "uniform" if dtype != torch.bool
                                                 and not dtype.is_floating_point else "normal", -100.0, 100.0)
            yield {
                "self": TensorSpec(shape, dtype, layout, "normal" if dtype.is_floating_point else "uniform",
                                   -100.0, 100.0),
                "n": n,
                "dim": dim,
                **extra,
            }

    return samples_of(ov, grid())


RENORM_P = (2, 1, 3.5, math.inf)


def _median_norm(p: float, k: int) -> float:
    """About the median p-norm of k standard normal values, so sub-tensors fall on both sides of it."""
    if k == 0:
        return 1.0
    if math.isinf(p):
        return round(math.sqrt(2) * torch.erfinv(torch.tensor(0.5 ** (1 / k), dtype=torch.float64)).item(), 3)
    moment = 2 ** (p / 2) * math.gamma((p + 1) / 2) / math.sqrt(math.pi)  # E|x|^p
    return round((k * moment) ** (1 / p), 3)


def renorm_sampler(ov: Overload, size: Size):
    """p = 1, 2, 3.5, inf along any dim, `maxnorm` near the median norm of the sub-tensors, so some
    are scaled down and some are left unchanged."""

    def grid():
        shapes = [s for s in ROWS[size] if len(s) >= 2]
        for i, (shape, dtype, layout) in enumerate(covering(shapes, FLOATS, _layouts(size))):
            if ov.writes and i % 2:
                continue
            dim = _dims(shape, i)
            p = RENORM_P[i % len(RENORM_P)] if size != "perf" else 2
            k = math.prod(shape) // max(shape[dim], 1)
            yield {"self": TensorSpec(shape, dtype, layout), "p": p, "dim": dim, "maxnorm": _median_norm(p, k)}

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
    "amin": partial(aten_operator, "amin", "reduce",
                    "Minimum over all elements (`dim=[]`) or over `dim`; NaN wins; exact.",
                    functional_perf(amin_sampler),
                    notes="A reduction over a zero-size dim (or dim=[] on an empty tensor) raises in ATen, "
                          "min having no identity, and is not drawn."),
    "_softmax": partial(aten_operator, "_softmax", "reduce",
                        "exp(x - max) / sum(exp(x - max)) along `dim` in the input dtype.",
                        functional_perf(softmax_sampler),
                        notes="half_to_float=True is left out: ATen's CPU kernel rejects it (and the float64 "
                              "reference cannot run it), so only half_to_float=False is drawn."),
    "diff": partial(aten_operator, "diff", "reduce",
                    "n-th forward difference along `dim`, after concatenating `prepend`/`append`; "
                    "bool is xor.", functional_perf(diff_sampler),
                    notes="prepend/append have self's dtype (mixed-dtype promotion is not drawn); n=0 "
                          "(a copy of self) is not drawn."),
    "renorm": partial(aten_operator, "renorm", "reduce",
                      "Scale each sub-tensor along `dim` whose p-norm exceeds `maxnorm` to norm `maxnorm`.",
                      functional_perf(renorm_sampler), tolerance=SUM_TOLERANCE,
                      notes="Float inputs only: ATen's norm rejects integer input; p <= 0 raises."),
}
