# op: vllm::concat_and_cache_mla
# idiom: persistent kernel striding over tokens (tl.num_programs(0)), kv_c and k_pe copied by two separate masked 1-D copies per token

"""MLA cache write with a fixed number of programs.

Each program walks the tokens pid, pid + P, pid + 2P, ... and, for a token whose slot is not
padding, copies its kv_c row into the first kv_lora_rank entries of the cache slot and its k_pe
row into the rest, in two plain masked copies.
"""

import torch
import triton
import triton.language as tl

MAX_PROGRAMS = 132


@triton.jit
def _store_row(src_row, dst_row, length, live, BLOCK: tl.constexpr):
    for start in range(0, length, BLOCK):
        i = start + tl.arange(0, BLOCK)
        ok = (i < length) & live
        tl.store(dst_row + i, tl.load(src_row + i, mask=ok), mask=ok)


@triton.jit
def _persistent_mla(kv_c, k_pe, cache, slots, n_tokens, rank, pe_dim, page,
                    c_row, p_row, block_stride, entry_stride,
                    BLOCK_C: tl.constexpr, BLOCK_P: tl.constexpr):
    for t in range(tl.program_id(0), n_tokens, tl.num_programs(0)):
        s = tl.load(slots + t)
        live = s >= 0
        s = tl.maximum(s, 0)
        entry = cache + (s // page) * block_stride + (s % page) * entry_stride
        _store_row(kv_c + t * c_row, entry, rank, live, BLOCK_C)
        _store_row(k_pe + t * p_row, entry + rank, pe_dim, live, BLOCK_P)


def concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping, kv_cache_dtype, scale):
    n = slot_mapping.numel()
    rank, pe_dim = kv_c.shape[1], k_pe.shape[1]
    programs = max(1, min(n, MAX_PROGRAMS))
    _persistent_mla[(programs,)](
        kv_c, k_pe, kv_cache, slot_mapping, n, rank, pe_dim, kv_cache.shape[1],
        kv_c.stride(0), k_pe.stride(0), kv_cache.stride(0), kv_cache.stride(1),
        BLOCK_C=min(512, triton.next_power_of_2(rank)), BLOCK_P=triton.next_power_of_2(pe_dim),
    )
