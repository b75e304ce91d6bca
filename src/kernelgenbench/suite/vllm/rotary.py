"""Rotary position embedding as vLLM 0.13 applies it: `rotary_embedding`, in place on query and key.

Semantics from vLLM's csrc/pos_encoding_kernels.cu and RotaryEmbedding.forward_static: for each
token, row `positions[t]` of cos_sin_cache [max_position, rot_dim] holds rot_dim/2 cosines then
rot_dim/2 sines; the first rot_dim elements of every head are rotated pairwise (NeoX: element i
with i + rot_dim/2; GPT-J: 2i with 2i + 1) and the rest of the head is left alone. In 0.13 the
cache has the query's dtype and the kernel does `x * cos - y * sin` in that dtype (each product
and the sum rounded), exactly as the native torch path does, so the reference does the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec
from .family import vllm_operator

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16


@dataclass(frozen=True)
class Rope:
    """One call's geometry. `kv_heads=0` passes key=None; `split` shapes query [..., heads, head_size]."""

    tokens: tuple[int, ...]
    heads: int
    kv_heads: int
    head_size: int
    rot_dim: int
    split: bool
    is_neox: bool
    dtype: torch.dtype
    max_position: int

    def qk(self, heads: int) -> TensorSpec:
        tail = (heads, self.head_size) if self.split else (heads * self.head_size,)
        return TensorSpec(self.tokens + tail, self.dtype)

    def values(self) -> dict[str, object]:
        return {
            "positions": TensorSpec(self.tokens, torch.int64, dist="index", low=0, high=self.max_position),
            "query": self.qk(self.heads),
            "key": self.qk(self.kv_heads) if self.kv_heads else None,
            "head_size": self.head_size,
            "cos_sin_cache": TensorSpec((self.max_position, self.rot_dim), self.dtype, dist="unit"),
            "is_neox": self.is_neox,
        }


# positions [num_tokens] with query [T, H*hs] or [T, H, hs]; positions [batch, seq] with query
# [B, S, H*hs] or [B, S, H, hs]. Odd head counts, GQA, no key, partial rot_dim, both styles.
CASES: dict[str, list[Rope]] = {
    "small": [
        Rope((1,), 2, 1, 64, 64, False, True, f32, 64),
        Rope((7,), 4, 2, 64, 32, True, False, f16, 64),
        Rope((7,), 3, 0, 32, 32, False, True, bf16, 64),
        Rope((2, 5), 2, 2, 80, 80, False, True, f32, 64),
        Rope((2, 3), 4, 1, 16, 16, True, False, bf16, 64),
        Rope((5,), 2, 2, 120, 32, True, True, f16, 64),
        Rope((13,), 3, 3, 64, 64, True, False, f32, 64),
        Rope((9,), 2, 2, 96, 64, False, False, bf16, 64),
        Rope((3,), 4, 2, 128, 128, True, True, f16, 64),
        Rope((11,), 1, 1, 256, 32, False, False, f32, 64),
        Rope((4,), 2, 0, 64, 64, True, False, f16, 64),
        Rope((1, 7), 2, 1, 32, 16, True, True, bf16, 64),
    ],
    "large": [
        Rope((4096,), 32, 8, 128, 128, False, True, bf16, 8192),
        Rope((4096,), 32, 8, 128, 64, True, False, f16, 8192),
        Rope((4096,), 32, 32, 128, 128, True, False, f32, 8192),
        Rope((5, 1024), 17, 17, 256, 32, False, True, bf16, 8192),
        Rope((5, 1024), 17, 17, 256, 256, True, False, f32, 8192),
        Rope((2048,), 32, 0, 64, 64, False, True, f16, 8192),
        Rope((4096,), 40, 8, 80, 80, False, True, bf16, 8192),
    ],
    "perf": [
        Rope((16384,), 32, 8, 128, 128, False, True, bf16, 32768),
        Rope((16384,), 32, 8, 128, 128, False, False, bf16, 32768),
        Rope((16384,), 32, 8, 128, 64, False, True, bf16, 32768),
        Rope((16384,), 32, 8, 128, 64, False, False, bf16, 32768),
        Rope((16384,), 32, 8, 128, 128, False, True, f16, 32768),
        Rope((16384,), 32, 8, 128, 64, False, False, f16, 32768),
    ],
}


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, rot_dim: int, is_neox: bool) -> None:
    """Rotate x [tokens, heads, head_size] in place; cos/sin are [tokens, 1, rot_dim/2] in x's dtype."""
    rot = x[..., :rot_dim]
    half = rot_dim // 2
    a, b = (rot[..., :half], rot[..., half:]) if is_neox else (rot[..., 0::2], rot[..., 1::2])
    new_a = a * cos - b * sin
    new_b = b * cos + a * sin
    a.copy_(new_a)
    b.copy_(new_b)


def rotary_embedding_reference(positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor | None,
                               head_size: int, cos_sin_cache: torch.Tensor, is_neox: bool) -> None:
    pos = positions.reshape(-1)
    rot_dim = cos_sin_cache.shape[1]
    cos, sin = cos_sin_cache.index_select(0, pos).to(query.dtype).unsqueeze(1).chunk(2, dim=-1)
    for t in (query, key):
        if t is not None:
            _rotate(t.view(pos.numel(), -1, head_size), cos, sin, rot_dim, is_neox)


def rotary_embedding_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for r in CASES[size]:
        yield sample(r.values())


def rotary_embedding() -> Operator:
    return vllm_operator(
        "rotary_embedding", "rotary",
        "Rotary position embedding (GPT-NeoX or GPT-J style), in place on query and key.",
        params=(
            Param("positions", "Tensor"),
            Param("query", "Tensor!", writes=True),
            Param("key", "Tensor!?", writes=True),
            Param("head_size", "int"),
            Param("cos_sin_cache", "Tensor"),
            Param("is_neox", "bool"),
        ),
        signature=("rotary_embedding(positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor | None, "
                   "head_size: int, cos_sin_cache: torch.Tensor, is_neox: bool) -> None"),
        reference=rotary_embedding_reference,
        sampler=rotary_embedding_sampler,
        ov_doc=("positions int64 [T] or [B, S]; query [T, H*hs] / [T, H, hs] (or with [B, S] leading), "
                "contiguous; key likewise with KV heads (KV divides H), or None; cos_sin_cache "
                "[max_position, rot_dim] in query's dtype, rot_dim <= head_size, cos then sin halves. "
                "For each token and head, with c, s = cache[pos, j], cache[pos, rot_dim/2 + j]: "
                "(x, y) <- (x*c - y*s, y*c + x*s) for the pairs (j, j + rot_dim/2) if is_neox else "
                "(2j, 2j + 1); head elements past rot_dim are unchanged. Writes query and key in place; "
                "returns None."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {"rotary_embedding": rotary_embedding}
