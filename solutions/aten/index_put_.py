"""aten::index_put_ in Triton: self[indices] = values (or += with accumulate), in place.

Each position b of the indexed part gets its storage offset in self and the row of values it
takes: for index tensors (broadcast to one shape B, negative counting from the end) a kernel sums
their terms, one launch per tensor, and the row is b itself; for a bool mask a one-program scan
numbers the True positions in order (the row; -1 for False). The put kernel then writes
(BLOCK_B, BLOCK_S) tiles: rows are positions b, columns walk the dims sliced whole, merged where
they are contiguous in both self and values. Accumulation is atomic, in float32 for half types
(into a float32 copy of self, written back), so repeated positions are summed.
"""

import torch
import triton
import triton.language as tl

MAX_SLICED = 4  # sliced dims the put kernel unravels; more are split on the host
TILE = 4096  # elements per program
BLOCK_OFF = 1024
MASKS = (torch.bool, torch.uint8)


@triton.jit
def _offset_kernel(off_ptr, idx_ptr, n, extent, stride, FIRST: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    idx = tl.load(idx_ptr + i, mask=m, other=0).to(tl.int64)
    tl.device_assert((idx >= -extent) & (idx < extent), "index_put_: index out of range")
    term = tl.where(idx < 0, idx + extent, idx) * stride
    if not FIRST:
        term += tl.load(off_ptr + i, mask=m, other=0)
    tl.store(off_ptr + i, term, mask=m)


@triton.jit
def _mask_rows_kernel(mask_ptr, off_ptr, row_ptr, n, stride, BLOCK: tl.constexpr):
    """One program: the k-th True position takes row k of values; False positions row -1."""
    total = tl.zeros((), tl.int64)
    for start in range(0, n, BLOCK):
        p = start + tl.arange(0, BLOCK).to(tl.int64)
        m = p < n
        sel = (tl.load(mask_ptr + p, mask=m, other=0) != 0).to(tl.int64)
        rank = total + tl.cumsum(sel, axis=0) - 1
        tl.store(row_ptr + p, tl.where(sel != 0, rank, -1), mask=m)
        tl.store(off_ptr + p, p * stride, mask=m)
        total += tl.sum(sel, axis=0)


@triton.jit
def _put_kernel(
    x_ptr, off_ptr, row_ptr, v_ptr, x_base, v_base, n_b, n_s, v_sb,
    s1, s2, s3, xs0, xs1, xs2, xs3, vs0, vs1, vs2, vs3,
    ACCUMULATE: tl.constexpr, ROWS: tl.constexpr, BLOCK_B: tl.constexpr, BLOCK_S: tl.constexpr,
):
    pid = tl.program_id(0)
    s_blocks = tl.cdiv(n_s, BLOCK_S)
    b = (pid // s_blocks).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    s = ((pid % s_blocks) * BLOCK_S + tl.arange(0, BLOCK_S)).to(tl.int64)
    x_b = tl.load(off_ptr + b, mask=b < n_b, other=0)
    if ROWS:
        r = tl.load(row_ptr + b, mask=b < n_b, other=-1)
        b_ok = r >= 0
    else:
        r = b
        b_ok = b < n_b
    mask = b_ok[:, None] & (s < n_s)[None, :]
    i3 = s % s3
    i2 = (s // s3) % s2
    i1 = (s // (s3 * s2)) % s1
    i0 = s // (s3 * s2 * s1)
    x_s = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3
    v_s = i0 * vs0 + i1 * vs1 + i2 * vs2 + i3 * vs3
    val = tl.load(v_ptr + v_base + r[:, None] * v_sb + v_s[None, :], mask=mask)
    dst = x_ptr + x_base + x_b[:, None] + x_s[None, :]
    if ACCUMULATE:
        tl.atomic_add(dst, val.to(x_ptr.dtype.element_ty), mask=mask)
    else:
        tl.store(dst, val.to(x_ptr.dtype.element_ty), mask=mask)


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


def _one_stride(sizes, strides):
    """The stride that walks a group of dims in row-major order, or None where none does."""
    merged, _, walk = _coalesce(sizes, strides, strides)
    if len(merged) > 1:
        return None
    return walk[0] if merged else 0


def _put(x, off, rows, vals, n_b, v_sb, sizes, xs, vs, accumulate, x_base=0, v_base=0):
    if len(sizes) > MAX_SLICED:  # rare: too many non-mergeable sliced dims, so split the first one
        for i in range(sizes[0]):
            _put(x, off, rows, vals, n_b, v_sb, sizes[1:], xs[1:], vs[1:], accumulate,
                 x_base + i * xs[0], v_base + i * vs[0])
        return
    pad = MAX_SLICED - len(sizes)
    sizes, xs, vs = [1] * pad + sizes, [0] * pad + xs, [0] * pad + vs
    n_s = sizes[0] * sizes[1] * sizes[2] * sizes[3]
    block_s = min(triton.next_power_of_2(n_s), TILE)
    block_b = min(triton.next_power_of_2(n_b), TILE // block_s)
    grid = (triton.cdiv(n_b, block_b) * triton.cdiv(n_s, block_s),)
    _put_kernel[grid](x, off, off if rows is None else rows, vals, x_base, v_base, n_b, n_s, v_sb,
                      sizes[1], sizes[2], sizes[3], *xs, *vs, ACCUMULATE=accumulate, ROWS=rows is not None,
                      BLOCK_B=block_b, BLOCK_S=block_s, num_warps=4)


def _plan(self, indices, values):
    """ATen's checks; returns (indexed dims, their tensors, mask or None)."""
    indices = list(indices)
    dims = [d for d, t in enumerate(indices) if t is not None]
    tensors = [indices[d] for d in dims]
    if not dims:
        raise RuntimeError("index_put_: at least one index tensor must be given")
    if values.dtype != self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {self.dtype} "
                           f"for the destination and {values.dtype} for the source.")
    masks = [t for t in tensors if t.dtype in MASKS]
    if masks and len(tensors) > 1:
        raise NotImplementedError("index_put_: a bool mask together with other index tensors is not supported")
    for t in tensors:
        if t.dtype not in (torch.int64, torch.int32, *MASKS):
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, got {t.dtype}")
    rank = len(indices) - len(masks) + sum(m.dim() for m in masks)
    if rank > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {rank})")
    if masks and tuple(masks[0].shape) != tuple(self.shape[dims[0]:dims[0] + masks[0].dim()]):
        raise IndexError(f"The shape of the mask {list(masks[0].shape)} does not match the shape of the "
                         f"indexed tensor {list(self.shape)} at index {dims[0]}")
    return dims, tensors, (masks[0] if masks else None)


def _index_put(self, indices, values, accumulate):
    dims, tensors, mask = _plan(self, indices, values)
    half = accumulate and self.dtype in (torch.float16, torch.bfloat16)
    d, k = dims[0], (mask.dim() if mask is not None else 1)
    # A mask's dims are walked by one stride: where self cannot, work on a contiguous copy.
    unmerged = mask is not None and _one_stride(self.shape[d:d + k], self.stride()[d:d + k]) is None
    x = self
    if half or unmerged:
        x = torch.empty(self.shape, dtype=torch.float32 if half else self.dtype, device=self.device)
        x.copy_(self)

    if mask is None:
        bshape = list(torch.broadcast_shapes(*(t.shape for t in tensors)))
        adjacent = dims == list(range(dims[0], dims[-1] + 1))
        sliced = [e for e in range(self.dim()) if e not in dims]
        pre = [self.shape[e] for e in sliced if e < d] if adjacent else []
        post = [self.shape[e] for e in sliced if e > d] if adjacent else [self.shape[e] for e in sliced]
        first = d if adjacent else 0
        n_b, rows = 1, None
        for n in bshape:
            n_b *= n
        off = torch.empty(bshape, dtype=torch.int64, device=self.device)
        if n_b:
            for j, (e, t) in enumerate(zip(dims, tensors)):
                _offset_kernel[(triton.cdiv(n_b, BLOCK_OFF),)](off, t.expand(bshape).contiguous(), n_b,
                                                                self.shape[e], x.stride(e),
                                                                FIRST=j == 0, BLOCK=BLOCK_OFF)
    else:
        # values broadcast to pre + (number of True values,) + post; that count is only needed
        # where values has it, and then it is values' own size.
        sliced = list(range(d)) + list(range(d + k, self.dim()))
        pre, post = list(self.shape[:d]), list(self.shape[d + k:])
        at = values.dim() - len(post) - 1
        bshape = [values.shape[at] if at >= 0 else 1]
        first, n_b = d, mask.numel()
        off = torch.empty(n_b, dtype=torch.int64, device=self.device)
        rows = torch.empty(n_b, dtype=torch.int64, device=self.device)
        if n_b:
            walk = _one_stride(x.shape[d:d + k], x.stride()[d:d + k])
            _mask_rows_kernel[(1,)](mask.contiguous(), off, rows, n_b, walk, BLOCK=BLOCK_OFF)

    vals = values.expand(pre + bshape + post)
    v_sb = _one_stride(bshape, vals.stride()[first:first + len(bshape)])
    if v_sb is None:
        vals = vals.contiguous()
        v_sb = _one_stride(bshape, vals.stride()[first:first + len(bshape)])
    v_dims = [j if j < first else j + len(bshape) for j in range(len(sliced))]
    sizes, xs, vs = _coalesce([self.shape[e] for e in sliced], [x.stride(e) for e in sliced],
                              [vals.stride(j) for j in v_dims])
    if n_b and all(sizes):
        _put(x, off, rows, vals, n_b, v_sb, sizes, xs, vs, bool(accumulate))
    if x is not self:
        self.copy_(x)
    return self


def index_put_(self, indices, values, accumulate=False):
    return _index_put(self, indices, values, accumulate)
