"""Paged-cache gathers per request (block_table / cu_seq_lens) as vLLM does them: `cp_gather_cache`.

Semantics from vLLM's csrc/cache_kernels.cu (`cp_gather_cache` and its kernel), csrc/cache.h and
csrc/torch_bindings.cpp (the `_C_cache_ops` schema) and vllm/_custom_ops.py (the Python signature).
For each request b < batch_size, token p of its cu_seq_lens[b + 1] - cu_seq_lens[b] tokens sits at
position p + seq_starts[b] (0 without seq_starts) of the request's paged sequence: block
block_table[b, pos // block_size], row pos % block_size of src_cache. It is copied, bit for bit
(vLLM copies 8/16/32-bit words whatever the dtype), to dst row cu_seq_lens[b] + p. The op only moves
data, so it is judged bit-exact with host code that only allocates and views (work "data"). dst
arrives holding random values: rows outside [cu_seq_lens[0], cu_seq_lens[batch_size]) must come
back as they came.

cu_seq_lens is drawn by `TensorSpec(dist="offsets")` (0 to exactly the total, some empty requests),
so the total and the sizes of the block tables are known when the cases are built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from ..build import sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec
from .cache import EXACT
from .family import vllm_operator

f32, f16, bf16, u8 = torch.float32, torch.float16, torch.bfloat16, torch.uint8
i32 = torch.int32


@dataclass(frozen=True)
class Gather:
    """`requests` requests of `total` tokens gathered from a cache [num_blocks, block_size, *entry]
    into dst [total + spare, *entry]; `active` of the requests (batch_size; all when None);
    `starts` > 0 draws seq_starts in [0, starts)."""

    requests: int
    total: int
    num_blocks: int
    block_size: int
    entry: tuple[int, ...]
    dtype: torch.dtype
    starts: int = 0
    spare: int = 3
    active: int | None = None

    def values(self) -> dict[str, object]:
        # Every request fits its block table, even one holding all the tokens after the largest start.
        width = -(-(self.total + self.starts) // self.block_size)
        cache = (self.num_blocks, self.block_size, *self.entry)
        lo, hi = (0, 256) if self.dtype == u8 else (-1.0, 1.0)
        return {
            "src_cache": TensorSpec(cache, self.dtype, low=lo, high=hi),
            "dst": TensorSpec((self.total + self.spare, *self.entry), self.dtype, low=lo, high=hi),
            "block_table": TensorSpec((self.requests, width), i32, dist="index", low=0, high=self.num_blocks),
            "cu_seq_lens": TensorSpec((self.requests + 1,), i32, dist="offsets", high=self.total),
            "batch_size": self.requests if self.active is None else self.active,
            "seq_starts": (TensorSpec((self.requests,), i32, dist="index", low=0, high=self.starts)
                           if self.starts else None),
        }


# DeepSeek-V3 MLA: one 576-wide latent entry per token (kv_lora_rank 512 + rope 64), block size 64
# in vLLM's MLA backends; chunked-prefill context gathers of a few thousand tokens over 8..64
# requests. The small tier adds odd entries, multi-dim entries (heads x head size), block sizes
# 1..16, starts that are not block-aligned, requests past batch_size and a uint8 (fp8) cache.
GATHER_CASES: dict[str, list[Gather]] = {
    "small": [
        Gather(3, 20, 9, 4, (40,), f32),
        Gather(4, 17, 12, 8, (24,), bf16, starts=11),
        Gather(2, 9, 6, 16, (2, 12), f16, starts=5),
        Gather(5, 23, 30, 1, (36,), f16, starts=3, active=3),
        Gather(1, 7, 4, 2, (72,), u8, spare=0),
        Gather(6, 31, 14, 4, (3, 8), bf16, active=6),
    ],
    "large": [
        Gather(16, 2000, 512, 64, (576,), bf16, starts=200),
        Gather(40, 3000, 600, 16, (8, 128), f16, active=32),
    ],
    "perf": [
        Gather(8, 8192, 4096, 64, (576,), bf16),
        Gather(32, 16384, 8192, 64, (576,), bf16, starts=4096),
        Gather(64, 4096, 4096, 64, (576,), bf16),
    ],
}


def cp_gather_cache_reference(src_cache: torch.Tensor, dst: torch.Tensor, block_table: torch.Tensor,
                              cu_seq_lens: torch.Tensor, batch_size: int,
                              seq_starts: torch.Tensor | None = None) -> None:
    block_size = src_cache.shape[1]
    for b in range(batch_size):
        first, last = int(cu_seq_lens[b]), int(cu_seq_lens[b + 1])
        pos = torch.arange(last - first, device=dst.device)
        if seq_starts is not None:
            pos = pos + int(seq_starts[b])
        blocks = block_table[b, pos // block_size].long()
        dst[first:last] = src_cache[blocks, pos % block_size]


def cp_gather_cache_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in GATHER_CASES[size]:
        yield sample(c.values())


def cp_gather_cache_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """Reads and writes each gathered token once (at most the whole of dst), plus the index tensors."""
    dst = values["dst"]
    row = dst[0].numel() * dst.element_size() if dst.shape[0] else 0
    cu = values["cu_seq_lens"]
    tokens = int(cu[values["batch_size"]]) - int(cu[0])
    indices = sum(t.numel() * t.element_size() for t in (values["block_table"], cu))
    return 2 * tokens * row + indices


def cp_gather_cache() -> Operator:
    return dataclasses.replace(vllm_operator(
        "cp_gather_cache", "cache",
        "Gather each request's tokens from a paged cache into one contiguous tensor (MLA context gather).",
        params=(
            Param("src_cache", "Tensor"),
            Param("dst", "Tensor!", writes=True),
            Param("block_table", "Tensor"),
            Param("cu_seq_lens", "Tensor"),
            Param("batch_size", "int"),
            Param("seq_starts", "Tensor?", has_default=True, default=None),
        ),
        signature=("cp_gather_cache(src_cache: torch.Tensor, dst: torch.Tensor, block_table: torch.Tensor, "
                   "cu_seq_lens: torch.Tensor, batch_size: int, seq_starts: torch.Tensor | None = None) -> None"),
        reference=cp_gather_cache_reference,
        sampler=cp_gather_cache_sampler,
        tolerance=EXACT,
        notes=("Every block number is in [0, num_blocks) and every request's positions (with its start) fit its "
               "block table row: vLLM reads out of bounds otherwise. Block numbers may repeat (a read-only "
               "gather). cu_seq_lens starts at 0 and is non-decreasing, with empty requests; rows of dst past "
               "cu_seq_lens[batch_size] (requests at or past batch_size, spare rows) stay as they came. "
               "batch_size 0 is not drawn (vLLM launches an empty grid, a CUDA error). src_cache, dst and "
               "block_table are contiguous: vLLM honours the block, token and dst row strides but copies each "
               "entry as flat contiguous elements and reads a block table row as contiguous. Dtypes of 8, 16 "
               "and 32 bits (vLLM copies words of the element's width); src_cache and dst share one."),
        ov_doc=("src_cache [num_blocks, block_size, *entry] of 8/16/32-bit dtype; dst [rows, *entry] of the same "
                "dtype, rows >= cu_seq_lens[batch_size]; block_table int32 [requests, width]; cu_seq_lens int32 "
                "[requests + 1] non-decreasing from 0; seq_starts None or int32 [requests] (token offsets). For "
                "b < batch_size and 0 <= p < cu_seq_lens[b+1] - cu_seq_lens[b], with s = p + seq_starts[b] "
                "(p when None): dst[cu_seq_lens[b] + p] = src_cache[block_table[b, s // block_size], "
                "s % block_size]. Other rows of dst are left as they are. Writes dst in place; returns None."),
    ), work="data", traffic=cp_gather_cache_traffic)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cp_gather_cache": cp_gather_cache,
}
