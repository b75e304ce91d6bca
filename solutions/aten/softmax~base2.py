"""aten::softmax~base2 in Triton: 2^(x - max) / sum(2^(x - max)) along `dim`, in float32.

The host views input and output as (outer, n, inner) with strides, n being the softmax dim
(the input is made contiguous first only when its outer or inner dims cannot merge). Two
kernels, each with a one-tile path that keeps a whole slice in registers and a looped path for
long slices, which makes an online pass for the max and the sum of exponentials (rescaling
the sum whenever the max grows) and then a second pass that writes the normalised values:
  * `_softmax_rows_kernel` when inner == 1: tiles of (rows, n);
  * `_softmax_cols_kernel` otherwise: tiles of (n, inner columns).
Values are computed in float32 whatever the input and output dtypes, rounded once at the store.
"""

import torch
import triton
import triton.language as tl

MAX_ONE_TILE = 8192  # longest slice held in registers at once
TILE = 4096  # elements per loop step in the looped path


@triton.jit
def _softmax_rows_kernel(
    x_ptr, out_ptr, M, N,
    x_sm, x_sn, o_sm, o_sn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ONE_TILE: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = (rows < M)[:, None]
    x_rows = x_ptr + rows.to(tl.int64)[:, None] * x_sm
    o_rows = out_ptr + rows.to(tl.int64)[:, None] * o_sm
    cols = tl.arange(0, BLOCK_N)[None, :]

    if ONE_TILE:
        mask = row_mask & (cols < N)
        x = tl.load(x_rows + cols * x_sn, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp2(x - tl.max(x, axis=1)[:, None])
        y = e / tl.sum(e, axis=1)[:, None]
        tl.store(o_rows + cols * o_sn, y.to(out_ptr.dtype.element_ty), mask=mask)
    else:
        # Pass 1: running max and sum of exp(x - max), rescaled when the max grows.
        row_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
        row_sum = tl.zeros([BLOCK_M], tl.float32)
        for n0 in range(0, N, BLOCK_N):
            mask = row_mask & (n0 + cols < N)
            x = tl.load(x_rows + (n0 + cols) * x_sn, mask=mask, other=-float("inf")).to(tl.float32)
            new_max = tl.maximum(row_max, tl.max(x, axis=1))
            row_sum = row_sum * tl.exp2(row_max - new_max) + tl.sum(tl.exp2(x - new_max[:, None]), axis=1)
            row_max = new_max
        # Pass 2: normalise.
        for n0 in range(0, N, BLOCK_N):
            mask = row_mask & (n0 + cols < N)
            x = tl.load(x_rows + (n0 + cols) * x_sn, mask=mask, other=-float("inf")).to(tl.float32)
            y = tl.exp2(x - row_max[:, None]) / row_sum[:, None]
            tl.store(o_rows + (n0 + cols) * o_sn, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_cols_kernel(
    x_ptr, out_ptr, N, inner,
    x_so, x_sn, x_si, o_so, o_sn, o_si,
    BLOCK_N: tl.constexpr, BLOCK_I: tl.constexpr, ONE_TILE: tl.constexpr,
):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = (cols < inner)[None, :]
    x_cols = x_ptr + outer * x_so + cols[None, :] * x_si
    o_cols = out_ptr + outer * o_so + cols[None, :] * o_si
    rows = tl.arange(0, BLOCK_N)[:, None]

    if ONE_TILE:
        mask = (rows < N) & col_mask
        x = tl.load(x_cols + rows * x_sn, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp2(x - tl.max(x, axis=0)[None, :])
        y = e / tl.sum(e, axis=0)[None, :]
        tl.store(o_cols + rows * o_sn, y.to(out_ptr.dtype.element_ty), mask=mask)
    else:
        # Pass 1: running max and sum of exp(x - max) per column.
        col_max = tl.full([BLOCK_I], -float("inf"), tl.float32)
        col_sum = tl.zeros([BLOCK_I], tl.float32)
        for n0 in range(0, N, BLOCK_N):
            mask = (n0 + rows < N) & col_mask
            x = tl.load(x_cols + (n0 + rows) * x_sn, mask=mask, other=-float("inf")).to(tl.float32)
            new_max = tl.maximum(col_max, tl.max(x, axis=0))
            col_sum = col_sum * tl.exp2(col_max - new_max) + tl.sum(tl.exp2(x - new_max[None, :]), axis=0)
            col_max = new_max
        # Pass 2: normalise.
        for n0 in range(0, N, BLOCK_N):
            mask = (n0 + rows < N) & col_mask
            x = tl.load(x_cols + (n0 + rows) * x_sn, mask=mask, other=-float("inf")).to(tl.float32)
            y = tl.exp2(x - col_max[None, :]) / col_sum[None, :]
            tl.store(o_cols + (n0 + rows) * o_sn, y.to(out_ptr.dtype.element_ty), mask=mask)


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


def _num_warps(elements):
    return min(16, max(4, elements // 512))


def _softmax_into(x, dim, out):
    rank = max(x.dim(), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"softmax: dim {dim} out of range for a tensor of {x.dim()} dims")
    dim %= rank
    if x.numel() == 0:
        return out
    x_view = _view3(x, dim)
    if x_view is None:
        x = x.contiguous()
        x_view = _view3(x, dim)
    o_view = _view3(out, dim)
    if o_view is None:
        raise NotImplementedError("softmax: this out= layout is not supported")
    (outer, x_so), (n, x_sn), (inner, x_si) = x_view
    (_, o_so), (_, o_sn), (_, o_si) = o_view

    one_tile = triton.next_power_of_2(n) <= MAX_ONE_TILE
    if inner == 1:
        block_n = triton.next_power_of_2(n) if one_tile else TILE
        block_m = min(triton.next_power_of_2(outer), max(1, 2048 // block_n))
        _softmax_rows_kernel[(triton.cdiv(outer, block_m),)](
            x, out, outer, n, x_so, x_sn, o_so, o_sn,
            BLOCK_M=block_m, BLOCK_N=block_n, ONE_TILE=one_tile,
            num_warps=_num_warps(block_m * block_n),
        )
    else:
        block_i = min(triton.next_power_of_2(inner), 32)
        one_tile = triton.next_power_of_2(n) * block_i <= MAX_ONE_TILE
        block_n = triton.next_power_of_2(n) if one_tile else max(1, TILE // block_i)
        _softmax_cols_kernel[(outer * triton.cdiv(inner, block_i),)](
            x, out, n, inner, x_so, x_sn, x_si, o_so, o_sn, o_si,
            BLOCK_N=block_n, BLOCK_I=block_i, ONE_TILE=one_tile,
            num_warps=_num_warps(block_n * block_i),
        )
    return out


def softmax_int(self, dim, dtype=None):
    out = torch.empty(self.shape, dtype=dtype if dtype is not None else self.dtype, device=self.device)
    return _softmax_into(self, dim, out)


def softmax_int_out(self, dim, dtype=None, *, out):
    return _softmax_into(self, dim, out)
