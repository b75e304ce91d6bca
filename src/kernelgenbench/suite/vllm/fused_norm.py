"""Norms fused with what follows them in vLLM 0.13: `fused_qk_norm_rope` (per-head RMSNorm of the
query and key heads of a packed qkv tensor, then rotary embedding, in place) and
`rms_norm_per_block_quant` (RMSNorm then fp8 quantisation with one scale per group of 64 or 128
columns, as DeepSeek-style block-quantised linear layers take their activations).

rms_norm_per_block_quant (vllm/_custom_ops.py over csrc/quantization/fused_kernels/fused_layernorm_
dynamic_per_token_quant.cu and layernorm_utils.cuh) computes exactly what the per-token quant of
suite/vllm/quant.py computes, with the amax taken per group instead of per row: x = input
(+ residual in float32, written back rounded), r = rsqrt(mean(x^2) + epsilon) over the whole row,
y = round(round(x * r) * weight) in the working dtype, per group s = max(min(max|y|, scale_ub) / 448,
1/(448*512)), output = e4m3fn(clamp(y / s)) (a division, as fp8 is not inverted). Its decisions
follow quant.py's: the float64 truth skips the dtype roundings, so it takes RMS_QUANT_TOLERANCE,
and int8 is not drawn (an exact comparison would reject correct kernels at rounding boundaries).

Semantics from vLLM's csrc/fused_qknorm_rope_kernel.cu (bound in csrc/torch_bindings.cpp, wrapped
by vllm/_custom_ops.py fused_qk_norm_rope) and tests/kernels/core/test_fused_qk_norm_rope.py: qkv
[num_tokens, (Hq + Hk + Hv) * head_dim] holds each token's query heads, then key heads, then value
heads. Every query and key head is read into float32, normalised over head_dim with
r = rsqrt(mean(x^2) + eps) and multiplied by its float32 weight (q_weight for query heads, k_weight
for key heads) with no rounding in between (unlike vllm::rms_norm), then its first rot_dim
elements are rotated with the float32-widened cos/sin of row position_ids[t] of the cache (NeoX
pairs (i, i + rot_dim/2), GPT-J pairs (2i, 2i + 1)); only the result is rounded to qkv's dtype.
Value heads are not touched. The float64 truth is thus the float64 evaluation of one formula.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec, Tolerance
from .family import compute_dtype, vllm_operator
from .norm import _normalize, _weight
from .quant import FP8, FP8_MAX, FP8_MIN_SCALE, FP8_SCALE_UB, RMS_QUANT_TOLERANCE, _to_fp8
from .rotary import _rotate

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16


@dataclass(frozen=True)
class QKNormRope:
    """One call. vLLM dispatches head_dim 64/128/256 and qkv in float16/bfloat16 only; the cache
    may be float32 or qkv's dtype; rot_dim/2 must be a multiple of head_dim/32 (a lane's share)."""

    tokens: int
    heads_q: int
    heads_k: int
    heads_v: int
    head_dim: int
    rot_dim: int
    is_neox: bool
    dtype: torch.dtype
    cache_dtype: torch.dtype
    max_position: int = 32

    def values(self, i: int) -> dict[str, object]:
        width = (self.heads_q + self.heads_k + self.heads_v) * self.head_dim
        return {
            "qkv": TensorSpec((self.tokens, width), self.dtype),
            "num_heads_q": self.heads_q,
            "num_heads_k": self.heads_k,
            "num_heads_v": self.heads_v,
            "head_dim": self.head_dim,
            "eps": 1e-6 if i % 2 else 1e-5,
            "q_weight": _weight(self.head_dim, self.dtype),
            "k_weight": _weight(self.head_dim, self.dtype),
            "cos_sin_cache": TensorSpec((self.max_position, self.rot_dim), self.cache_dtype, dist="unit"),
            "is_neox": self.is_neox,
            "position_ids": TensorSpec((self.tokens,), torch.int64, dist="index", low=0,
                                       high=self.max_position),
        }


# Qwen3-style GQA head counts, odd head counts, both rotary styles, partial rot_dim, both caches.
QK_CASES: dict[str, list[QKNormRope]] = {
    "small": [
        QKNormRope(1, 2, 1, 1, 64, 64, True, bf16, bf16),
        QKNormRope(7, 4, 2, 2, 128, 128, True, bf16, bf16),
        QKNormRope(5, 3, 1, 1, 128, 64, True, f16, f32),
        QKNormRope(3, 2, 2, 2, 64, 64, False, f16, f32),
        QKNormRope(6, 1, 1, 1, 256, 256, False, bf16, bf16),
        QKNormRope(4, 5, 1, 1, 64, 32, False, f16, f16),
        QKNormRope(9, 2, 1, 3, 128, 128, False, bf16, f32),
        QKNormRope(2, 2, 2, 1, 256, 128, True, f16, f32),
    ],
    "large": [
        QKNormRope(4096, 32, 8, 8, 128, 128, True, bf16, bf16, 8192),
        QKNormRope(2048, 16, 4, 4, 128, 64, False, f16, f32, 8192),
        QKNormRope(1023, 16, 2, 2, 256, 256, True, bf16, f32, 8192),
    ],
    "perf": [
        QKNormRope(16384, 32, 8, 8, 128, 128, True, bf16, bf16, 32768),   # Qwen3-8B
        QKNormRope(16384, 32, 4, 4, 128, 128, True, bf16, f32, 32768),    # Qwen3-30B-A3B
        QKNormRope(16384, 64, 4, 4, 128, 128, True, f16, f16, 32768),     # Qwen3-235B-A22B
        QKNormRope(16384, 32, 8, 8, 128, 128, False, bf16, bf16, 32768),
    ],
}


QK_TOLERANCE = Tolerance(k_rms=3.0, k_max=4.0, floor_ulps=0.0)
"""The whole head is one float32 formula rounded once, so the native error is the final rounding
alone; the default allowance (10x that plus 4 ulps) passes a kernel that reads a float32 cache as
bfloat16 (about 4x the native RMS error of a float16 output), this one does not. A reduction in
another order, an approximate rsqrt or a rotation written x*c + (-y)*s only moves results at
rounding ties (the shipped solution uses under half of it). The float32-cache cases are mostly
float16: with a bfloat16 output a bfloat16 cache is within the output's own rounding."""


