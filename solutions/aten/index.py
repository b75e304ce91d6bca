"""aten::index in Triton: advanced indexing, self[indices] with index tensors and None slots.

A bool mask over k dims first becomes k index tensors, the coordinates of its True values (as
in ATen): a kernel counts the True values per block, one program turns the counts into each
block's start, the host reads the total (the output's size depends on it: the one value it
reads), and a last kernel writes each True position's flat index at its rank, unravelled per dim.
The index tensors then broadcast to one shape B; a first kernel turns them, one launch per tensor, into
the storage offset each position of B picks in self (negative indices count from the end). The
dims sliced whole (None, or past the end of the list) are merged where they are contiguous in
both self and the output; the gather kernel then copies (BLOCK_B, BLOCK_S) tiles: rows are
positions of B, columns walk the sliced dims. The output is allocated in ATen's shape, the B dims
first where None separates the index tensors (numpy's rule), else where the indexed dims were.
"""

import torch
import triton
import triton.language as tl

MAX_SLICED = 4  # sliced dims the gather kernel unravels; more are split on the host
TILE = 4096  # elements per program
BLOCK_OFF = 1024
BLOCK_MASK = 1024


@triton.jit
def _count_kernel(mask_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = tl.load(mask_ptr + offs, mask=offs < n, other=0).to(tl.int32)
    tl.store(counts_ptr + tl.program_id(0), tl.sum(m, axis=0))


@triton.jit
def _starts_kernel(counts_ptr, starts_ptr, n_blocks, CHUNK: tl.constexpr):
    """One program: the exclusive prefix sum of the block counts, and the total after them."""
    carry = tl.zeros([], tl.int64)
    for c0 in range(0, n_blocks, CHUNK):
        offs = c0 + tl.arange(0, CHUNK)
        c = tl.load(counts_ptr + offs, mask=offs < n_blocks, other=0).to(tl.int64)
        tl.store(starts_ptr + offs, carry + tl.cumsum(c, axis=0) - c, mask=offs < n_blocks)
        carry += tl.sum(c, axis=0)
    tl.store(starts_ptr + n_blocks, carry)


@triton.jit
def _compact_kernel(mask_ptr, starts_ptr, pos_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = tl.load(mask_ptr + offs, mask=offs < n, other=0).to(tl.int32)
    rank = tl.cumsum(m, axis=0) - m
    start = tl.load(starts_ptr + tl.program_id(0))
    tl.store(pos_ptr + start + rank, offs, mask=(m > 0) & (offs < n))


@triton.jit
def _unravel_kernel(pos_ptr, coord_ptr, n, div, size, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    p = tl.load(pos_ptr + offs, mask=offs < n, other=0)
    tl.store(coord_ptr + offs, (p // div) % size, mask=offs < n)


@triton.jit
def _offset_kernel(off_ptr, idx_ptr, n, extent, stride, FIRST: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    idx = tl.load(idx_ptr + i, mask=m, other=0).to(tl.int64)
    tl.device_assert((idx >= -extent) & (idx < extent), "index: index out of range")
    term = tl.where(idx < 0, idx + extent, idx) * stride
    if not FIRST:
        term += tl.load(off_ptr + i, mask=m, other=0)
    tl.store(off_ptr + i, term, mask=m)


@triton.jit
def _gather_kernel(
    x_ptr, off_ptr, out_ptr, x_base, o_base, n_b, n_s, o_sb,
    s1, s2, s3, xs0, xs1, xs2, xs3, os0, os1, os2, os3,
    BLOCK_B: tl.constexpr, BLOCK_S: tl.constexpr,
):
    pid = tl.program_id(0)
    s_blocks = tl.cdiv(n_s, BLOCK_S)
    b = (pid // s_blocks).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    s = ((pid % s_blocks) * BLOCK_S + tl.arange(0, BLOCK_S)).to(tl.int64)
    mask = (b < n_b)[:, None] & (s < n_s)[None, :]
    x_b = tl.load(off_ptr + b, mask=b < n_b, other=0)
    i3 = s % s3
    i2 = (s // s3) % s2
    i1 = (s // (s3 * s2)) % s1
    i0 = s // (s3 * s2 * s1)
    x_s = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3
    o_s = i0 * os0 + i1 * os1 + i2 * os2 + i3 * os3
    val = tl.load(x_ptr + x_base + x_b[:, None] + x_s[None, :], mask=mask)
    tl.store(out_ptr + o_base + b[:, None] * o_sb + o_s[None, :], val, mask=mask)


def _mask_coordinates(mask):
    """The coordinates of the True values of `mask`, one int64 tensor per dim, in row-major order."""
    flat = mask.contiguous()
    n = flat.numel()
    n_blocks = triton.cdiv(n, BLOCK_MASK)
    if n_blocks == 0:
        return [torch.empty(0, dtype=torch.int64, device=mask.device) for _ in range(mask.dim())]
    counts = torch.empty(n_blocks, dtype=torch.int32, device=mask.device)
    _count_kernel[(n_blocks,)](flat, counts, n, BLOCK=BLOCK_MASK)
    starts = torch.empty(n_blocks + 1, dtype=torch.int64, device=mask.device)
    _starts_kernel[(1,)](counts, starts, n_blocks, CHUNK=1024)
    total = starts[n_blocks].item()  # the output's size: the one value host code reads
    pos = torch.empty(total, dtype=torch.int64, device=mask.device)
    _compact_kernel[(n_blocks,)](flat, starts, pos, n, BLOCK=BLOCK_MASK)
    coords, div = [], 1
    for size in reversed(mask.shape):
        coord = torch.empty(total, dtype=torch.int64, device=mask.device)
        if total:
            _unravel_kernel[(triton.cdiv(total, BLOCK_MASK),)](pos, coord, total, div, size, BLOCK=BLOCK_MASK)
        coords.insert(0, coord)
        div *= size
    return coords


def _expand_masks(self, indices):
    """Bool masks replaced by the index tensors of their True values (ATen's expandTensors)."""
    expanded = []
    for t in indices:
        if t is not None and t.dtype in (torch.bool, torch.uint8):
            d = len(expanded)
            if tuple(t.shape) != tuple(self.shape[d:d + t.dim()]):
                raise IndexError(f"The shape of the mask {list(t.shape)} at index {d} does not match the shape "
                                 f"of the indexed tensor {list(self.shape)}")
            expanded.extend(_mask_coordinates(t))
        else:
            expanded.append(t)
    return expanded


def _plan(self, indices):
    """ATen's checks; returns (indexed dims, their tensors, broadcast shape, adjacent?, out shape)."""
    indices = list(indices)
    if len(indices) > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {len(indices)})")
    dims = [d for d, t in enumerate(indices) if t is not None]
    if not dims:
        raise RuntimeError("index: at least one index tensor must be given")
    tensors = [indices[d] for d in dims]
    for t in tensors:
        if t.dtype not in (torch.int64, torch.int32):
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, not {t.dtype}")
    bshape = list(torch.broadcast_shapes(*(t.shape for t in tensors)))
    adjacent = dims == list(range(dims[0], dims[-1] + 1))
    sliced = [d for d in range(self.dim()) if d not in dims]
    pre = [self.shape[d] for d in sliced if d < dims[0]] if adjacent else []
    post = [self.shape[d] for d in sliced if d > dims[0]] if adjacent else [self.shape[d] for d in sliced]
    return dims, tensors, bshape, adjacent, pre + bshape + post


def _coalesce(sizes, strides_a, strides_b):
    """Drop size-1 dims and merge neighbours that are contiguous in both tensors."""
    out, sa, sb = [], [], []
    for n, a, b in zip(sizes, strides_a, strides_b):
        if n == 1:
            continue
        if out and sa[-1] == a * n and sb[-1] == b * n:
            out[-1] *= n
            sa[-1], sb[-1] = a, b
        else:
            out.append(n)
            sa.append(a)
            sb.append(b)
    return out, sa, sb


def _gather(self, off, out, n_b, o_sb, sizes, xs, os, x_base=0, o_base=0):
    if len(sizes) > MAX_SLICED:  # rare: too many non-mergeable sliced dims, so split the first one
        for i in range(sizes[0]):
            _gather(self, off, out, n_b, o_sb, sizes[1:], xs[1:], os[1:],
                    x_base + i * xs[0], o_base + i * os[0])
        return
    pad = MAX_SLICED - len(sizes)
    sizes, xs, os = [1] * pad + sizes, [0] * pad + xs, [0] * pad + os
    n_s = sizes[0] * sizes[1] * sizes[2] * sizes[3]
    block_s = min(triton.next_power_of_2(n_s), TILE)
    block_b = min(triton.next_power_of_2(n_b), TILE // block_s)
    grid = (triton.cdiv(n_b, block_b) * triton.cdiv(n_s, block_s),)
    _gather_kernel[grid](self, off, out, x_base, o_base, n_b, n_s, o_sb, sizes[1], sizes[2], sizes[3],
                         *xs, *os, BLOCK_B=block_b, BLOCK_S=block_s, num_warps=4)


def _index_into(self, indices, out):
    dims, tensors, bshape, adjacent, shape = _plan(self, indices)
    if list(out.shape) != shape:
        out.resize_(shape)
    if out.numel() == 0:
        return out
    n_b = 1
    for n in bshape:
        n_b *= n
    # Where each position of B points in self: the sum of its indexed dims' terms.
    off = torch.empty(bshape, dtype=torch.int64, device=self.device)
    for k, (d, t) in enumerate(zip(dims, tensors)):
        flat = t.expand(bshape).contiguous()
        _offset_kernel[(triton.cdiv(n_b, BLOCK_OFF),)](off, flat, n_b, self.shape[d], self.stride(d),
                                                        FIRST=k == 0, BLOCK=BLOCK_OFF)
    # The sliced dims of self, and where each sits in the output.
    first = dims[0] if adjacent else 0
    sliced = [d for d in range(self.dim()) if d not in dims]
    out_dims = [j if adjacent and j < first else j + len(bshape) for j in range(len(sliced))]
    o_sb = out.stride(first + len(bshape) - 1) if bshape else 0
    sizes, xs, os = _coalesce([self.shape[d] for d in sliced], [self.stride(d) for d in sliced],
                              [out.stride(d) for d in out_dims])
    _gather(self, off, out, n_b, o_sb, sizes, xs, os)
    return out


def index_Tensor(self, indices):
    indices = _expand_masks(self, indices)
    _, _, _, _, shape = _plan(self, indices)
    return _index_into(self, indices, torch.empty(shape, dtype=self.dtype, device=self.device))


def index_Tensor_out(self, indices, *, out):
    return _index_into(self, _expand_masks(self, indices), out)
