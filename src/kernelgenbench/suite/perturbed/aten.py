"""Twins of ATen operators. Each keeps its original's overloads and grids; the call still goes
through the dispatcher under the original's schema, which is what a drop-in replacement meets."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from .. import registry
from ..spec import Operator, Overload
from . import Perturbation, twin
from .pointwise import elementwise, floating

LN2 = math.log(2.0)

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

RSQRT_SHIFTED = Perturbation(
    "shifted", "one added under the root",
    "1 / sqrt(x + 1) elementwise, computed in float32 for low-precision inputs.",
    elementwise(lambda self: torch.rsqrt(self + 1.0)), keep=floating,
)

LOG10_1P = Perturbation(
    "of_1p", "log10 of 1 + x, with 1 + x rounded in the working precision",
    "log10(1 + x) with 1 + x rounded in the compute type (float32 for low-precision inputs, else the dtype): "
    "-inf at x = -1, NaN below.",
    elementwise(lambda self: torch.log10(1.0 + self)), keep=floating,
)

NEG_HALF = Perturbation(
    "half", "negation scaled by one half",
    "-x / 2 elementwise on floating tensors.",
    elementwise(lambda self: -0.5 * self), keep=floating,
)

SQUARE_SIGNED = Perturbation(
    "signed", "the square keeps the sign of x (x * |x|)",
    "x * |x| elementwise on floating tensors: the square with the sign of x.",
    elementwise(lambda self: self * self.abs()), keep=floating,
)


def _logit2(self: torch.Tensor, eps: float | None = None) -> torch.Tensor:
    z = self if eps is None else self.clamp(eps, 1.0 - eps)
    return torch.log2(z / (1.0 - z))


LOGIT_BASE2 = Perturbation(
    "base2", "the logarithm is base 2",
    "log2(z / (1 - z)) with z = x, or x clamped to [eps, 1 - eps] when eps is given; floating inputs.",
    elementwise(_logit2), keep=floating,
)

ENTR_BITS = Perturbation(
    "bits", "entropy in bits (log base 2)",
    "Elementwise entropy in bits -x * log2(x): 0 at 0, -inf below 0 and at +inf, NaN at NaN; floating inputs.",
    elementwise(lambda self: torch.where(self > 0, -self * torch.log2(self.clamp_min(1e-300)),
                                         torch.where(self == 0, 0.0, torch.where(self < 0, -torch.inf, self)))),
    keep=floating,
)

SIN_DOUBLE = Perturbation(
    "double", "the angle is doubled",
    "sin(2x) (radians) elementwise, accurate over a wide argument range; floating inputs.",
    elementwise(lambda self: torch.sin(2.0 * self)), keep=floating,
)

COS_HALF = Perturbation(
    "half", "the angle is halved",
    "cos(x / 2) (radians) elementwise, accurate over a wide argument range; floating inputs.",
    elementwise(lambda self: torch.cos(0.5 * self)), keep=floating,
)

FLOOR_HALF_UP = Perturbation(
    "half_up", "rounds half up: floor(x + 0.5), with x + 0.5 rounded in the working precision",
    "floor(x + 0.5) elementwise on floating tensors, x + 0.5 rounded in the compute type (float32 for "
    "low-precision inputs, else the dtype).",
    elementwise(lambda self: torch.floor(self + 0.5)), keep=floating,
)

ERFC_DOUBLE = Perturbation(
    "double", "the argument is doubled: erfc(2x)",
    "The complementary error function of 2x, erfc(2x) = 1 - erf(2x), elementwise; floating inputs.",
    elementwise(lambda self: torch.erfc(2.0 * self)), keep=floating,
)

HEAVISIDE_MIRRORED = Perturbation(
    "mirrored", "the step is mirrored: 1 below zero, 0 above",
    "The mirrored step function: 1 where x < 0, `values` where x == 0, 0 where x > 0 (and at NaN); x and "
    "values broadcast and share a dtype.",
    elementwise(lambda self, values: torch.where(self == 0, values, (self < 0).to(values.dtype))),
)


def _softmax_base2(ov: Overload) -> Callable[..., torch.Tensor]:
    """2^(x - max) / sum 2^(x - max) along dim, i.e. the softmax of x ln 2, in float32 for half types."""
    positional = [p.name for p in ov.params if not p.kw_only]

    def reference(*args: Any, **kwargs: Any) -> torch.Tensor:
        v = {**dict(zip(positional, args)), **kwargs}
        x, out = v["self"], v.get("out")
        if "half_to_float" in v:
            dtype = torch.float32 if v["half_to_float"] else x.dtype
        else:
            dtype = v.get("dtype") or x.dtype
        wide = x.to(torch.promote_types(dtype, torch.float32)) if x.dtype != torch.float64 else x
        y = torch.softmax(wide * LN2, v["dim"]).to(dtype)
        return y if out is None else out.copy_(y)

    return reference


SOFTMAX_BASE2 = Perturbation(
    "base2", "powers of 2 instead of e: 2^(x - max) / sum 2^(x - max)",
    "2^(x - max) / sum(2^(x - max)) along `dim`, optionally in `dtype`; float32 math for half types.",
    _softmax_base2,
)


def _of(op_id: str, p: Perturbation) -> tuple[str, Callable[[], Operator]]:
    return f"{op_id}~{p.tag}", lambda: twin(registry.get(op_id), p)


TWINS: dict[str, Callable[[], Operator]] = dict([
    _of("aten::silu", SILU_BETA),
    _of("aten::hardsigmoid", HARDSIGMOID_NARROW),
    _of("aten::rsqrt", RSQRT_SHIFTED),
    _of("aten::log10", LOG10_1P),
    _of("aten::neg", NEG_HALF),
    _of("aten::square", SQUARE_SIGNED),
    _of("aten::logit", LOGIT_BASE2),
    _of("aten::special_entr", ENTR_BITS),
    _of("aten::sin", SIN_DOUBLE),
    _of("aten::cos", COS_HALF),
    _of("aten::floor", FLOOR_HALF_UP),
    _of("aten::erfc", ERFC_DOUBLE),
    _of("aten::heaviside", HEAVISIDE_MIRRORED),
    _of("aten::softmax", SOFTMAX_BASE2),
    _of("aten::_softmax", SOFTMAX_BASE2),
])
