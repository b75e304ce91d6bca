"""vllm::rotary_embedding in Triton: in-place NeoX / GPT-J rotation of query and key heads.

One program per (token, block of heads) rotates the first rot_dim elements of every head of
query and key in float32, reading cos and sin from row positions[token] of the cache. Tokens,
heads and elements are addressed through each tensor's strides, so query/key may be flat
[..., heads*head_size] or split [..., heads, head_size], with one or two token dims.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_neox(base, heads, n_heads, s_head, s_elem, half, cos, sin, BLOCK_D: tl.constexpr):
    j = tl.arange(0, BLOCK_D)
    ok = (heads < n_heads)[:, None] & (j < half)[None, :]
    a_at = base + heads.to(tl.int64)[:, None] * s_head + j[None, :].to(tl.int64) * s_elem
    b_at = a_at + half * s_elem
    a = tl.load(a_at, mask=ok, other=0.0).to(tl.float32)
    b = tl.load(b_at, mask=ok, other=0.0).to(tl.float32)
    tl.store(a_at, (a * cos[None, :] - b * sin[None, :]).to(base.dtype.element_ty), mask=ok)
    tl.store(b_at, (b * cos[None, :] + a * sin[None, :]).to(base.dtype.element_ty), mask=ok)


@triton.jit
def _rotate_gptj(base, heads, n_heads, s_head, s_elem, half, cos, sin, BLOCK_D: tl.constexpr):
    """Pairs (2j, 2j+1) are adjacent: load the rotated span whole and split it, for coalescing."""
    k = tl.arange(0, 2 * BLOCK_D)
    ok = (heads < n_heads)[:, None] & (k < 2 * half)[None, :]
    at = base + heads.to(tl.int64)[:, None] * s_head + k[None, :].to(tl.int64) * s_elem
    x = tl.load(at, mask=ok, other=0.0).to(tl.float32)
    a, b = tl.split(tl.reshape(x, (x.shape[0], BLOCK_D, 2)))
    new_a = a * cos[None, :] - b * sin[None, :]
    new_b = b * cos[None, :] + a * sin[None, :]
    y = tl.reshape(tl.join(new_a, new_b), (x.shape[0], 2 * BLOCK_D))
    tl.store(at, y.to(base.dtype.element_ty), mask=ok)


@triton.jit
def _rope_kernel(pos_ptr, q_ptr, k_ptr, cache_ptr, seq_len, ps_batch, ps_seq,
                 cs_row, cs_col, half,
                 nq, qs_batch, qs_seq, qs_head, qs_elem,
                 nk, ks_batch, ks_seq, ks_head, ks_elem,
                 HAS_KEY: tl.constexpr, IS_NEOX: tl.constexpr,
                 BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    b = tok // seq_len
    s = tok % seq_len
    pos = tl.load(pos_ptr + b * ps_batch + s * ps_seq).to(tl.int64)
    j = tl.arange(0, BLOCK_D)
    j_ok = j < half
    row = cache_ptr + pos * cs_row
    cos = tl.load(row + j.to(tl.int64) * cs_col, mask=j_ok, other=0.0).to(tl.float32)
    sin = tl.load(row + (j + half).to(tl.int64) * cs_col, mask=j_ok, other=0.0).to(tl.float32)
    q = q_ptr + b * qs_batch + s * qs_seq
    k = k_ptr + b * ks_batch + s * ks_seq
    if IS_NEOX:
        _rotate_neox(q, heads, nq, qs_head, qs_elem, half, cos, sin, BLOCK_D)
        if HAS_KEY:
            _rotate_neox(k, heads, nk, ks_head, ks_elem, half, cos, sin, BLOCK_D)
    else:
        _rotate_gptj(q, heads, nq, qs_head, qs_elem, half, cos, sin, BLOCK_D)
        if HAS_KEY:
            _rotate_gptj(k, heads, nk, ks_head, ks_elem, half, cos, sin, BLOCK_D)


def _token_head_strides(t: torch.Tensor, token_dims: int, head_size: int):
    """(batch, seq, head, elem) strides and the head count of query or key."""
    st = t.stride()
    seq = st[token_dims - 1]
    batch = st[0] if token_dims == 2 else 0
    elem = st[-1]
    if t.dim() == token_dims + 2:
        return batch, seq, st[-2], elem, t.shape[-2]
    return batch, seq, head_size * elem, elem, t.shape[-1] // head_size


def rotary_embedding(positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor | None,
                     head_size: int, cos_sin_cache: torch.Tensor, is_neox: bool) -> None:
    num_tokens = positions.numel()
    if num_tokens == 0:
        return
    token_dims = positions.dim()
    seq_len = positions.shape[-1]
    ps_seq = positions.stride(-1)
    ps_batch = positions.stride(0) if token_dims == 2 else 0
    rot_dim = cos_sin_cache.shape[1]
    half = rot_dim // 2
    qb, qsq, qh, qe, nq = _token_head_strides(query, token_dims, head_size)
    if key is not None:
        kb, ksq, kh, ke, nk = _token_head_strides(key, token_dims, head_size)
    else:
        kb, ksq, kh, ke, nk = 0, 0, 0, 0, 0
    block_d = triton.next_power_of_2(max(half, 1))
    block_h = min(triton.next_power_of_2(max(nq, nk)), max(1, 2048 // block_d))
    grid = (num_tokens, triton.cdiv(max(nq, nk), block_h))
    _rope_kernel[grid](positions, query, key if key is not None else query, cos_sin_cache,
                       seq_len, ps_batch, ps_seq, cos_sin_cache.stride(0), cos_sin_cache.stride(1), half,
                       nq, qb, qsq, qh, qe, nk, kb, ksq, kh, ke,
                       HAS_KEY=key is not None, IS_NEOX=is_neox,
                       BLOCK_H=block_h, BLOCK_D=block_d, num_warps=4)