def fused_qk_norm_rope_reference(qkv: torch.Tensor, num_heads_q: int, num_heads_k: int, num_heads_v: int,
                                 head_dim: int, eps: float, q_weight: torch.Tensor, k_weight: torch.Tensor,
                                 cos_sin_cache: torch.Tensor, is_neox: bool,
                                 position_ids: torch.Tensor) -> None:
    work = compute_dtype(qkv.dtype)
    qk_heads = num_heads_q + num_heads_k
    heads = qkv.view(qkv.shape[0], -1, head_dim)[:, :qk_heads]
    x = heads.to(work)
    weight = torch.cat([q_weight.to(work).expand(num_heads_q, head_dim),
                        k_weight.to(work).expand(num_heads_k, head_dim)])
    y = x * torch.rsqrt(x.square().mean(dim=-1, keepdim=True) + eps) * weight
    cos, sin = cos_sin_cache.index_select(0, position_ids).to(work).unsqueeze(1).chunk(2, dim=-1)
    _rotate(y, cos, sin, cos_sin_cache.shape[1], is_neox)
    heads.copy_(y)


def fused_qk_norm_rope_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for i, c in enumerate(QK_CASES[size]):
        yield sample(c.values(i))


def fused_qk_norm_rope() -> Operator:
    return vllm_operator(
        "fused_qk_norm_rope", "norm",
        "Per-head RMSNorm of the query and key heads of a packed qkv tensor, then rotary embedding, "
        "in place.",
        params=(
            Param("qkv", "Tensor!", writes=True),
            Param("num_heads_q", "int"),
            Param("num_heads_k", "int"),
            Param("num_heads_v", "int"),
            Param("head_dim", "int"),
            Param("eps", "float"),
            Param("q_weight", "Tensor"),
            Param("k_weight", "Tensor"),
            Param("cos_sin_cache", "Tensor"),
            Param("is_neox", "bool"),
            Param("position_ids", "Tensor"),
        ),
        signature=("fused_qk_norm_rope(qkv: torch.Tensor, num_heads_q: int, num_heads_k: int, "
                   "num_heads_v: int, head_dim: int, eps: float, q_weight: torch.Tensor, "
                   "k_weight: torch.Tensor, cos_sin_cache: torch.Tensor, is_neox: bool, "
                   "position_ids: torch.Tensor) -> None"),
        reference=fused_qk_norm_rope_reference,
        sampler=fused_qk_norm_rope_sampler,
        tolerance=QK_TOLERANCE,
        ov_doc=("qkv [T, (Hq + Hk + Hv) * head_dim] float16/bfloat16, contiguous: per token Hq query "
                "heads, Hk key heads, Hv value heads of head_dim (64, 128 or 256) elements; q_weight, "
                "k_weight [head_dim] of qkv's dtype; cos_sin_cache [max_position, rot_dim] float32 or "
                "qkv's dtype (rot_dim/2 cosines then rot_dim/2 sines, rot_dim <= head_dim); position_ids "
                "int64 [T]. For every query and key head x of token t, in float32 with no intermediate "
                "rounding: y = x * rsqrt(mean(x^2) + eps) * weight (q_weight for query heads, k_weight for "
                "key heads); then with c, s = cache[position_ids[t], j], cache[position_ids[t], rot_dim/2 + j]: "
                "(a, b) <- (a*c - b*s, b*c + a*s) for the pairs (j, j + rot_dim/2) if is_neox else "
                "(2j, 2j + 1); elements past rot_dim keep y. The result is rounded to qkv's dtype and "
                "written back in place; value heads are unchanged. Returns None."),
        notes=("vllm/_custom_ops.py fused_qk_norm_rope over csrc/fused_qknorm_rope_kernel.cu. Not drawn: "
               "float32 qkv and head_dim other than 64/128/256 (vLLM dispatches neither), rot_dim/2 not a "
               "multiple of head_dim/32 (the kernel's lanes would mix rotated and unrotated elements), "
               "an empty batch (a CUDA launch of zero blocks), non-contiguous qkv (vLLM raises)."),
    )


