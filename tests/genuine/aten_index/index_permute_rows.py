# op: aten::index
# idiom: Tensor?[] indices through torch.broadcast_tensors + contiguous(), self permuted (indexed dims first) and reshaped to rows on the host (a copy where it cannot view), a 2-D grid of one program per picked row x column blocks with up to four index pointers and a constexpr count, the result returned as a permuted view of a fresh tensor, out= filled by out.copy_()

"""Advanced indexing the numpy way round: move the indexed dims to the front, gather rows.

The host permutes self so the dims the index tensors stand for come first and flattens the
rest into one row of length S; each picked position (one per element of the broadcast index
shape) then copies one such row. The result is computed as (B..., rest...) and, where the
indexed dims were adjacent, handed back permuted to where they stood.
"""

from typing import List, Optional

import torch
import triton
import triton.language as tl

BLOCK = 512


@triton.jit
def gather_rows_kernel(
    src_ptr, dst_ptr, i0_ptr, i1_ptr, i2_ptr, i3_ptr,
    n0, n1, n2, n3, st0, st1, st2, st3,
    row_len, src_row_stride,
    K: tl.constexpr, BLOCK: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    keep = cols < row_len
    base = row * 0
    i = tl.load(i0_ptr + row).to(tl.int64)
    base += tl.where(i < 0, i + n0, i) * st0
    if K > 1:
        i = tl.load(i1_ptr + row).to(tl.int64)
        base += tl.where(i < 0, i + n1, i) * st1
    if K > 2:
        i = tl.load(i2_ptr + row).to(tl.int64)
        base += tl.where(i < 0, i + n2, i) * st2
    if K > 3:
        i = tl.load(i3_ptr + row).to(tl.int64)
        base += tl.where(i < 0, i + n3, i) * st3
    vals = tl.load(src_ptr + base + cols * src_row_stride, mask=keep)
    tl.store(dst_ptr + row * row_len + cols, vals, mask=keep)


def _gathered(self: torch.Tensor, indices: List[Optional[torch.Tensor]]):
    dims = [d for d, t in enumerate(indices) if t is not None]
    if not dims or len(dims) > 4:
        raise NotImplementedError("this kernel takes one to four index tensors")
    rest = [d for d in range(self.dim()) if d not in dims]
    picked = torch.broadcast_tensors(*[indices[d] for d in dims])
    bshape = list(picked[0].shape)
    flat = [p.contiguous() for p in picked]
    rest_shape = [self.shape[d] for d in rest]
    row_len = 1
    for n in rest_shape:
        row_len *= n
    # indexed dims first, the others flattened into one row (a copy only where no view exists)
    src = self.permute(dims + rest).reshape([self.shape[d] for d in dims] + [row_len])
    res = torch.empty(bshape + rest_shape, dtype=self.dtype, device=self.device)
    n_rows = res.numel() // row_len if row_len else 0
    if n_rows and row_len:
        ptrs = flat + [flat[0]] * (4 - len(flat))
        extents = [self.shape[d] for d in dims] + [1] * (4 - len(dims))
        strides = [src.stride(k) for k in range(len(dims))] + [0] * (4 - len(dims))
        grid = (n_rows, triton.cdiv(row_len, BLOCK))
        gather_rows_kernel[grid](src, res, *ptrs, *extents, *strides, row_len, src.stride(-1),
                                 K=len(dims), BLOCK=BLOCK)
    adjacent = dims == list(range(dims[0], dims[-1] + 1))
    if not adjacent:
        return res
    # put the broadcast dims back where the indexed dims stood
    nb, first = len(bshape), dims[0]
    order = list(range(nb, nb + first)) + list(range(nb)) + list(range(nb + first, res.dim()))
    return res.permute(order)


def index_Tensor(self, indices):
    return _gathered(self, list(indices))


def index_Tensor_out(self, indices, *, out):
    res = _gathered(self, list(indices))
    out.resize_(res.shape)
    out.copy_(res)
    return out
