"""Decode attention over vLLM's paged KV cache: `paged_attention_v1` and `paged_attention_v2`.

Semantics from vLLM 0.13's csrc/attention/paged_attention_v1.cu, paged_attention_v2.cu and
attention_kernels.cuh (schemas in csrc/torch_bindings.cpp, Python signatures in
vllm/_custom_ops.py, the brute-force reference of tests/kernels/attention/test_attention.py).
One query token per sequence attends to that sequence's first seq_lens[i] cached tokens; token t
lives in block block_tables[i, t // block_size] at offset t % block_size. Query head h reads KV
head h // (num_heads / num_kv_heads). logits = scale * q.k (plus alibi_slopes[h] * (t - len + 1)
when slopes are given), softmax over the tokens, out = sum p_t v_t. vLLM accumulates in float32
and rounds the probabilities to the cache dtype before the V product; the working-dtype reference
does the same. The truth is the float64 reference.

v2 computes the same result in partitions of 512 tokens and merges them through the workspaces
exp_sum, max_logits [num_seqs, num_heads, max_partitions] (float32) and tmp_out [num_seqs,
num_heads, max_partitions, head_size] (out's dtype). Only `out` is the contract: the workspaces are
declared `scratch` (Param.scratch), so a candidate may use them or not, and they are neither judged
nor required to come back unchanged.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from ..build import sample
from ..spec import Operator, OutputSpec, Overload, Param, Sample, Size, TensorSpec
from .family import compute_dtype, vllm_operator

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16

PARTITION = 512
"""vLLM's v2 partition size (PARTITION_SIZE in paged_attention_v2.cu)."""

NOTES = (
    "kv_cache_dtype 'auto' only (fp8 caches are a later step; k_scale and v_scale are passed and unused); "
    "tp_rank and the blocksparse_* arguments keep their defaults (blocksparse_vert_stride 0: dense attention; "
    "the kernels' block-sparse mode, vert_stride > 1, masks whole blocks by a per-head pattern and is a later "
    "step). seq_lens are at least 1 (vLLM divides by the exp sum plus 1e-6, so "
    "an empty sequence gives zeros, which the engine never asks for) and at most max_seq_len; block table "
    "ids are distinct (a shared prefix block is legal in vLLM but changes nothing here); the cache blocks "
    "no sequence uses hold random values. Contiguous tensors: vLLM reads query and the caches through "
    "their strides, a layout the spec cannot draw yet. Head sizes are vLLM's (32 to 256)."
)


