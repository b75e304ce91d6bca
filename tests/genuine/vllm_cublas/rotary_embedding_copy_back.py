# op: vllm::rotary_embedding
# idiom: out-of-place partner-gather kernel writes whole heads into a float32 buffer, host copies back with query.copy_(q32) / key.copy_(k32); one launch per tensor

"""Rotary embedding, out of place.

For every element d of a head the kernel gathers its rotation partner (d +/- rot_dim/2 for
NeoX, d ^ 1 for GPT-J) and computes x*cos +/- partner*sin in float32; elements at and past
rot_dim pass through. One program handles every head of one token. The results land in a
fresh float32 tensor that the host casts back into query / key.
"""

from typing import Optional

import torch
import triton
import triton.language as tl


@triton.jit
def _rope_gather_kernel(src_ptr, dst_ptr, pos_ptr, cache_ptr, cache_stride,
                        num_heads, head_size, rot_dim,
                        IS_NEOX: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    pos = tl.load(pos_ptr + tok).to(tl.int64)
    h = tl.arange(0, BLOCK_H)[:, None]
    d = tl.arange(0, BLOCK_D)[None, :]
    in_head = (h < num_heads) & (d < head_size)
    half = rot_dim // 2
    rotated = d < rot_dim

    if IS_NEOX:
        first = d < half
        idx = tl.where(first, d, d - half)
        partner = tl.where(first, d + half, d - half)
    else:
        first = (d % 2) == 0
        idx = d // 2
        partner = d ^ 1
    sign = tl.where(first, -1.0, 1.0)

    row = tok * num_heads * head_size + h * head_size
    x = tl.load(src_ptr + row + d, mask=in_head, other=0.0).to(tl.float32)
    y = tl.load(src_ptr + row + partner, mask=in_head & rotated, other=0.0).to(tl.float32)
    cmask = rotated & (d < head_size)
    cos = tl.load(cache_ptr + pos * cache_stride + idx, mask=cmask, other=1.0).to(tl.float32)
    sin = tl.load(cache_ptr + pos * cache_stride + half + idx, mask=cmask, other=0.0).to(tl.float32)
    out = tl.where(rotated, x * cos + sign * y * sin, x)
    tl.store(dst_ptr + row + d, out, mask=in_head)


def _rotate_into(t: torch.Tensor, pos: torch.Tensor, cache: torch.Tensor, num_tokens: int,
                 head_size: int, is_neox: bool) -> torch.Tensor:
    """Returns the rotated copy of t (contiguous) as float32, shaped like t."""
    num_heads = t.numel() // (num_tokens * head_size)
    out32 = torch.empty(t.shape, dtype=torch.float32, device=t.device)
    block_h = triton.next_power_of_2(num_heads)
    block_d = triton.next_power_of_2(head_size)
    warps = 4 if block_h * block_d >= 2048 else 1
    _rope_gather_kernel[(num_tokens,)](t, out32, pos, cache, cache.stride(0),
                                       num_heads, head_size, cache.shape[-1],
                                       IS_NEOX=is_neox, BLOCK_H=block_h, BLOCK_D=block_d,
                                       num_warps=warps)
    return out32


def rotary_embedding(positions: torch.Tensor, query: torch.Tensor, key: Optional[torch.Tensor],
                     head_size: int, cos_sin_cache: torch.Tensor, is_neox: bool) -> None:
    num_tokens = positions.numel()
    if num_tokens == 0:
        return
    pos = positions.contiguous().view(-1)
    cache = cos_sin_cache.contiguous()
    q32 = _rotate_into(query, pos, cache, num_tokens, head_size, bool(is_neox))
    if key is not None:
        k32 = _rotate_into(key, pos, cache, num_tokens, head_size, bool(is_neox))
        key.copy_(k32)
    query.copy_(q32)
