# op: aten::cumsum
# idiom: reduce-then-scan with three kernels (tile totals, exclusive scan of the totals, tl.cumsum of each tile plus its offset), 2-D (BLOCK_N x BLOCK_I) tiles over an (outer, n, inner) view of the contiguous input

import math

import torch
import triton
import triton.language as tl

TILE = 4096


@triton.jit
def _tile_totals(x_ptr, tot_ptr, n, inner, n_blocks,
                 BLOCK_N: tl.constexpr, BLOCK_I: tl.constexpr):
    pid = tl.program_id(0)
    b = tl.program_id(1)
    i_blocks = tl.cdiv(inner, BLOCK_I)
    o = (pid // i_blocks).to(tl.int64)
    cols = (pid % i_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    rows = b * BLOCK_N + tl.arange(0, BLOCK_N)
    m = (rows < n)[:, None] & (cols < inner)[None, :]
    v = tl.load(x_ptr + (o * n + rows[:, None]) * inner + cols[None, :], mask=m, other=0.0)
    t = tl.sum(v.to(tl.float32), axis=0)
    tl.store(tot_ptr + (o * n_blocks + b) * inner + cols, t, mask=cols < inner)


@triton.jit
def _exclusive_scan_totals(tot_ptr, inner, n_blocks,
                           BLOCK_B: tl.constexpr, BLOCK_I: tl.constexpr):
    # in place: tot[o, b, i] <- sum of tot[o, :b, i]
    pid = tl.program_id(0)
    i_blocks = tl.cdiv(inner, BLOCK_I)
    o = (pid // i_blocks).to(tl.int64)
    cols = (pid % i_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    carry = tl.zeros([BLOCK_I], dtype=tl.float32)
    for b0 in range(0, n_blocks, BLOCK_B):
        bs = b0 + tl.arange(0, BLOCK_B)
        m = (bs < n_blocks)[:, None] & (cols < inner)[None, :]
        ptrs = tot_ptr + (o * n_blocks + bs[:, None]) * inner + cols[None, :]
        t = tl.load(ptrs, mask=m, other=0.0)
        incl = tl.cumsum(t, axis=0)
        tl.store(ptrs, incl - t + carry[None, :], mask=m)
        carry += tl.sum(t, axis=0)


@triton.jit
def _tile_scan(x_ptr, off_ptr, y_ptr, n, inner, n_blocks,
               HAS_OFFSET: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_I: tl.constexpr):
    pid = tl.program_id(0)
    b = tl.program_id(1)
    i_blocks = tl.cdiv(inner, BLOCK_I)
    o = (pid // i_blocks).to(tl.int64)
    cols = (pid % i_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    rows = b * BLOCK_N + tl.arange(0, BLOCK_N)
    m = (rows < n)[:, None] & (cols < inner)[None, :]
    offs = (o * n + rows[:, None]) * inner + cols[None, :]
    v = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    s = tl.cumsum(v, axis=0)
    if HAS_OFFSET:
        base = tl.load(off_ptr + (o * n_blocks + b) * inner + cols, mask=cols < inner, other=0.0)
        s = s + base[None, :]
    tl.store(y_ptr + offs, s.to(y_ptr.dtype.element_ty), mask=m)


def _scan_into(x, dim, y):
    """y (contiguous, x's shape) = cumsum of x along dim."""
    if x.numel() == 0:
        return
    xc = x.contiguous()
    outer = math.prod(x.shape[:dim])
    n = x.shape[dim]
    inner = math.prod(x.shape[dim + 1:])
    block_i = min(triton.next_power_of_2(inner), 32)
    block_n = min(triton.next_power_of_2(n), TILE // block_i)
    n_blocks = triton.cdiv(n, block_n)
    grid = (outer * triton.cdiv(inner, block_i), n_blocks)
    warps = 8 if block_n * block_i >= 2048 else 4
    if n_blocks > 1:
        totals = torch.empty((outer, n_blocks, inner), dtype=torch.float32, device=x.device)
        _tile_totals[grid](xc, totals, n, inner, n_blocks, BLOCK_N=block_n, BLOCK_I=block_i, num_warps=warps)
        block_b = min(triton.next_power_of_2(n_blocks), max(1, TILE // block_i))
        _exclusive_scan_totals[(grid[0],)](totals, inner, n_blocks, BLOCK_B=block_b, BLOCK_I=block_i)
        _tile_scan[grid](xc, totals, y, n, inner, n_blocks, HAS_OFFSET=True,
                         BLOCK_N=block_n, BLOCK_I=block_i, num_warps=warps)
    else:
        _tile_scan[grid](xc, xc, y, n, inner, n_blocks, HAS_OFFSET=False,
                         BLOCK_N=block_n, BLOCK_I=block_i, num_warps=warps)


def _wrap_dim(t, dim):
    rank = max(t.dim(), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    return dim % rank


def cumsum(self, dim, *, dtype=None):
    d = _wrap_dim(self, dim)
    y = torch.empty(self.shape, dtype=dtype if dtype is not None else self.dtype, device=self.device)
    if self.dim() == 0:
        _scan_into(self.reshape(1), 0, y.view(1))
    else:
        _scan_into(self, d, y)
    return y


def cumsum_out(self, dim, *, dtype=None, out):
    if out.is_contiguous() and out.shape == self.shape:
        d = _wrap_dim(self, dim)
        if self.dim() == 0:
            _scan_into(self.reshape(1), 0, out.view(1))
        else:
            _scan_into(self, d, out)
        return out
    out.copy_(cumsum(self, dim, dtype=dtype))
    return out