def rms_norm_per_block_quant_reference(input: torch.Tensor, weight: torch.Tensor, epsilon: float,
                                       quant_dtype: torch.dtype, group_size: list[int],
                                       scale_ub: torch.Tensor | None = None, residual: torch.Tensor | None = None,
                                       is_scale_transposed: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    work = compute_dtype(input.dtype)
    hidden, group = input.shape[-1], group_size[1]
    x = input.reshape(-1, hidden).to(work)
    if residual is not None:
        x = x + residual.reshape(-1, hidden).to(work)
        residual.copy_(x.reshape(residual.shape))
    y = _normalize(x, weight, epsilon, input.dtype).to(work).reshape(x.shape[0], hidden // group, group)
    amax = y.abs().amax(dim=-1)
    if scale_ub is not None:
        amax = torch.minimum(amax, scale_ub.to(work))
    scales = (amax / FP8_MAX).clamp(min=FP8_MIN_SCALE)
    # the only floating quant dtype vLLM takes is e4m3fn (the float64 truth sees it as float64)
    out = _to_fp8(y / scales.unsqueeze(-1)).reshape(input.shape)
    if is_scale_transposed:
        scales = scales.t().contiguous().t()
    return out, scales


# [..., hidden] with hidden a multiple of the group (vLLM requires it): one group, many groups,
# 3-d inputs, a single token.
BLOCK_QUANT_CASES: dict[str, list[tuple[tuple[int, ...], int]]] = {
    "small": [((1, 128), 128), ((7, 256), 64), ((5, 384), 128), ((2, 3, 128), 64), ((9, 64), 64),
              ((4, 640), 64)],
    "large": [((4096, 7168), 128), ((83, 4096), 64), ((2048, 8192), 128)],
    "perf": [((16384, 7168), 128), ((16384, 4096), 128), ((16384, 8192), 128)],
}


def rms_norm_per_block_quant_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    dtypes = (f32, f16, bf16) if size == "small" else (bf16, f16, bf16)
    i = 0
    for shape, group in BLOCK_QUANT_CASES[size]:
        for dtype in (dtypes if size == "small" else dtypes[i % 3:i % 3 + 1]):
            yield sample({
                "input": TensorSpec(shape, dtype),
                "weight": _weight(shape[-1], dtype),
                "epsilon": 1e-6 if i // 3 % 2 else 1e-5,
                "quant_dtype": FP8,
                "group_size": [1, group],
                "scale_ub": FP8_SCALE_UB if i % 3 == 1 else None,
                "residual": TensorSpec(shape, dtype) if i % 2 == 0 else None,
                "is_scale_transposed": i % 4 >= 2,
            })
            i += 1


def rms_norm_per_block_quant() -> Operator:
    return vllm_operator(
        "rms_norm_per_block_quant", "norm",
        "RMSNorm (optionally after a residual add, written back) fused with dynamic fp8 quantisation, "
        "one scale per group of 64 or 128 columns; returns (output, scales).",
        params=(
            Param("input", "Tensor"),
            Param("weight", "Tensor"),
            Param("epsilon", "float"),
            Param("quant_dtype", "ScalarType"),
            Param("group_size", "int[]"),
            Param("scale_ub", "Tensor?", has_default=True),
            Param("residual", "Tensor!?", writes=True, has_default=True),
            Param("is_scale_transposed", "bool", has_default=True, default=False),
        ),
        signature=("rms_norm_per_block_quant(input: torch.Tensor, weight: torch.Tensor, epsilon: float, "
                   "quant_dtype: torch.dtype, group_size: list[int], scale_ub: torch.Tensor | None = None, "
                   "residual: torch.Tensor | None = None, is_scale_transposed: bool = False) "
                   "-> tuple[torch.Tensor, torch.Tensor]"),
        reference=rms_norm_per_block_quant_reference,
        sampler=rms_norm_per_block_quant_sampler,
        tolerance=RMS_QUANT_TOLERANCE,
        ov_doc=("input [..., hidden] float32/float16/bfloat16 contiguous; weight [hidden] of its dtype; "
                "quant_dtype torch.float8_e4m3fn; group_size [1, g] with g 64 or 128 dividing hidden; "
                "scale_ub None or [1] float32; residual None or like input (contiguous). Per row, in "
                "float32: x = input (+ residual, not rounded; residual <- x rounded to the dtype); "
                "r = rsqrt(mean(x^2) + epsilon) over the whole row; y = round(round(x * r) * weight) in the "
                "dtype; per group of g columns s = max(min(max|y|, scale_ub) / 448, 1/(448*512)); "
                "output = e4m3fn(clamp(y / s, -448, 448)) (nearest even). Returns (output shaped like "
                "input, scales float32 [num_tokens, hidden / g]); with is_scale_transposed the scales "
                "are the transpose of a contiguous [hidden / g, num_tokens] tensor (strides (1, num_tokens)), "
                "the same values."),
        notes=("vllm/_custom_ops.py rms_norm_per_block_quant over csrc/quantization/fused_kernels/"
               "fused_layernorm_dynamic_per_token_quant.cu. Not drawn: quant_dtype torch.int8 (as for "
               "rms_norm_dynamic_per_token_quant: exact int8 codes at rounding boundaries depend on the last "
               "bit of the row's rms), group sizes other than 64/128 and hidden sizes they do not divide "
               "(vLLM raises), an empty batch (a launch of zero blocks), non-contiguous inputs. The "
               "has_tma_aligned_scales keyword some vLLM versions add (padded scale rows) is not in the "
               "signature."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "fused_qk_norm_rope": fused_qk_norm_rope,
    "rms_norm_per_block_quant": rms_norm_per_block_quant,
}
