"""Token-major paged-cache gathers of vLLM's MLA and sparse-indexer paths:
`gather_and_maybe_dequant_cache` and `cp_gather_indexer_k_quant_cache`.

Semantics from vLLM's csrc/cache_kernels.cu (both ops and their kernels), csrc/cache.h and
csrc/torch_bindings.cpp (the `_C_cache_ops` schemas), vllm/_custom_ops.py (the Python signatures)
and tests/kernels/attention/test_cache.py, at the generation whose gather_and_maybe_dequant_cache
takes `token_to_seq` and `num_tokens` (vLLM 0.13; earlier releases took batch_size and split each
request over a grid of (batch, splits)).

- gather_and_maybe_dequant_cache: dst row t < num_tokens belongs to request b = token_to_seq[t]; its
  position in the request is p = t - cu_seq_lens[b] + seq_starts[b] (no seq_starts: 0), and it is
  entry p % block_size of block block_table[b, p // block_size] of src_cache. With kv_cache_dtype
  "auto" the entry is copied (src and dst share a dtype); with "fp8"/"fp8_e4m3" the cache holds
  e4m3fn bytes and each becomes float(code) * scale[0] in float32, rounded to dst's dtype. vLLM
  checks that the entry is 576 wide (DeepSeek's kv_lora_rank 512 + rope 64). Rows of dst at or past
  num_tokens stay as they came.
- cp_gather_indexer_k_quant_cache: each block of the byte cache [num_blocks, block_size,
  head_dim + 4 * head_dim / quant_block_size] holds, flat, block_size token rows of head_dim fp8
  bytes, then block_size * head_dim / quant_block_size float32 scales (the layout
  indexer_k_quant_and_cache writes). Token t of request b (cu_seq_lens[b] <= t < cu_seq_lens[b+1],
  in-request position p = t - cu_seq_lens[b]) copies its head_dim bytes to dst_k[t] and its scale
  bytes to dst_scale[t]. Every row is written: dst_k has exactly cu_seq_lens[-1] rows.

token_to_seq is drawn jointly with cu_seq_lens (`Joint`): token t's request is the b with
cu_seq_lens[b] <= t < cu_seq_lens[b+1], as vLLM's MLA backend builds it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from ..build import sample
from ..spec import Joint, Operator, OutputSpec, Overload, Param, Sample, Size, TensorSpec
from .cache import _nbytes
from .family import vllm_operator
from .quant import FP8, QUANT_TOLERANCE

f32, f16, bf16, u8 = torch.float32, torch.float16, torch.bfloat16, torch.uint8
i32 = torch.int32
MLA_ENTRY = 576


def token_sequences(gen: torch.Generator, cu_seq_lens: torch.Tensor, length: int) -> torch.Tensor:
    """Each token's request from cumulative offsets (slots past the total hold 0: never read)."""
    counts = cu_seq_lens.diff().long()
    seq = torch.repeat_interleave(torch.arange(counts.numel(), device=cu_seq_lens.device), counts)
    out = torch.zeros(length, dtype=i32, device=cu_seq_lens.device)
    out[: seq.numel()] = seq.to(i32)
    return out


def _token_to_seq(length: int) -> Joint:
    return Joint((length,), i32, ("cu_seq_lens",), lambda gen, cu: token_sequences(gen, cu, length),
                 "request of each token (from cu_seq_lens)")


# ------------------------------------------------------------------ gather_and_maybe_dequant_cache

