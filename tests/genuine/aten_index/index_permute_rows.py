# op: aten::index
# idiom: Tensor?[] indices through torch.broadcast_tensors + contiguous(), self permuted (indexed dims first) and reshaped to rows on the host (a copy where it cannot view), a 2-D grid of one program per picked row x column blocks with up to four index pointers and a constexpr count, the result returned as a permuted view of a fresh tensor, out= filled by out.copy_(); a bool mask compacted by one program that scans it in order into a buffer of the mask's size, its count read with one .item() and the coordinates narrowed and unravelled in the same kernel

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
SCAN = 1024


@triton.jit
def compact_mask_kernel(mask_ptr, coords_ptr, count_ptr, n, d1, d2, D: tl.constexpr, SCAN: tl.constexpr):
    """One program walks the mask in order: each True's rank is the running count before it;
    its coordinates (up to three dims, row-major) go to row `rank` of coords (n x D)."""
    seen = tl.zeros([], tl.int64)
    for start in range(0, n, SCAN):
        p = start + tl.arange(0, SCAN)
        on = tl.load(mask_ptr + p, mask=p < n, other=0).to(tl.int64)
        rank = seen + tl.cumsum(on, axis=0) - on
        hit = (on > 0) & (p < n)
        pos = p.to(tl.int64)
        if D == 1:
            tl.store(coords_ptr + rank, pos, mask=hit)
        elif D == 2:
            tl.store(coords_ptr + rank * 2, pos // d1, mask=hit)
            tl.store(coords_ptr + rank * 2 + 1, pos % d1, mask=hit)
        else:
            tl.store(coords_ptr + rank * 3, pos // (d1 * d2), mask=hit)
            tl.store(coords_ptr + rank * 3 + 1, (pos // d2) % d1, mask=hit)
            tl.store(coords_ptr + rank * 3 + 2, pos % d2, mask=hit)
        seen += tl.sum(on, axis=0)
    tl.store(count_ptr, seen)


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


def _mask_to_indices(mask: torch.Tensor) -> List[torch.Tensor]:
    """A bool mask over D <= 3 dims as D index tensors of its True positions, in row-major order."""
    d = mask.dim()
    if d > 3:
        raise NotImplementedError("masks over more than three dims")
    flat = mask.contiguous().reshape(-1)
    n = flat.numel()
    coords = torch.empty((max(n, 1), max(d, 1)), dtype=torch.int64, device=mask.device)
    count = torch.zeros(1, dtype=torch.int64, device=mask.device)
    sizes = list(mask.shape) + [1, 1, 1]
    compact_mask_kernel[(1,)](flat, coords, count, n, sizes[1], sizes[2], D=max(d, 1), SCAN=SCAN)
    found = count.item()  # the output's size: the one value read on the host
    return list(coords[:found].unbind(1))


def _expand(self: torch.Tensor, indices: List[Optional[torch.Tensor]]) -> List[Optional[torch.Tensor]]:
    out: List[Optional[torch.Tensor]] = []
    for t in indices:
        if t is not None and t.dtype == torch.bool:
            out.extend(_mask_to_indices(t))
        else:
            out.append(t)
    return out


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
    return _gathered(self, _expand(self, list(indices)))


def index_Tensor_out(self, indices, *, out):
    res = _gathered(self, _expand(self, list(indices)))
    out.resize_(res.shape)
    out.copy_(res)
    return out
