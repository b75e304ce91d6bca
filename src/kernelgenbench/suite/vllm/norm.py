"""RMS normalisation as vLLM 0.13 does it: `rms_norm` and the in-place `fused_add_rms_norm`.

Semantics from vLLM's csrc/layernorm_kernels.cu and RMSNorm.forward_static: the mean of squares
and the scaling run in float32; the normalised value is rounded to the working dtype *before*
the multiplication by `weight` (itself a working-dtype product). `fused_add_rms_norm` first
rounds input + residual to the working dtype, stores it in `residual`, and normalises that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import torch

from ..build import FLOATS, covering, sample
from ..spec import Layout, Operator, OutputSpec, Overload, Param, Sample, Size, TensorSpec
from .family import compute_dtype, vllm_operator

# rms_norm accepts inputs of rank 2 to 4 and any strides (a non-unit last stride is made
# contiguous by vLLM); its `out` is contiguous.
RMS_SHAPES: dict[str, list[tuple[int, ...]]] = {
    "small": [(1, 8), (7, 33), (7, 65), (5, 130), (4, 769), (3, 4, 64), (2, 3, 4, 32), (3, 1)],
    "large": [(4096, 4096), (4096, 5120), (4096, 8192), (83, 5125), (2048, 32, 128)],
    "perf": [(16384, 4096), (16384, 8192), (16384, 32, 128)],
}

# fused_add_rms_norm reads input through stride(-2) only and needs a contiguous residual, so
# its cases are contiguous; a 3-d input is fine as long as its leading dims collapse.
FUSED_SHAPES: dict[str, list[tuple[int, ...]]] = {
    "small": [(1, 8), (7, 33), (7, 65), (5, 130), (4, 769), (16, 256), (2, 3, 64)],
    "large": [(4096, 4096), (4096, 5120), (4096, 8192), (83, 5125)],
    "perf": [(16384, 4096), (16384, 8192)],
}

RMS_LAYOUTS: dict[str, tuple[Layout, ...]] = {
    "small": ("contiguous", "strided", "transposed", "expanded"),
    "large": ("contiguous", "strided", "contiguous"),
    "perf": ("contiguous",),
}


def _epsilon(i: int) -> float:
    return 1e-5 if i % 2 else 1e-6


def _weight(hidden: int, dtype: torch.dtype) -> TensorSpec:
    """Around 1, like a trained RMSNorm weight (vLLM's tests draw normal(1, 0.1))."""
    return TensorSpec((hidden,), dtype, dist="uniform", low=0.5, high=1.5)


def _normalize(x: torch.Tensor, weight: torch.Tensor, epsilon: float, dtype: torch.dtype) -> torch.Tensor:
    xf = x.to(compute_dtype(dtype))
    inv = torch.rsqrt(xf.square().mean(dim=-1, keepdim=True) + epsilon)
    return (xf * inv).to(dtype) * weight


def rms_norm_reference(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    out.copy_(_normalize(input, weight, epsilon, input.dtype))


def fused_add_rms_norm_reference(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                                 epsilon: float) -> None:
    z = input + residual
    residual.copy_(z)
    input.copy_(_normalize(z, weight, epsilon, input.dtype))


def rms_norm_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for i, (shape, dtype, layout) in enumerate(covering(RMS_SHAPES[size], FLOATS, RMS_LAYOUTS[size])):
        yield sample({
            "out": OutputSpec(shape, dtype),
            "input": TensorSpec(shape, dtype, layout),
            "weight": _weight(shape[-1], dtype),
            "epsilon": _epsilon(i),
        })


def fused_add_rms_norm_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for i, (shape, dtype, _) in enumerate(covering(FUSED_SHAPES[size], FLOATS, ("contiguous",))):
        yield sample({
            "input": TensorSpec(shape, dtype),
            "residual": TensorSpec(shape, dtype),
            "weight": _weight(shape[-1], dtype),
            "epsilon": _epsilon(i),
        })


def rms_norm() -> Operator:
    return vllm_operator(
        "rms_norm", "norm",
        "RMSNorm: out = round(x * rsqrt(mean(x^2, -1) + epsilon)) * weight, statistics in float32.",
        params=(
            Param("out", "Tensor!", writes=True),
            Param("input", "Tensor"),
            Param("weight", "Tensor"),
            Param("epsilon", "float"),
        ),
        signature=("rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, "
                   "epsilon: float) -> None"),
        reference=rms_norm_reference,
        sampler=rms_norm_sampler,
        ov_doc=("input [..., hidden] of rank 2 to 4, any strides; weight [hidden]; out: a contiguous "
                "tensor shaped like input, written in place. Per row: r = rsqrt(mean(x^2) + epsilon) "
                "in float32, out = (x * r rounded to input.dtype) * weight. Returns None."),
    )


def fused_add_rms_norm() -> Operator:
    return vllm_operator(
        "fused_add_rms_norm", "norm",
        "Residual add then RMSNorm, in place: residual <- input + residual; input <- rms_norm(residual).",
        params=(
            Param("input", "Tensor!", writes=True),
            Param("residual", "Tensor!", writes=True),
            Param("weight", "Tensor"),
            Param("epsilon", "float"),
        ),
        signature=("fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, "
                   "epsilon: float) -> None"),
        reference=fused_add_rms_norm_reference,
        sampler=fused_add_rms_norm_sampler,
        ov_doc=("input and residual [..., hidden] (residual contiguous), weight [hidden], one dtype. "
                "z = input + residual rounded to the dtype; residual <- z; input <- (z * rsqrt(mean(z^2) "
                "+ epsilon) rounded to the dtype) * weight, statistics in float32. Returns None."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {"rms_norm": rms_norm, "fused_add_rms_norm": fused_add_rms_norm}
