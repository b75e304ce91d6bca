"""Indexing operators: index_select."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import torch

from ..build import FLOATS, covering
from ..spec import Operator, Overload, Size, TensorSpec
from .family import aten_operator, samples_of


def gather_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """A gather reads the index and only the slices it selects (as many bytes as it writes)."""
    index = values["index"]
    written = sum(t.numel() * t.element_size() for t in outputs if isinstance(t, torch.Tensor))
    return 2 * written + index.numel() * index.element_size()


SHAPES = {
    "small": [(), (1,), (9,), (33, 65), (3, 5, 17), (0, 4), (6, 0)],
    "large": [(50257, 1024), (64, 1024, 33)],
    "perf": [(128256, 4096), (4096, 8192)],
}
INDEX_LEN = {"small": (1, 5, 0, 40), "large": (4096, 513), "perf": (8192,)}


def index_select_sampler(ov: Overload, size: Size):
    layouts = ("contiguous",) if size == "perf" else ("contiguous", "transposed", "strided", "expanded")

    def grid():
        lengths = INDEX_LEN[size]
        for i, (shape, dtype, layout) in enumerate(covering(SHAPES[size], FLOATS, layouts)):
            dim = 0 if len(shape) <= 1 or i % 2 == 0 else len(shape) - 1
            extent = shape[dim] if shape else 1
            if not shape:
                length = 1  # a 0-d self takes exactly one index
            elif extent == 0:
                length = 0
            else:
                length = lengths[i % len(lengths)]
            index_dtype = torch.int32 if i % 5 == 4 else torch.int64
            yield {
                "self": TensorSpec(shape, dtype, layout),
                "dim": dim,
                "index": TensorSpec((length,), index_dtype, dist="index", low=0, high=max(extent, 1)),
            }

    return samples_of(ov, grid())


OPERATORS: dict[str, Callable[[], Operator]] = {
    "index_select": partial(aten_operator, "index_select", "index",
                            "Rows (or slices along `dim`) of self picked by an int index; repeats allowed.",
                            index_select_sampler, traffic=gather_traffic),
}