@dataclass(frozen=True)
class Decode:
    """One decode step: `seqs` sequences of `min_len`..`max_len` tokens over a cache with `spare`
    unused blocks."""

    seqs: int
    heads: int
    kv_heads: int
    head_size: int
    block_size: int
    max_len: int
    dtype: torch.dtype
    min_len: int = 1
    alibi: bool = False
    spare: int = 3

    @property
    def max_blocks(self) -> int:
        return -(-self.max_len // self.block_size)

    @property
    def partitions(self) -> int:
        return -(-self.max_len // PARTITION)

    def values(self, v2: bool) -> dict[str, object]:
        x = 16 // self.dtype.itemsize
        n, h, d, bs = self.seqs, self.heads, self.head_size, self.block_size
        num_blocks = n * self.max_blocks + self.spare
        work: dict[str, object] = {}
        if v2:
            work = {
                "exp_sum": TensorSpec((n, h, self.partitions), f32),
                "max_logits": TensorSpec((n, h, self.partitions), f32),
                "tmp_out": TensorSpec((n, h, self.partitions, d), self.dtype),
            }
        return {
            "out": OutputSpec((n, h, d), self.dtype),
            **work,
            "query": TensorSpec((n, h, d), self.dtype),
            "key_cache": TensorSpec((num_blocks, self.kv_heads, d // x, bs, x), self.dtype),
            "value_cache": TensorSpec((num_blocks, self.kv_heads, d, bs), self.dtype),
            "num_kv_heads": self.kv_heads,
            "scale": d ** -0.5,
            "block_tables": TensorSpec((n, self.max_blocks), torch.int32, dist="unique", low=0, high=num_blocks),
            "seq_lens": TensorSpec((n,), torch.int32, dist="index", low=self.min_len, high=self.max_len + 1),
            "block_size": bs,
            "max_seq_len": self.max_len,
            # ALiBi slopes are 2^(-8k/heads): positive, at most 1/2 for 16 heads and more
            "alibi_slopes": TensorSpec((h,), f32, dist="uniform", low=0.01, high=0.5) if self.alibi else None,
            "kv_cache_dtype": "auto",
            "k_scale": TensorSpec((), f32, dist="uniform", low=0.5, high=2.0),
            "v_scale": TensorSpec((), f32, dist="uniform", low=0.5, high=2.0),
        }


LLAMA3_8B = {"heads": 32, "kv_heads": 8, "head_size": 128}

# The small tier: MHA, GQA and MQA; head sizes 32 to 128 (80 and 96 not powers of two); block sizes
# 16 and 32; every sequence of length 1; lengths crossing blocks and 512-token partitions; ALiBi.
CASES: dict[str, list[Decode]] = {
    "small": [
        Decode(3, 4, 4, 64, 16, 40, f32),
        Decode(4, 8, 2, 128, 16, 1, f16),
        Decode(5, 6, 3, 80, 32, 77, bf16),
        Decode(2, 4, 1, 32, 16, 700, f16, min_len=513),
        Decode(2, 2, 1, 32, 32, 1100, bf16, alibi=True),
        Decode(4, 8, 8, 96, 16, 33, f32, alibi=True),
        Decode(1, 32, 8, 128, 16, 520, bf16, min_len=300),
    ],
    "large": [
        Decode(8, **LLAMA3_8B, block_size=16, max_len=2048, dtype=bf16),
        Decode(16, **LLAMA3_8B, block_size=32, max_len=4096, dtype=f16),
        Decode(32, 64, 8, 128, 16, 1024, bf16, alibi=True),
        Decode(6, 40, 40, 128, 16, 1500, f32),
    ],
    "perf": [
        Decode(1, **LLAMA3_8B, block_size=16, max_len=8192, dtype=bf16, min_len=8192),
        Decode(16, **LLAMA3_8B, block_size=16, max_len=4096, dtype=bf16, min_len=2049),
        Decode(64, **LLAMA3_8B, block_size=16, max_len=2048, dtype=f16, min_len=1025),
        Decode(256, **LLAMA3_8B, block_size=16, max_len=512, dtype=bf16, min_len=257),
        Decode(128, **LLAMA3_8B, block_size=16, max_len=8192, dtype=bf16, min_len=4097),
    ],
}


def _attend(out: torch.Tensor, query: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor,
            num_kv_heads: int, scale: float, block_tables: torch.Tensor, seq_lens: torch.Tensor,
            block_size: int, alibi_slopes: torch.Tensor | None) -> None:
    dtype = out.dtype
    acc = compute_dtype(dtype)
    _, heads, head_size = query.shape
    group = heads // num_kv_heads
    for i, length in enumerate(seq_lens.tolist()):
        blocks = block_tables[i, : -(-length // block_size)].long()
        k = key_cache[blocks].permute(0, 3, 1, 2, 4).reshape(-1, num_kv_heads, head_size)[:length]
        v = value_cache[blocks].permute(0, 3, 1, 2).reshape(-1, num_kv_heads, head_size)[:length]
        k = k.repeat_interleave(group, dim=1).to(acc)
        v = v.repeat_interleave(group, dim=1).to(acc)
        logits = torch.einsum("hd,thd->ht", query[i].to(acc), k) * scale
        if alibi_slopes is not None:
            position = torch.arange(length, device=logits.device, dtype=acc) - (length - 1)
            logits = logits + alibi_slopes.to(acc)[:, None] * position
        p = torch.softmax(logits, dim=-1).to(dtype).to(acc)
        out[i] = torch.einsum("ht,thd->hd", p, v).to(dtype)


def paged_attention_v1_reference(out: torch.Tensor, query: torch.Tensor, key_cache: torch.Tensor,
                                 value_cache: torch.Tensor, num_kv_heads: int, scale: float,
                                 block_tables: torch.Tensor, seq_lens: torch.Tensor, block_size: int,
                                 max_seq_len: int, alibi_slopes: torch.Tensor | None, kv_cache_dtype: str,
                                 k_scale: torch.Tensor, v_scale: torch.Tensor, tp_rank: int = 0,
                                 blocksparse_local_blocks: int = 0, blocksparse_vert_stride: int = 0,
                                 blocksparse_block_size: int = 64, blocksparse_head_sliding_step: int = 0) -> None:
    _attend(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens, block_size,
            alibi_slopes)


def paged_attention_v2_reference(out: torch.Tensor, exp_sum: torch.Tensor, max_logits: torch.Tensor,
                                 tmp_out: torch.Tensor, query: torch.Tensor, key_cache: torch.Tensor,
                                 value_cache: torch.Tensor, num_kv_heads: int, scale: float,
                                 block_tables: torch.Tensor, seq_lens: torch.Tensor, block_size: int,
                                 max_seq_len: int, alibi_slopes: torch.Tensor | None, kv_cache_dtype: str,
                                 k_scale: torch.Tensor, v_scale: torch.Tensor, tp_rank: int = 0,
                                 blocksparse_local_blocks: int = 0, blocksparse_vert_stride: int = 0,
                                 blocksparse_block_size: int = 64, blocksparse_head_sliding_step: int = 0) -> None:
    """The merged partitions equal one softmax over all tokens: the workspaces are not outputs."""
    _attend(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens, block_size,
            alibi_slopes)


def _sampler(v2: bool) -> Callable[[Overload, Size], Iterator[Sample]]:
    def draw(ov: Overload, size: Size) -> Iterator[Sample]:
        for c in CASES[size]:
            assert c.heads % c.kv_heads == 0 and c.max_len >= c.min_len >= 1, c
            yield sample(c.values(v2), hide=("kv_cache_dtype",))
    return draw


def attention_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """query and out once, and the cache blocks the sequences use (not the whole cache)."""
    query, key_cache, block_size = values["query"], values["key_cache"], values["block_size"]
    blocks = sum(-(-n // block_size) for n in values["seq_lens"].tolist())
    per_block = math.prod(key_cache.shape[1:]) * key_cache.element_size()
    return 2 * query.numel() * query.element_size() + 2 * blocks * per_block


TAIL_PARAMS = (
    Param("query", "Tensor"),
    Param("key_cache", "Tensor"),
    Param("value_cache", "Tensor"),
    Param("num_kv_heads", "int"),
    Param("scale", "float"),
    Param("block_tables", "Tensor"),
    Param("seq_lens", "Tensor"),
    Param("block_size", "int"),
    Param("max_seq_len", "int"),
    Param("alibi_slopes", "Tensor?"),
    Param("kv_cache_dtype", "str"),
    Param("k_scale", "Tensor"),
    Param("v_scale", "Tensor"),
    Param("tp_rank", "int", has_default=True, default=0),
    Param("blocksparse_local_blocks", "int", has_default=True, default=0),
    Param("blocksparse_vert_stride", "int", has_default=True, default=0),
    Param("blocksparse_block_size", "int", has_default=True, default=64),
    Param("blocksparse_head_sliding_step", "int", has_default=True, default=0),
)

TAIL_SIGNATURE = (
    "query: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor, num_kv_heads: int, "
    "scale: float, block_tables: torch.Tensor, seq_lens: torch.Tensor, block_size: int, max_seq_len: int, "
    "alibi_slopes: torch.Tensor | None, kv_cache_dtype: str, k_scale: torch.Tensor, v_scale: torch.Tensor, "
    "tp_rank: int = 0, blocksparse_local_blocks: int = 0, blocksparse_vert_stride: int = 0, "
    "blocksparse_block_size: int = 64, blocksparse_head_sliding_step: int = 0) -> None"
)

COMMON_DOC = (
    "query [num_seqs, num_heads, head_size]; key_cache [num_blocks, num_kv_heads, head_size / x, block_size, x] "
    "with x = 16 / element size; value_cache [num_blocks, num_kv_heads, head_size, block_size]; block_tables "
    "[num_seqs, max_blocks] int32; seq_lens [num_seqs] int32, each in [1, max_seq_len]; alibi_slopes None or "
    "[num_heads] float32. Per sequence i and head h (KV head h // (num_heads / num_kv_heads)): the tokens "
    "t < seq_lens[i] sit in block block_tables[i, t // block_size] at offset t % block_size; "
    "logits_t = scale * q.k_t (+ alibi_slopes[h] * (t - seq_lens[i] + 1)); out[i, h] = softmax(logits) @ v, "
    "accumulated in float32. kv_cache_dtype is 'auto' (k_scale, v_scale unused). Returns None."
)


def _operator(op: Operator) -> Operator:
    return dataclasses.replace(op, traffic=attention_traffic)


def paged_attention_v1() -> Operator:
    return _operator(vllm_operator(
        "paged_attention_v1", "attention",
        "Decode attention of one query token per sequence over the paged KV cache, in one pass.",
        params=(Param("out", "Tensor!", writes=True),) + TAIL_PARAMS,
        signature=f"paged_attention_v1(out: torch.Tensor, {TAIL_SIGNATURE}",
        reference=paged_attention_v1_reference,
        sampler=_sampler(False),
        ov_doc=f"out [num_seqs, num_heads, head_size] (query's dtype) is written in place. {COMMON_DOC}",
        notes=NOTES,
    ))


def paged_attention_v2() -> Operator:
    return _operator(vllm_operator(
        "paged_attention_v2", "attention",
        "Decode attention over the paged KV cache, split into 512-token partitions merged at the end.",
        params=(
            Param("out", "Tensor!", writes=True),
            Param("exp_sum", "Tensor!", scratch=True),
            Param("max_logits", "Tensor!", scratch=True),
            Param("tmp_out", "Tensor!", scratch=True),
        ) + TAIL_PARAMS,
        signature=("paged_attention_v2(out: torch.Tensor, exp_sum: torch.Tensor, max_logits: torch.Tensor, "
                   f"tmp_out: torch.Tensor, {TAIL_SIGNATURE}"),
        reference=paged_attention_v2_reference,
        sampler=_sampler(True),
        ov_doc=("out [num_seqs, num_heads, head_size] (query's dtype) is written in place; it is the only "
                "output judged. exp_sum and max_logits [num_seqs, num_heads, ceil(max_seq_len / 512)] float32 "
                "and tmp_out [num_seqs, num_heads, ceil(max_seq_len / 512), head_size] (out's dtype) are "
                "workspaces for per-partition softmax statistics and partial outputs (vLLM's partitions "
                "hold 512 tokens): they arrive holding garbage, may be used or ignored, and are not judged. "
                f"{COMMON_DOC}"),
        notes=NOTES + " The workspaces are scratch (Param.scratch): neither judged nor checked unchanged.",
    ))


OPERATORS: dict[str, Callable[[], Operator]] = {
    "paged_attention_v1": paged_attention_v1,
    "paged_attention_v2": paged_attention_v2,
}
