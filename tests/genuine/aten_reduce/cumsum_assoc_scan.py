# op: aten::cumsum
# idiom: tl.associative_scan with a @triton.jit combine function over (ROWS x BLOCK) tiles, running total carried across blocks; scan dim moved last with movedim().contiguous() and moved back; out= via resize_ + copy_

import torch
import triton
import triton.language as tl

BLOCK_COLS = 1024


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _scan_rows(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, BLOCK)
    rmask = r < n_rows
    row_off = r.to(tl.int64)[:, None] * n_cols
    running = tl.zeros([ROWS, 1], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + c
        m = rmask[:, None] & (cols < n_cols)[None, :]
        v = tl.load(x_ptr + row_off + cols[None, :], mask=m, other=0.0).to(tl.float32)
        s = tl.associative_scan(v, 1, _add) + running
        tl.store(y_ptr + row_off + cols[None, :], s.to(y_ptr.dtype.element_ty), mask=m)
        running += tl.sum(v, axis=1, keep_dims=True)


def _cumsum(self, dim, dtype):
    rank = max(self.dim(), 1)
    if dim < -rank or dim >= rank:
        raise IndexError(f"cumsum(): dim {dim} out of range for a {self.dim()}-d tensor")
    dim = dim % rank
    out_dtype = dtype if dtype is not None else self.dtype
    x = self.reshape(1) if self.dim() == 0 else self
    xm = x.movedim(dim, -1).contiguous()
    n_cols = xm.shape[-1]
    n_rows = xm.numel() // n_cols if n_cols > 0 else 0
    ym = torch.empty(xm.shape, dtype=out_dtype, device=x.device)
    if n_rows > 0:
        block = min(triton.next_power_of_2(n_cols), BLOCK_COLS)
        rows = max(1, min(triton.next_power_of_2(n_rows), 2048 // block))
        _scan_rows[(triton.cdiv(n_rows, rows),)](xm, ym, n_rows, n_cols, ROWS=rows, BLOCK=block,
                                                 num_warps=4 if rows * block <= 1024 else 8)
    return ym.movedim(-1, dim).reshape(self.shape)


def cumsum(self, dim, *, dtype=None):
    return _cumsum(self, dim, dtype).contiguous()


def cumsum_out(self, dim, *, dtype=None, out):
    y = _cumsum(self, dim, dtype)
    out.resize_(y.shape)
    out.copy_(y)
    return out
