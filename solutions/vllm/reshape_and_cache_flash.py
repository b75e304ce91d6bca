"""vllm::reshape_and_cache_flash in Triton: one tile of tokens x row elements per program.

Each token's row (heads x head_size) is copied to its slot; padding tokens (negative slot) are
masked out. Key, value and both caches are addressed through their own strides, so a key sliced
out of a fused qkv or a cache that is a view of a combined KV tensor (or in HND order) needs no
copy. Only kv_cache_dtype "auto" is handled: the cache has the key's dtype.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cache_rows(src_ptr, dst_ptr, toks, block, offset, cols, mask, head_size,
                s0, s1, s2, c0, c1, c2, c3):
    head = cols // head_size
    dim = cols % head_size
    src = toks.to(tl.int64)[:, None] * s0 + (head * s1 + dim * s2)[None, :]
    dst = (block * c0 + offset * c1)[:, None] + (head.to(tl.int64) * c2 + dim * c3)[None, :]
    tl.store(dst_ptr + dst, tl.load(src_ptr + src, mask=mask), mask=mask)


@triton.jit
def _flash_kernel(key_ptr, value_ptr, kc_ptr, vc_ptr, slot_ptr, n_tokens, row, head_size, block_size,
                  ks0, ks1, ks2, vs0, vs1, vs2, kc0, kc1, kc2, kc3, vc0, vc1, vc2, vc3,
                  BLOCK_T: tl.constexpr, BLOCK_N: tl.constexpr):
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    slot = tl.load(slot_ptr + toks, mask=toks < n_tokens, other=-1)
    block = slot // block_size
    offset = slot % block_size
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (slot >= 0)[:, None] & (cols < row)[None, :]
    _cache_rows(key_ptr, kc_ptr, toks, block, offset, cols, mask, head_size, ks0, ks1, ks2, kc0, kc1, kc2, kc3)
    _cache_rows(value_ptr, vc_ptr, toks, block, offset, cols, mask, head_size, vs0, vs1, vs2, vc0, vc1, vc2, vc3)


def reshape_and_cache_flash(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor,
                            value_cache: torch.Tensor, slot_mapping: torch.Tensor, kv_cache_dtype: str,
                            k_scale: torch.Tensor, v_scale: torch.Tensor) -> None:
    n_tokens = slot_mapping.shape[0]
    _, heads, head_size = key.shape
    row = heads * head_size
    block_n = min(triton.next_power_of_2(row), 2048)
    block_t = min(max(1, 4096 // block_n), triton.next_power_of_2(max(n_tokens, 1)))
    grid = (triton.cdiv(n_tokens, block_t), triton.cdiv(row, block_n))
    _flash_kernel[grid](key, value, key_cache, value_cache, slot_mapping, n_tokens, row, head_size,
                        key_cache.shape[1], *key.stride(), *value.stride(), *key_cache.stride(),
                        *value_cache.stride(), BLOCK_T=block_t, BLOCK_N=block_n, num_warps=4)
