"""Twins of ATen operators. Each keeps its original's overloads and grids; the call still goes
through the dispatcher under the original's schema, which is what a drop-in replacement meets."""

from __future__ import annotations

from collections.abc import Callable

import torch

from .. import registry
from ..spec import Operator
from . import Perturbation, twin
from .pointwise import elementwise

SILU_BETA = Perturbation(
    "beta", "sigmoid's argument scaled by 1.8",
    "x * sigmoid(1.8 * x) = x / (1 + exp(-1.8 x)), computed in float32 for low-precision inputs.",
    elementwise(lambda self: self * torch.sigmoid(1.8 * self)),
)

HARDSIGMOID_NARROW = Perturbation(
    "narrow", "the linear ramp spans [-2, 2] instead of [-3, 3]",
    "min(max(x + 2, 0), 4) / 4: 0 at or below -2, 1 at or above 2, NaN at NaN; float32 math for "
    "low-precision inputs.",
    elementwise(lambda self: torch.clamp(self + 2.0, 0.0, 4.0) / 4.0),
)


def _of(op_id: str, p: Perturbation) -> tuple[str, Callable[[], Operator]]:
    return f"{op_id}~{p.tag}", lambda: twin(registry.get(op_id), p)


TWINS: dict[str, Callable[[], Operator]] = dict([
    _of("aten::silu", SILU_BETA),
    _of("aten::hardsigmoid", HARDSIGMOID_NARROW),
])
