"""aten::gather in Triton: out[i..] = self[i.. with index[i..] in place of i_dim], out of index's shape.

Index, self and out are padded to four dims and read through their own strides (self's stride
along `dim` is applied to the loaded index instead of the position), so index may be smaller
than self outside `dim`, and any layout (transposed, strided, expanded) is read in place. Each
program copies a (BLOCK_R, BLOCK_C) tile: rows unravel dims 0..2, columns walk dim 3.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 2048  # elements per program


@triton.jit
def _gather_kernel(
    x_ptr, idx_ptr, out_ptr, D, x_sdim,
    size1, size2, n_rows, n_cols,
    xs0, xs1, xs2, xs3,
    is0, is1, is2, is3,
    os0, os1, os2, os3,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_C)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = ((pid % n_col_blocks) * BLOCK_C + tl.arange(0, BLOCK_C)).to(tl.int64)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]

    i2 = rows % size2
    i1 = (rows // size2) % size1
    i0 = rows // (size2 * size1)
    cols = cols[None, :]

    i_off = (i0 * is0 + i1 * is1 + i2 * is2)[:, None] + cols * is3
    idx = tl.load(idx_ptr + i_off, mask=mask, other=0).to(tl.int64)
    tl.device_assert((idx >= 0) & (idx < D), "gather: index out of range")
    ok = mask & (idx >= 0) & (idx < D)
    # self's stride along `dim` is zero in xs*: the position along dim comes from the index.
    x_off = (i0 * xs0 + i1 * xs1 + i2 * xs2)[:, None] + cols * xs3 + idx * x_sdim
    val = tl.load(x_ptr + x_off, mask=ok)
    o_off = (i0 * os0 + i1 * os1 + i2 * os2)[:, None] + cols * os3
    tl.store(out_ptr + o_off, val, mask=mask)


def _check(self, dim, index):
    """ATen's argument checks; returns the non-negative dim."""
    rank = max(self.dim(), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"gather: dim {dim} out of range for a tensor of {self.dim()} dims")
    dim %= rank
    if index.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"gather(): Expected dtype int32/int64 for index, got {index.dtype}")
    if max(index.dim(), 1) != rank:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(index.dim()):
        if d != dim and index.shape[d] > self.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index.shape)} "
                               f"to be no larger than self {list(self.shape)} apart from dimension {dim}")
    return dim


def _launch(self, dim, index, out):
    """out = gather(self, dim, index), all three of one rank (>= 1), out of index's shape."""
    if out.numel() == 0:
        return
    rank = index.dim()
    if rank > MAX_DIMS:  # rare: split the first (non-gathered) dim on the host
        if dim == 0:
            self, index, out, dim = self.movedim(0, -1), index.movedim(0, -1), out.movedim(0, -1), rank - 1
        for i in range(index.shape[0]):
            _launch(self[i], dim - 1, index[i], out[i])
        return
    pad = MAX_DIMS - rank
    sizes = [1] * pad + list(index.shape)
    xs = [0] * pad + [0 if d == dim else self.stride(d) for d in range(rank)]
    ist = [0] * pad + list(index.stride())
    ost = [0] * pad + list(out.stride())
    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _gather_kernel[grid](
        self, index, out, self.shape[dim], self.stride(dim),
        sizes[1], sizes[2], n_rows, n_cols, *xs, *ist, *ost,
        BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _gather_into(self, dim, index, out):
    dim = _check(self, dim, index)
    if tuple(out.shape) != tuple(index.shape):
        out.resize_(index.shape)
    # 0-d tensors are gathered as one-element vectors.
    x = self.reshape(1) if self.dim() == 0 else self
    idx = index.reshape(1) if index.dim() == 0 else index
    o = out.view(1) if out.dim() == 0 else out
    _launch(x, dim, idx, o)
    return out


def gather(self, dim, index, *, sparse_grad=False):
    out = torch.empty(index.shape, dtype=self.dtype, device=self.device)
    return _gather_into(self, dim, index, out)


def gather_out(self, dim, index, *, sparse_grad=False, out):
    return _gather_into(self, dim, index, out)
