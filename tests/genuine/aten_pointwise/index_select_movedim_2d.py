# op: aten::index_select
# idiom: movedim(dim, 0) + contiguous() on the host, 2-D grid (one index per axis-0 program x column blocks), index (int32/int64) loaded and widened to int64 in the kernel; result moved back with movedim + contiguous() / out.copy_()

import math

import torch
import triton
import triton.language as tl

MAX_BLOCK = 1024


@triton.jit
def index_select_rows_kernel(
    src_ptr, index_ptr, dst_ptr,
    num_src_rows, row_len, index_stride,
    BLOCK: tl.constexpr,
):
    i = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    src_row = tl.load(index_ptr + i * index_stride).to(tl.int64)
    tl.device_assert((src_row >= 0) & (src_row < num_src_rows), "index out of range in index_select")
    mask = cols < row_len
    vals = tl.load(src_ptr + src_row * row_len + cols, mask=mask)
    tl.store(dst_ptr + i.to(tl.int64) * row_len + cols, vals, mask=mask)


def _gather_moved(self, dim, index):
    """index_select with `dim` moved to the front: returns a (len(index), *rest) tensor."""
    x = self.reshape(1) if self.dim() == 0 else self
    dim = dim % x.dim()
    x = x.movedim(dim, 0).contiguous()
    rest = list(x.shape[1:])
    num_src_rows = x.shape[0]
    row_len = math.prod(rest)
    n_index = index.numel()
    y = torch.empty([n_index] + rest, dtype=self.dtype, device=self.device)
    if y.numel() > 0:
        block = min(MAX_BLOCK, triton.next_power_of_2(row_len))
        grid = (n_index, triton.cdiv(row_len, block))
        index_stride = index.stride(0) if index.dim() == 1 else 0
        index_select_rows_kernel[grid](x, index, y, num_src_rows, row_len, index_stride, BLOCK=block)
    return y, dim


def _restore(y, dim, self):
    if self.dim() == 0:
        return y.view(())
    return y.movedim(0, dim)


def index_select(self, dim, index):
    y, d = _gather_moved(self, dim, index)
    return _restore(y, d, self).contiguous()


def index_select_out(self, dim, index, *, out):
    y, d = _gather_moved(self, dim, index)
    res = _restore(y, d, self)
    out.resize_(res.shape)
    out.copy_(res)
    return out