@dataclass(frozen=True)
class Dequant:
    """`requests` requests of `total` tokens gathered from [num_blocks, block_size, 576] into dst
    [total + spare, 576] of `dtype`; an fp8 (uint8) cache when `kv` is not "auto"; `starts` > 0
    draws seq_starts in [0, starts); token_to_seq has `extra` slots past the total."""

    requests: int
    total: int
    num_blocks: int
    block_size: int
    dtype: torch.dtype
    kv: str = "auto"
    starts: int = 0
    spare: int = 3
    extra: int = 2

    def values(self) -> dict[str, object]:
        width = -(-(self.total + self.starts) // self.block_size)
        cache = (self.num_blocks, self.block_size, MLA_ENTRY)
        src = (TensorSpec(cache, self.dtype) if self.kv == "auto"
               else TensorSpec(cache, u8, dist="index", low=0, high=256))
        return {
            "src_cache": src,
            "dst": TensorSpec((self.total + self.spare, MLA_ENTRY), self.dtype),
            "block_table": TensorSpec((self.requests, width), i32, dist="index", low=0, high=self.num_blocks),
            "cu_seq_lens": TensorSpec((self.requests + 1,), i32, dist="offsets", high=self.total),
            "token_to_seq": _token_to_seq(self.total + self.extra),
            "num_tokens": self.total,
            "kv_cache_dtype": self.kv,
            "scale": TensorSpec((1,), f32, dist="uniform", low=0.05, high=2.0),
            "seq_starts": (TensorSpec((self.requests,), i32, dist="index", low=0, high=self.starts)
                           if self.starts else None),
        }


# DeepSeek-V3 MLA chunked-prefill context gathers (block size 64 in vLLM's MLA backends, 16 in its
# test); the small tier adds block sizes 1..16, unaligned starts, spare rows and both fp8 names.
DEQUANT_CASES: dict[str, list[Dequant]] = {
    "small": [
        Dequant(3, 11, 8, 4, f32),
        Dequant(4, 9, 12, 2, bf16, starts=5),
        Dequant(2, 7, 6, 16, f16, "fp8", starts=9),
        Dequant(5, 13, 20, 1, bf16, "fp8_e4m3"),
        Dequant(1, 5, 3, 8, f32, "fp8", spare=0, extra=0),
        Dequant(6, 12, 10, 4, f16, starts=3),
    ],
    "large": [
        Dequant(16, 2000, 512, 64, bf16, "fp8", starts=200),
        Dequant(40, 3000, 600, 16, f16, spare=10),
    ],
    "perf": [
        Dequant(8, 8192, 4096, 64, bf16),
        Dequant(32, 16384, 8192, 64, bf16, "fp8", starts=4096),
        Dequant(64, 4096, 4096, 64, bf16, "fp8"),
    ],
}


def gather_and_maybe_dequant_cache_reference(src_cache: torch.Tensor, dst: torch.Tensor, block_table: torch.Tensor,
                                             cu_seq_lens: torch.Tensor, token_to_seq: torch.Tensor,
                                             num_tokens: int, kv_cache_dtype: str, scale: torch.Tensor,
                                             seq_starts: torch.Tensor | None = None) -> None:
    # fixed-shape gathers only, so the large cases also check on meta tensors
    block_size = src_cache.shape[1]
    t = torch.arange(num_tokens, device=dst.device)
    b = token_to_seq[:num_tokens].long()
    pos = t - cu_seq_lens.long()[b]
    if seq_starts is not None:
        pos = pos + seq_starts.long()[b]
    rows = src_cache[block_table.long()[b, pos // block_size], pos % block_size]
    if kv_cache_dtype != "auto":
        rows = rows.view(FP8).float() * scale.float()
    dst[:num_tokens] = rows.to(dst.dtype)


def gather_and_maybe_dequant_cache_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in DEQUANT_CASES[size]:
        yield sample(c.values())


def gather_and_maybe_dequant_cache_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """Reads each gathered entry and writes its dst row, plus the index tensors."""
    src, dst = values["src_cache"], values["dst"]
    n = values["num_tokens"]
    indices = sum(_nbytes(values[k]) for k in ("block_table", "cu_seq_lens"))
    return n * MLA_ENTRY * (src.element_size() + dst.element_size()) + n * 4 + indices


def gather_and_maybe_dequant_cache() -> Operator:
    return dataclasses.replace(vllm_operator(
        "gather_and_maybe_dequant_cache", "cache",
        "Gather the tokens of each request from a paged MLA cache into one tensor, dequantising an fp8 cache.",
        params=(
            Param("src_cache", "Tensor"),
            Param("dst", "Tensor!", writes=True),
            Param("block_table", "Tensor"),
            Param("cu_seq_lens", "Tensor"),
            Param("token_to_seq", "Tensor"),
            Param("num_tokens", "int"),
            Param("kv_cache_dtype", "str"),
            Param("scale", "Tensor"),
            Param("seq_starts", "Tensor?", has_default=True, default=None),
        ),
        signature=("gather_and_maybe_dequant_cache(src_cache: torch.Tensor, dst: torch.Tensor, "
                   "block_table: torch.Tensor, cu_seq_lens: torch.Tensor, token_to_seq: torch.Tensor, "
                   "num_tokens: int, kv_cache_dtype: str, scale: torch.Tensor, "
                   "seq_starts: torch.Tensor | None = None) -> None"),
        reference=gather_and_maybe_dequant_cache_reference,
        sampler=gather_and_maybe_dequant_cache_sampler,
        tolerance=QUANT_TOLERANCE,
        notes=("vLLM 0.13's signature (token_to_seq, num_tokens). Entries are 576 wide (vLLM checks it). "
               "cu_seq_lens starts at 0 and is non-decreasing with empty requests; num_tokens is its last "
               "value and token_to_seq is consistent with it (vLLM reads past a request otherwise). Block "
               "numbers are in [0, num_blocks) and every position fits its table row. dst rows at or past "
               "num_tokens stay as they came. 'auto' copies (bit-exact: the native error is zero); the fp8 "
               "cases hold every byte, NaN codes included. Not drawn: 'fp8_e5m2' caches, non-contiguous "
               "tensors (vLLM copies 16-byte vectors of a contiguous entry)."),
        ov_doc=("src_cache [num_blocks, block_size, 576]: float32/float16/bfloat16 like dst for kv_cache_dtype "
                "'auto', uint8 e4m3fn codes for 'fp8' or 'fp8_e4m3'; dst [rows, 576] float32/float16/bfloat16, "
                "rows >= num_tokens; block_table int32 [requests, width]; cu_seq_lens int32 [requests + 1] "
                "from 0, non-decreasing, cu_seq_lens[-1] == num_tokens; token_to_seq int32 [>= num_tokens], "
                "token_to_seq[t] = the request b with cu_seq_lens[b] <= t < cu_seq_lens[b+1]; scale float32 "
                "[1]; seq_starts None or int32 [requests]. For t < num_tokens, b = token_to_seq[t], p = t - "
                "cu_seq_lens[b] + seq_starts[b] (0 when None): e = src_cache[block_table[b, p // block_size], "
                "p % block_size]; dst[t] = e ('auto') or (float(e as e4m3fn) * scale[0] in float32) rounded to "
                "dst's dtype (fp8). Other rows of dst are left as they are. Writes dst; returns None."),
    ), work="compute", traffic=gather_and_maybe_dequant_cache_traffic)


# ----------------------------------------------------------------- cp_gather_indexer_k_quant_cache

@dataclass(frozen=True)
class IndexerGather:
    """`requests` requests of `total` tokens gathered from a byte cache of `num_blocks` blocks of
    `block_size` tokens, head_dim fp8 bytes and head_dim / 128 float32 scales each."""

    requests: int
    total: int
    num_blocks: int
    block_size: int
    head_dim: int = 128
    quant_block: int = 128

    def values(self) -> dict[str, object]:
        width = -(-self.total // self.block_size)
        scale_bytes = self.head_dim * 4 // self.quant_block
        return {
            "kv_cache": TensorSpec((self.num_blocks, self.block_size, self.head_dim + scale_bytes), u8,
                                   dist="index", low=0, high=256),
            "dst_k": OutputSpec((self.total, self.head_dim), u8),
            "dst_scale": OutputSpec((self.total, scale_bytes), u8),
            "block_table": TensorSpec((self.requests, width), i32, dist="index", low=0, high=self.num_blocks),
            "cu_seq_lens": TensorSpec((self.requests + 1,), i32, dist="offsets", high=self.total),
        }


# DeepSeek-V3.2's lightning indexer: head_dim 128, one float32 scale per 128 bytes, block size 64.
INDEXER_CASES: dict[str, list[IndexerGather]] = {
    "small": [
        IndexerGather(3, 13, 6, 4),
        IndexerGather(1, 5, 3, 2, 256),
        IndexerGather(5, 21, 12, 8),
        IndexerGather(4, 17, 30, 1, 384),
        IndexerGather(2, 16, 4, 16, 64, 64),
        IndexerGather(6, 30, 9, 64),
    ],
    "large": [
        IndexerGather(16, 4000, 200, 64),
        IndexerGather(40, 3000, 800, 16, 256),
    ],
    "perf": [
        IndexerGather(8, 16384, 2048, 64),
        IndexerGather(64, 65536, 8192, 64),
        IndexerGather(128, 8192, 4096, 64),
    ],
}


def cp_gather_indexer_k_quant_cache_reference(kv_cache: torch.Tensor, dst_k: torch.Tensor, dst_scale: torch.Tensor,
                                              block_table: torch.Tensor, cu_seq_lens: torch.Tensor) -> None:
    num_blocks, block_size, _ = kv_cache.shape
    tokens, head_dim = dst_k.shape
    scale_bytes = dst_scale.shape[1]
    t = torch.arange(tokens, device=dst_k.device)
    # the request of each token: the last b < requests with cu_seq_lens[b] <= t
    cu = cu_seq_lens.long()
    b = (torch.searchsorted(cu.contiguous(), t, right=True) - 1).clamp(0, block_table.shape[0] - 1)
    pos = t - cu[b]
    blocks = block_table.long()[b, pos // block_size]
    flat = kv_cache.reshape(num_blocks, -1)
    row = (pos % block_size)[:, None]
    k_at = row * head_dim + torch.arange(head_dim, device=t.device)
    s_at = block_size * head_dim + row * scale_bytes + torch.arange(scale_bytes, device=t.device)
    dst_k.copy_(flat[blocks[:, None], k_at].to(dst_k.dtype))
    dst_scale.copy_(flat[blocks[:, None], s_at].to(dst_scale.dtype))


def cp_gather_indexer_k_quant_cache_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in INDEXER_CASES[size]:
        yield sample(c.values())


def cp_gather_indexer_k_quant_cache_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """Reads and writes each gathered row (bytes and scales) once, plus the index tensors."""
    moved = sum(_nbytes(t) for t in outputs)
    return 2 * moved + sum(_nbytes(values[k]) for k in ("block_table", "cu_seq_lens"))


def cp_gather_indexer_k_quant_cache() -> Operator:
    return dataclasses.replace(vllm_operator(
        "cp_gather_indexer_k_quant_cache", "cache",
        "Gather each request's fp8 indexer keys and their scales from a paged byte cache (DeepSeek-V3.2).",
        params=(
            Param("kv_cache", "Tensor"),
            Param("dst_k", "Tensor!", writes=True),
            Param("dst_scale", "Tensor!", writes=True),
            Param("block_table", "Tensor"),
            Param("cu_seq_lens", "Tensor"),
        ),
        signature=("cp_gather_indexer_k_quant_cache(kv_cache: torch.Tensor, dst_k: torch.Tensor, "
                   "dst_scale: torch.Tensor, block_table: torch.Tensor, cu_seq_lens: torch.Tensor) -> None"),
        reference=cp_gather_indexer_k_quant_cache_reference,
        sampler=cp_gather_indexer_k_quant_cache_sampler,
        tolerance=QUANT_TOLERANCE,
        notes=("Bytes are copied as they are (random bytes: the op never reads them as numbers). dst_k is drawn "
               "uint8 (vLLM's caller passes float8_e4m3fn; the kernel moves bytes whatever the 1-byte dtype). "
               "quant_block_size (head_dim * 4 / dst_scale.shape[1]) is 128 or, with head_dim 64, 64: vLLM "
               "copies one scale per 128 key bytes, so smaller blocks over a wider head would leave scales "
               "unwritten there. head_dim is a multiple of 16 (vLLM moves 16-byte vectors). cu_seq_lens starts "
               "at 0, is non-decreasing (empty requests included) and ends at dst_k.shape[0] (rows past it "
               "belong to no request: vLLM reads an unset request index); batch_size is block_table.shape[0]; "
               "every tensor is contiguous."),
        ov_doc=("kv_cache uint8 [num_blocks, block_size, head_dim + 4 * head_dim / q], each block flat: block_size "
                "rows of head_dim key bytes, then block_size rows of 4 * head_dim / q scale bytes (float32 "
                "scales); dst_k 1-byte [tokens, head_dim]; dst_scale uint8 [tokens, 4 * head_dim / q]; "
                "block_table int32 [requests, width]; cu_seq_lens int32 [requests + 1] from 0 to tokens, "
                "non-decreasing. Token t of request b (cu_seq_lens[b] <= t < cu_seq_lens[b+1]) at p = t - "
                "cu_seq_lens[b], block n = block_table[b, p // block_size], row r = p % block_size: dst_k[t] = "
                "the key bytes of row r of block n, dst_scale[t] = its scale bytes. Returns None."),
    ), work="data", traffic=cp_gather_indexer_k_quant_cache_traffic)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "gather_and_maybe_dequant_cache": gather_and_maybe_dequant_cache,
    "cp_gather_indexer_k_quant_cache": cp_gather_indexer_k_quant_cache,
}
