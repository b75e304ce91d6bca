"""aten::cumsum in Triton: the inclusive prefix sum along `dim`.

The host views input and output as (outer, n, inner) with strides, n being the scanned dim (the
input is made contiguous first only when its outer or inner dims cannot merge). Each program
walks its slices in tiles along n: it scans a tile with `tl.cumsum`, adds the running total of
the tiles before it, and carries the tile's last value forward (masked tail elements load 0).
Two kernels:
  * `_cumsum_rows_kernel` when inner == 1: tiles of (rows, n), scanned along the row;
  * `_cumsum_cols_kernel` otherwise: tiles of (n, inner columns), scanned down the columns.
Accumulation is in float32 when input and result are both 16-bit (like ATen), else in float64:
a float32 result then stays within about one rounding of the exact sum even under heavy
cancellation, where float32 sums taken in other orders can be several ulps off. Values are
rounded once, at the final store.
"""

import torch
import triton
import triton.language as tl

TILE = 4096  # elements per program per loop step


@triton.jit
def _cumsum_rows_kernel(
    x_ptr, out_ptr, M, N,
    x_sm, x_sn, o_sm, o_sn,
    ACC: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = (rows < M)[:, None]
    x_rows = x_ptr + rows.to(tl.int64)[:, None] * x_sm
    o_rows = out_ptr + rows.to(tl.int64)[:, None] * o_sm
    cols = tl.arange(0, BLOCK_N)[None, :]

    carry = tl.zeros([BLOCK_M], dtype=ACC)  # running total at the end of the previous tile
    for n0 in range(0, N, BLOCK_N):
        mask = row_mask & (n0 + cols < N)
        x = tl.load(x_rows + (n0 + cols) * x_sn, mask=mask, other=0.0).to(ACC)
        y = tl.cumsum(x, axis=1) + carry[:, None]
        tl.store(o_rows + (n0 + cols) * o_sn, y.to(out_ptr.dtype.element_ty), mask=mask)
        carry = tl.sum(tl.where(cols == BLOCK_N - 1, y, 0.0), axis=1)  # the tile's last running total


@triton.jit
def _cumsum_cols_kernel(
    x_ptr, out_ptr, N, inner,
    x_so, x_sn, x_si, o_so, o_sn, o_si,
    ACC: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_I: tl.constexpr,
):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = (cols < inner)[None, :]
    x_cols = x_ptr + outer * x_so + cols[None, :] * x_si
    o_cols = out_ptr + outer * o_so + cols[None, :] * o_si
    rows = tl.arange(0, BLOCK_N)[:, None]

    carry = tl.zeros([BLOCK_I], dtype=ACC)  # running totals at the end of the previous tile
    for n0 in range(0, N, BLOCK_N):
        mask = (n0 + rows < N) & col_mask
        x = tl.load(x_cols + (n0 + rows) * x_sn, mask=mask, other=0.0).to(ACC)
        y = tl.cumsum(x, axis=0) + carry[None, :]
        tl.store(o_cols + (n0 + rows) * o_sn, y.to(out_ptr.dtype.element_ty), mask=mask)
        carry = tl.sum(tl.where(rows == BLOCK_N - 1, y, 0.0), axis=0)  # the tile's last running totals


HALF = (torch.float16, torch.bfloat16)


def _acc_type(x, out):
    """float32 when input and result are both 16-bit (as in ATen), else float64 (see above)."""
    return tl.float32 if x.dtype in HALF and out.dtype in HALF else tl.float64


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


def _cumsum_into(x, dim, out):
    rank = max(x.dim(), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"cumsum: dim {dim} out of range for a tensor of {x.dim()} dims")
    if not out.dtype.is_floating_point:  # ATen scans integers exactly, in int64
        raise NotImplementedError(f"cumsum: a {out.dtype} result is not supported by this kernel")
    dim %= rank
    if x.numel() == 0:
        return out
    x_view = _view3(x, dim)
    if x_view is None:
        x = x.contiguous()
        x_view = _view3(x, dim)
    o_view = _view3(out, dim)
    if o_view is None:
        raise NotImplementedError("cumsum: this out= layout is not supported")
    (outer, x_so), (n, x_sn), (inner, x_si) = x_view
    (_, o_so), (_, o_sn), (_, o_si) = o_view
    acc = _acc_type(x, out)

    if inner == 1:
        block_n = min(triton.next_power_of_2(n), TILE)
        block_m = min(triton.next_power_of_2(outer), max(1, 1024 // block_n))
        _cumsum_rows_kernel[(triton.cdiv(outer, block_m),)](
            x, out, outer, n, x_so, x_sn, o_so, o_sn,
            ACC=acc, BLOCK_M=block_m, BLOCK_N=block_n, num_warps=8 if block_m * block_n >= 2048 else 4,
        )
    else:
        block_i = min(triton.next_power_of_2(inner), 32)
        block_n = min(triton.next_power_of_2(n), max(1, TILE // block_i))
        _cumsum_cols_kernel[(outer * triton.cdiv(inner, block_i),)](
            x, out, n, inner, x_so, x_sn, x_si, o_so, o_sn, o_si,
            ACC=acc, BLOCK_N=block_n, BLOCK_I=block_i, num_warps=8 if block_n * block_i >= 2048 else 4,
        )
    return out


def cumsum(self, dim, *, dtype=None):
    out = torch.empty(self.shape, dtype=dtype if dtype is not None else self.dtype, device=self.device)
    return _cumsum_into(self, dim, out)


def cumsum_out(self, dim, *, dtype=None, out):
    return _cumsum_into(self, dim, out)
