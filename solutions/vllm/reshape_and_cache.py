"""vllm::reshape_and_cache in Triton: one tile of tokens x row elements per program.

Element d of head h goes to key_cache[b, h, d // x, o, d % x] and value_cache[b, h, d, o] for the
token's slot (b, o); padding tokens (negative slot) are masked out. All tensors are addressed
through their own strides. Only kv_cache_dtype "auto" is handled: the cache has the key's dtype.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _paged_kernel(key_ptr, value_ptr, kc_ptr, vc_ptr, slot_ptr, n_tokens, row, head_size, block_size, x,
                  ks0, ks1, ks2, vs0, vs1, vs2, kc0, kc1, kc2, kc3, kc4, vc0, vc1, vc2, vc3,
                  BLOCK_T: tl.constexpr, BLOCK_N: tl.constexpr):
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    slot = tl.load(slot_ptr + toks, mask=toks < n_tokens, other=-1)
    block = slot // block_size
    offset = slot % block_size
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (slot >= 0)[:, None] & (cols < row)[None, :]
    head = (cols // head_size).to(tl.int64)
    dim = (cols % head_size).to(tl.int64)
    t64 = toks.to(tl.int64)[:, None]

    k = tl.load(key_ptr + t64 * ks0 + (head * ks1 + dim * ks2)[None, :], mask=mask)
    k_dst = (block * kc0 + offset * kc3)[:, None] + (head * kc1 + (dim // x) * kc2 + (dim % x) * kc4)[None, :]
    tl.store(kc_ptr + k_dst, k, mask=mask)

    v = tl.load(value_ptr + t64 * vs0 + (head * vs1 + dim * vs2)[None, :], mask=mask)
    v_dst = (block * vc0 + offset * vc3)[:, None] + (head * vc1 + dim * vc2)[None, :]
    tl.store(vc_ptr + v_dst, v, mask=mask)


def reshape_and_cache(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor,
                      slot_mapping: torch.Tensor, kv_cache_dtype: str, k_scale: torch.Tensor,
                      v_scale: torch.Tensor) -> None:
    n_tokens = slot_mapping.shape[0]
    _, heads, head_size = key.shape
    row = heads * head_size
    block_n = min(triton.next_power_of_2(row), 2048)
    block_t = min(max(1, 4096 // block_n), triton.next_power_of_2(max(n_tokens, 1)))
    grid = (triton.cdiv(n_tokens, block_t), triton.cdiv(row, block_n))
    _paged_kernel[grid](key, value, key_cache, value_cache, slot_mapping, n_tokens, row, head_size,
                        key_cache.shape[3], key_cache.shape[4], *key.stride(), *value.stride(),
                        *key_cache.stride(), *value_cache.stride(), BLOCK_T=block_t, BLOCK_N=block_n,
                        num_warps=4)
