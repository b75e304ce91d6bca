"""Creation and fill operators: tensors made from sizes and scalars, on the case's device."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from ..spec import DEVICE, Operator, OutputSpec, Overload, Size
from .family import aten_operator, samples_of

SIZES = {"small": [(), (1,), (7,), (33, 65), (3, 5, 17), (0, 4)], "large": [(1025, 4097)], "perf": [(8192, 14336)]}
DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool, None)


def sized_sampler(ov: Overload, size: Size):
    def grid():
        for i, shape in enumerate(SIZES[size]):
            for j, dtype in enumerate(DTYPES if size == "small" else DTYPES[:2]):
                values = {"size": list(shape), "dtype": dtype, "device": DEVICE}
                if ov.writes:
                    values["out"] = OutputSpec((), dtype or torch.float32)
                yield values

    return samples_of(ov, grid())


OPERATORS: dict[str, Callable[[], Operator]] = {
    "zeros": partial(aten_operator, "zeros", "creation", "A tensor of zeros of the given size and dtype.",
                     sized_sampler, work="data"),
}
