"""vllm::concat_and_cache_mla in Triton: one tile of tokens x cache-entry elements per program.

The cache entry of a token is kv_c's row followed by k_pe's row; each column of the tile reads
from the one it falls in. Padding tokens (negative slot) are masked out. Inputs and the cache
are addressed through their strides (a kv_c sliced from a wider projection needs no copy). Only
kv_cache_dtype "auto" is handled: the cache has kv_c's dtype.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mla_kernel(kv_c_ptr, k_pe_ptr, cache_ptr, slot_ptr, n_tokens, rank, entry, block_size,
                cs0, cs1, ps0, ps1, c0, c1, c2, BLOCK_T: tl.constexpr, BLOCK_N: tl.constexpr):
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    slot = tl.load(slot_ptr + toks, mask=toks < n_tokens, other=-1)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (slot >= 0)[:, None] & (cols < entry)[None, :]
    in_c = cols < rank
    t64 = toks.to(tl.int64)[:, None]
    c = tl.load(kv_c_ptr + t64 * cs0 + (cols * cs1)[None, :], mask=mask & in_c[None, :])
    p = tl.load(k_pe_ptr + t64 * ps0 + ((cols - rank) * ps1)[None, :], mask=mask & ~in_c[None, :])
    dst = ((slot // block_size) * c0 + (slot % block_size) * c1)[:, None] + (cols.to(tl.int64) * c2)[None, :]
    tl.store(cache_ptr + dst, tl.where(in_c[None, :], c, p), mask=mask)


def concat_and_cache_mla(kv_c: torch.Tensor, k_pe: torch.Tensor, kv_cache: torch.Tensor, slot_mapping: torch.Tensor,
                         kv_cache_dtype: str, scale: torch.Tensor) -> None:
    n_tokens = slot_mapping.shape[0]
    rank = kv_c.shape[1]
    entry = rank + k_pe.shape[1]
    block_n = min(triton.next_power_of_2(entry), 1024)
    block_t = min(max(1, 4096 // block_n), triton.next_power_of_2(max(n_tokens, 1)))
    grid = (triton.cdiv(n_tokens, block_t), triton.cdiv(entry, block_n))
    _mla_kernel[grid](kv_c, k_pe, kv_cache, slot_mapping, n_tokens, rank, entry, kv_cache.shape[1],
                      *kv_c.stride(), *k_pe.stride(), *kv_cache.stride(), BLOCK_T=block_t, BLOCK_N=block_n,
                      num_warps=4)
