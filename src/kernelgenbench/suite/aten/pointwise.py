"""Elementwise ATen operators: one record each, built from the unary and binary samplers."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from ..build import FLOATS, SUM_TOLERANCE, covering
from ..spec import Operator, Overload, Size, TensorSpec
from .family import alpha_scales, aten_operator, samples_of, tensor_or_scalar
from .shapes import ELEMENTWISE


def unary_sampler(dist: str = "normal", low: float = -1.0, high: float = 1.0):
    def sampler(ov: Overload, size: Size):
        layouts = ("contiguous",) if size == "perf" else ("contiguous", "transposed", "strided", "expanded")
        grid = (
            {"self": TensorSpec(shape, dtype, layout, dist, low, high)}
            for shape, dtype, layout in covering(ELEMENTWISE[size], FLOATS, layouts)
        )
        return samples_of(ov, grid)

    return sampler


def _broadcast_partner(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape[-1:] if len(shape) >= 2 else shape


def binary_sampler(ov: Overload, size: Size):
    layouts = ("contiguous",) if size == "perf" else ("contiguous", "transposed", "strided", "expanded")

    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(ELEMENTWISE[size], FLOATS, layouts)):
            other_shape = _broadcast_partner(shape) if i % 3 == 1 else shape
            other_dtype = torch.float32 if (i % 4 == 2 and size != "perf") else dtype
            values = {
                "self": TensorSpec(shape, dtype, layout),
                "other": tensor_or_scalar(ov, "other", TensorSpec(other_shape, other_dtype), -1.75),
                "alpha": 2.5 if i % 2 else 1,
            }
            yield values

    return samples_of(ov, grid())


OPERATORS: dict[str, Callable[[], Operator]] = {
    "add": partial(aten_operator, "add", "pointwise", "self + alpha * other, with type promotion and broadcasting.",
                   binary_sampler, tolerance=SUM_TOLERANCE, scale=alpha_scales("add", "other")),
    "mul": partial(aten_operator, "mul", "pointwise", "self * other, with type promotion and broadcasting.",
                   binary_sampler),
    "silu": partial(aten_operator, "silu", "pointwise", "x * sigmoid(x), computed in float32 for low-precision inputs.",
                    unary_sampler("uniform", -8.0, 8.0)),
    "rsqrt": partial(aten_operator, "rsqrt", "pointwise", "1 / sqrt(x) elementwise.",
                     unary_sampler("positive", 0.01, 100.0)),
}
