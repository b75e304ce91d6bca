"""vllm::fused_qk_norm_rope in Triton: a tile of one token's query/key heads per program.

Each program normalises BLOCK_H heads of one token in float32 and rotates them in the same pass:
the rotation partner of every element is re-read (it is in cache) and normalised with the same
per-head factor, so no cross-lane exchange is needed. Nothing is rounded before the final store,
as in vLLM's kernel; value heads are never touched.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _qk_norm_rope(qkv_ptr, qw_ptr, kw_ptr, cache_ptr, pos_ptr, row_stride, heads_q, heads_qk,
                  rot_dim, eps, HEAD_DIM: tl.constexpr, BLOCK_H: tl.constexpr, IS_NEOX: tl.constexpr):
    token = tl.program_id(0)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    cols = tl.arange(0, HEAD_DIM)
    head_ok = heads < heads_qk
    mask = head_ok[:, None] & (cols[None, :] < HEAD_DIM)
    base = qkv_ptr + token.to(tl.int64) * row_stride + heads[:, None] * HEAD_DIM

    x = tl.load(base + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=1) / HEAD_DIM + eps)
    is_q = (heads < heads_q)[:, None]

    half = rot_dim // 2
    if IS_NEOX:
        partner = tl.where(cols < half, cols + half, cols - half)
        first = cols < half
        freq = cols % tl.maximum(half, 1)
    else:
        partner = cols ^ 1
        first = (cols % 2) == 0
        freq = cols // 2
    rotated = cols < rot_dim
    partner = tl.where(rotated, partner, cols)

    wq = tl.load(qw_ptr + cols).to(tl.float32)
    wk = tl.load(kw_ptr + cols).to(tl.float32)
    w = tl.where(is_q, wq[None, :], wk[None, :])
    wq_p = tl.load(qw_ptr + partner).to(tl.float32)
    wk_p = tl.load(kw_ptr + partner).to(tl.float32)
    w_p = tl.where(is_q, wq_p[None, :], wk_p[None, :])
    x_p = tl.load(base + partner[None, :], mask=mask, other=0.0).to(tl.float32)

    y = x * inv[:, None] * w
    y_p = x_p * inv[:, None] * w_p

    pos = tl.load(pos_ptr + token).to(tl.int64)
    row = cache_ptr + pos * rot_dim
    cos = tl.load(row + freq, mask=rotated, other=1.0).to(tl.float32)
    sin = tl.load(row + half + freq, mask=rotated, other=0.0).to(tl.float32)
    sign = tl.where(first, -1.0, 1.0)
    out = y * cos[None, :] + (sign * sin)[None, :] * y_p
    tl.store(base + cols[None, :], out.to(qkv_ptr.dtype.element_ty), mask=mask)


def fused_qk_norm_rope(qkv: torch.Tensor, num_heads_q: int, num_heads_k: int, num_heads_v: int,
                       head_dim: int, eps: float, q_weight: torch.Tensor, k_weight: torch.Tensor,
                       cos_sin_cache: torch.Tensor, is_neox: bool, position_ids: torch.Tensor) -> None:
    tokens = qkv.shape[0]
    heads_qk = num_heads_q + num_heads_k
    if tokens == 0 or heads_qk == 0:
        return
    block_h = min(triton.next_power_of_2(heads_qk), max(1, 1024 // head_dim))
    grid = (tokens, triton.cdiv(heads_qk, block_h))
    _qk_norm_rope[grid](qkv, q_weight, k_weight, cos_sin_cache, position_ids, qkv.stride(0),
                        num_heads_q, heads_qk, cos_sin_cache.shape[1], eps,
                        HEAD_DIM=head_dim, BLOCK_H=block_h, IS_NEOX=is_neox,
                        num_warps=4)
