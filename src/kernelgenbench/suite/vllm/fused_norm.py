"""Norms fused with what follows them in vLLM 0.13: `fused_qk_norm_rope` (per-head RMSNorm of the
query and key heads of a packed qkv tensor, then rotary embedding, in place).

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
from .norm import _weight
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


OPERATORS: dict[str, Callable[[], Operator]] = {"fused_qk_norm_rope": fused_qk_norm_rope}
