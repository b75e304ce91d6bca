# op: aten::index_select
# idiom: strided 3-D gather (self read through its own strides, index dim chosen by a constexpr), 2-D grid over output rows x last-dim blocks, @torch.no_grad(), type hints, __main__ self-test

"""index_select without host copies.

Tensors of rank <= 3 are padded to rank 3 and read through their strides, so transposed,
sliced and expanded inputs are gathered in place. The program grid is 2-D: axis 0 covers blocks
of output rows (dims 0 and 1 of the padded output), axis 1 blocks of its last dim. The indexed
dim is a constexpr: for dims 0/1 one index is loaded per row, for dim 2 one per column.
"""

import math
from typing import List, Tuple

import torch
import triton
import triton.language as tl

BLOCK_R = 16
BLOCK_C = 128


@triton.jit
def _gather3d(
    x_ptr, idx_ptr, y_ptr,
    n_rows, size1, n_cols, src_len, idx_stride,
    xs0, xs1, xs2, ys0, ys1, ys2,
    DIM: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    rmask = rows < n_rows
    cmask = cols < n_cols
    i0 = rows // size1
    i1 = rows % size1
    if DIM == 0:
        j = tl.load(idx_ptr + i0 * idx_stride, mask=rmask, other=0).to(tl.int64)
        ok = rmask & (j >= 0) & (j < src_len)
        src = (j * xs0 + i1 * xs1)[:, None] + (cols * xs2)[None, :]
        mask = ok[:, None] & cmask[None, :]
    elif DIM == 1:
        j = tl.load(idx_ptr + i1 * idx_stride, mask=rmask, other=0).to(tl.int64)
        ok = rmask & (j >= 0) & (j < src_len)
        src = (i0 * xs0 + j * xs1)[:, None] + (cols * xs2)[None, :]
        mask = ok[:, None] & cmask[None, :]
    else:
        j = tl.load(idx_ptr + cols * idx_stride, mask=cmask, other=0).to(tl.int64)
        ok = cmask & (j >= 0) & (j < src_len)
        src = (i0 * xs0 + i1 * xs1)[:, None] + (j * xs2)[None, :]
        mask = rmask[:, None] & ok[None, :]
    vals = tl.load(x_ptr + src, mask=mask)
    dst = (i0 * ys0 + i1 * ys1)[:, None] + (cols * ys2)[None, :]
    tl.store(y_ptr + dst, vals, mask=rmask[:, None] & cmask[None, :])


def _rank3(t: torch.Tensor, dim: int) -> Tuple[torch.Tensor, int]:
    """A view (or, past rank 3, a contiguous reshape) of t with rank 3, and dim in it."""
    if t.dim() == 0:
        return t.reshape(1, 1, 1), 2
    if t.dim() <= 3:
        pad = 3 - t.dim()
        return t.reshape([1] * pad + list(t.shape)), dim + pad
    shape = list(t.shape)
    outer = math.prod(shape[:dim])
    inner = math.prod(shape[dim + 1:])
    return t.contiguous().view(outer, shape[dim], inner), 1


def _out_shape(self: torch.Tensor, dim: int, index: torch.Tensor) -> List[int]:
    shape = list(self.shape)
    if shape:
        shape[dim] = index.numel()
    return shape


@torch.no_grad()
def _index_select_into(self: torch.Tensor, dim: int, index: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    if out.numel() == 0:
        return out
    x3, d = _rank3(self, dim)
    target = out if out.dim() <= 3 else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    y3, _ = _rank3(target, dim)
    n_rows = y3.shape[0] * y3.shape[1]
    n_cols = y3.shape[2]
    grid = (triton.cdiv(n_rows, BLOCK_R), triton.cdiv(n_cols, BLOCK_C))
    _gather3d[grid](
        x3, index, y3,
        n_rows, y3.shape[1], n_cols, x3.shape[d], index.stride(0) if index.dim() else 0,
        x3.stride(0), x3.stride(1), x3.stride(2), y3.stride(0), y3.stride(1), y3.stride(2),
        DIM=d, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4,
    )
    if target is not out:
        out.copy_(target)
    return out


def index_select(self: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    dim = dim % max(self.dim(), 1)
    out = torch.empty(_out_shape(self, dim, index), dtype=self.dtype, device=self.device)
    return _index_select_into(self, dim, index, out)


def index_select_out(self: torch.Tensor, dim: int, index: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    dim = dim % max(self.dim(), 1)
    return _index_select_into(self, dim, index, out)


if __name__ == "__main__":
    torch.manual_seed(0)
    for shape, dim in (((50, 33), 0), ((50, 33), 1), ((4, 6, 5), 1), ((2, 3, 4, 5), 2), ((9,), 0)):
        for dtype in (torch.float32, torch.float16):
            x = torch.randn(shape, dtype=dtype)
            for idx_dtype in (torch.int64, torch.int32):
                idx = torch.randint(0, shape[dim], (17,), dtype=idx_dtype)
                torch.testing.assert_close(index_select(x, dim, idx), torch.index_select(x, dim, idx))
                xt = x.transpose(0, -1)
                d2 = {0: x.dim() - 1, x.dim() - 1: 0}.get(dim, dim)
                torch.testing.assert_close(index_select(xt, d2, idx), torch.index_select(xt, d2, idx))
    print("ok")
