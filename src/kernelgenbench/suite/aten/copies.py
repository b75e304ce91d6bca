"""Copies, views, metadata and scalars: the operators whose work is moving data or none at all."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from ..build import FLOATS, covering
from ..spec import Operator, Overload, Size, TensorSpec
from .family import aten_operator, samples_of

SHAPES = {
    "small": [(), (1,), (7,), (33, 65), (3, 5, 17), (0, 4)],
    "large": [(1025, 4097), (8, 512, 1023)],
    "perf": [(4096, 4096), (8192, 14336)],
}


def _layouts(size: Size):
    return ("contiguous",) if size == "perf" else ("contiguous", "transposed", "strided", "expanded")


def t_sampler(ov: Overload, size: Size):
    if size != "small":
        return ()
    grid = ({"self": TensorSpec(shape, dtype, layout)}
            for shape, dtype, layout in covering([s for s in SHAPES["small"] if len(s) <= 2], FLOATS, _layouts(size)))
    return samples_of(ov, grid)


def item_sampler(ov: Overload, size: Size):
    if size != "small":
        return ()
    grid = ({"self": TensorSpec(shape, dtype, dist=dist, low=-100, high=100)}
            for shape in ((), (1,), (1, 1))
            for dtype, dist in ((torch.float32, "special"), (torch.float16, "normal"), (torch.bfloat16, "normal"),
                                (torch.float64, "normal"), (torch.int64, "uniform"), (torch.int32, "uniform"),
                                (torch.bool, "uniform"), (torch.uint8, "uniform")))
    return samples_of(ov, grid)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "t": partial(aten_operator, "t", "view", "The transpose of a tensor of at most 2 dims, as a view.", t_sampler,
                 work="view"),
    "item": partial(aten_operator, "item", "scalar", "The one element of a tensor as a Python number.",
                    item_sampler, work="read"),
}
