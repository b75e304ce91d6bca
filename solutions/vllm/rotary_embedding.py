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
def _rotate_heads(base, heads, n_heads, s_head, s_elem, a_idx, b_idx, j_ok, cos, sin):
    ok = (heads < n_heads)[:, None] & j_ok[None, :]
    head_off = heads.to(tl.int64)[:, None] * s_head
    a_at = base + head_off + a_idx[None, :].to(tl.int64) * s_elem
    b_at = base + head_off + b_idx[None, :].to(tl.int64) * s_elem
    a = tl.load(a_at, mask=ok, other=0.0).to(tl.float32)
    b = tl.load(b_at, mask=ok, other=0.0).to(tl.float32)
    new_a = a * cos[None, :] - b * sin[None, :]
    new_b = b * cos[None, :] + a * sin[None, :]
    tl.store(a_at, new_a.to(base.dtype.element_ty), mask=ok)
    tl.store(b_at, new_b.to(base.dtype.element_ty), mask=ok)


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
    if IS_NEOX:
        a_idx = j
        b_idx = j + half
    else:
        a_idx = 2 * j
        b_idx = 2 * j + 1
    _rotate_heads(q_ptr + b * qs_batch + s * qs_seq, heads, nq, qs_head, qs_elem,
                  a_idx, b_idx, j_ok, cos, sin)
    if HAS_KEY:
        _rotate_heads(k_ptr + b * ks_batch + s * ks_seq, heads, nk, ks_head, ks_elem,
                      a_idx, b_idx, j_ok, cos, sin)


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
