"""aten::index_select in Triton: out[..., l, ...] = self[..., index[l], ...] along `dim`.

The host views self as (outer, d, inner) and out as (outer, len(index), inner) with strides
(self is made contiguous first only when its outer or inner dims cannot merge). Each program
copies a (BLOCK_L, BLOCK_I) tile of one outer slice: it loads BLOCK_L indices (int32 or int64)
once, then gathers BLOCK_I contiguous inner elements for each of them. With inner == 1 (the
last dim is indexed) a tile is BLOCK_L gathered elements of one row, written contiguously.
"""

import torch
import triton
import triton.language as tl

TILE = 2048  # elements per program


@triton.jit
def _index_select_kernel(
    x_ptr, idx_ptr, out_ptr, L, inner, D,
    x_so, x_sd, x_si, o_so, o_sl, o_si, idx_stride,
    BLOCK_L: tl.constexpr, BLOCK_I: tl.constexpr,
):
    pid = tl.program_id(0)
    l_blocks = tl.cdiv(L, BLOCK_L)
    i_blocks = tl.cdiv(inner, BLOCK_I)
    outer = (pid // (l_blocks * i_blocks)).to(tl.int64)
    tile = pid % (l_blocks * i_blocks)
    ls = (tile // i_blocks) * BLOCK_L + tl.arange(0, BLOCK_L)
    cols = (tile % i_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    l_mask = ls < L

    idx = tl.load(idx_ptr + ls * idx_stride, mask=l_mask, other=0).to(tl.int64)
    tl.device_assert((idx >= 0) & (idx < D), "index_select: index out of range")
    mask = (l_mask & (idx >= 0) & (idx < D))[:, None] & (cols < inner)[None, :]

    src = x_ptr + outer * x_so + idx[:, None] * x_sd + cols[None, :] * x_si
    dst = out_ptr + outer * o_so + ls[:, None].to(tl.int64) * o_sl + cols[None, :] * o_si
    tl.store(dst, tl.load(src, mask=mask), mask=mask)


def _merge(sizes, strides):
    """(size, stride) of one dim that walks a row-major group of dims, or None if it cannot."""
    if 0 in sizes:
        return 0, 1
    size, stride = 1, 0
    for s, st in zip(reversed(sizes), reversed(strides)):
        if s == 1:
            continue
        if size == 1:
            size, stride = s, st
        elif st == stride * size:
            size *= s
        else:
            return None
    return size, stride


def _view3(t, dim):
    """t as (outer, n, inner) (size, stride) pairs around `dim`, or None if it cannot be viewed so."""
    if t.dim() == 0:
        return [(1, 0), (1, 0), (1, 0)]
    groups = [range(dim), [dim], range(dim + 1, t.dim())]
    merged = [_merge([t.shape[d] for d in g], [t.stride(d) for d in g]) for g in groups]
    return None if None in merged else merged


def _check(self, dim, index):
    """ATen's argument checks; returns the non-negative dim."""
    rank = max(self.dim(), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"index_select: dim {dim} out of range for a tensor of {self.dim()} dims")
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (torch.int32, torch.int64):
        raise IndexError(f"index_select(): Expected dtype int32/int64 for index, got {index.dtype}")
    if self.dim() == 0 and index.numel() != 1:
        raise IndexError(f"index_select(): Index to scalar can have only 1 value, "
                         f"got {index.numel()} value(s)")
    return dim % rank


def _output_shape(self, dim, index):
    shape = list(self.shape)
    if shape:
        shape[dim] = index.numel()
    return shape


def _index_select_into(self, dim, index, out):
    if out.numel() == 0:
        return out
    x_view = _view3(self, dim)
    if x_view is None:
        self = self.contiguous()
        x_view = _view3(self, dim)
    o_view = _view3(out, dim)
    if o_view is None:
        raise NotImplementedError("index_select: this out= layout is not supported")
    (outer, x_so), (d, x_sd), (inner, x_si) = x_view
    (_, o_so), (length, o_sl), (_, o_si) = o_view
    idx_stride = index.stride(0) if index.dim() == 1 else 0

    block_i = min(triton.next_power_of_2(inner), TILE)
    block_l = min(triton.next_power_of_2(length), TILE // block_i)
    grid = (outer * triton.cdiv(length, block_l) * triton.cdiv(inner, block_i),)
    _index_select_kernel[grid](
        self, index, out, length, inner, d,
        x_so, x_sd, x_si, o_so, o_sl, o_si, idx_stride,
        BLOCK_L=block_l, BLOCK_I=block_i, num_warps=4,
    )
    return out


def index_select(self, dim, index):
    dim = _check(self, dim, index)
    out = torch.empty(_output_shape(self, dim, index), dtype=self.dtype, device=self.device)
    return _index_select_into(self, dim, index, out)


def index_select_out(self, dim, index, *, out):
    dim = _check(self, dim, index)
    return _index_select_into(self, dim, index, out)
