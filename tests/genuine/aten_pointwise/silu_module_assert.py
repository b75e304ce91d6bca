# op: aten::silu
# idiom: module-level sanity assert on a constant (assert abs(LOG2E - 1/ln 2) < 1e-12); otherwise same as silu_resize_copy_helper.py

import math

import torch
import triton
import triton.language as tl

BLOCK = 1024
ROW_BLOCK = 1024
LOG2E = 1.4426950408889634  # 1 / ln(2)
assert abs(LOG2E - 1.0 / math.log(2.0)) < 1e-12


@triton.jit
def _silu_flat(x_ptr, y_ptr, n, BLOCK: tl.constexpr, LOG2E: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    sig = 1.0 / (1.0 + tl.exp2(-x * LOG2E))
    tl.store(y_ptr + offs, (x * sig).to(y_ptr.dtype.element_ty), mask=m)


@triton.jit
def _silu_rows(x_ptr, y_ptr, n_cols, x_row_stride, y_row_stride, BLOCK: tl.constexpr, LOG2E: tl.constexpr):
    # one row per axis-0 program, BLOCK columns per axis-1 program; unit stride along columns
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=m, other=0.0).to(tl.float32)
    sig = 1.0 / (1.0 + tl.exp2(-x * LOG2E))
    tl.store(y_ptr + row * y_row_stride + cols, (x * sig).to(y_ptr.dtype.element_ty), mask=m)


def _launch(x):
    """silu(x) into a fresh contiguous tensor of x's dtype."""
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return y
    if x.dim() == 2 and x.stride(1) == 1:
        # rows with padding (e.g. a column slice): no copy needed
        rows, cols = x.shape
        grid = (rows, triton.cdiv(cols, ROW_BLOCK))
        _silu_rows[grid](x, y, cols, x.stride(0), y.stride(0), BLOCK=ROW_BLOCK, LOG2E=LOG2E)
        return y
    x = x.contiguous()
    _silu_flat[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel(), BLOCK=BLOCK, LOG2E=LOG2E)
    return y


def silu(self):
    return _launch(self)


def silu_out(self, *, out):
    y = _launch(self)
    out.resize_(y.shape)
    out.copy_(y)
    return out
