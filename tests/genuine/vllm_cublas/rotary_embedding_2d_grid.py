# op: vllm::rotary_embedding
# idiom: 2-D launch grid (tokens x heads), one head per program; IS_NEOX / HAS_KEY constexpr switches; key None handled; views via reshape

import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_pairs(head_ptr, o1, o2, cos, sin, mask):
    x1 = tl.load(head_ptr + o1, mask=mask, other=0.0)
    x2 = tl.load(head_ptr + o2, mask=mask, other=0.0)
    a = x1.to(tl.float32)
    b = x2.to(tl.float32)
    tl.store(head_ptr + o1, (a * cos - b * sin).to(x1.dtype), mask=mask)
    tl.store(head_ptr + o2, (b * cos + a * sin).to(x2.dtype), mask=mask)


@triton.jit
def rope_kernel(
    pos_ptr, q_ptr, k_ptr, cache_ptr,
    q_token_stride, k_token_stride, cache_row_stride,
    num_q_heads, num_k_heads, head_size, half_rot,
    IS_NEOX: tl.constexpr, HAS_KEY: tl.constexpr, BLOCK_HALF: tl.constexpr,
):
    token = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)

    pos = tl.load(pos_ptr + token).to(tl.int64)
    j = tl.arange(0, BLOCK_HALF)
    mask = j < half_rot
    cache_row = cache_ptr + pos * cache_row_stride
    cos = tl.load(cache_row + j, mask=mask, other=0.0).to(tl.float32)
    sin = tl.load(cache_row + half_rot + j, mask=mask, other=0.0).to(tl.float32)

    if IS_NEOX:
        o1 = j
        o2 = j + half_rot
    else:
        o1 = 2 * j
        o2 = 2 * j + 1

    if head < num_q_heads:
        q_head = q_ptr + token * q_token_stride + head * head_size
        _rotate_pairs(q_head, o1, o2, cos, sin, mask)
    if HAS_KEY:
        if head < num_k_heads:
            k_head = k_ptr + token * k_token_stride + head * head_size
            _rotate_pairs(k_head, o1, o2, cos, sin, mask)


def rotary_embedding(positions: torch.Tensor, query: torch.Tensor, key, head_size: int,
                     cos_sin_cache: torch.Tensor, is_neox: bool) -> None:
    num_tokens = positions.numel()
    if num_tokens == 0:
        return
    pos = positions.reshape(-1)
    q = query.view(num_tokens, -1)
    num_q_heads = q.shape[1] // head_size
    if key is not None:
        k = key.view(num_tokens, -1)
        num_k_heads = k.shape[1] // head_size
        k_stride = k.stride(0)
    else:
        k = q  # never dereferenced: HAS_KEY is False
        num_k_heads = 0
        k_stride = 0
    rot_dim = cos_sin_cache.shape[-1]
    half = rot_dim // 2
    grid = (num_tokens, max(num_q_heads, num_k_heads))
    rope_kernel[grid](
        pos, q, k, cos_sin_cache,
        q.stride(0), k_stride, cos_sin_cache.stride(0),
        num_q_heads, num_k_heads, head_size, half,
        IS_NEOX=bool(is_neox), HAS_KEY=key is not None,
        BLOCK_HALF=triton.next_power_of_2(half), num_warps=1,
    )
