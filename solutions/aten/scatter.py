"""aten::scatter in Triton: a copy of self, then out[.. index[i..] at dim ..] = src[i..] (or `value`).

The host copies self into the output (plain forms) or into an accumulator (reduce forms: float32
for half types, so repeated adds do not round at every step), then one kernel walks index in
(BLOCK_R, BLOCK_C) tiles over at most four dims, as gather does, and writes each source element
where its index points: a store, an atomic add, or for "multiply" a compare-and-swap loop on the
accumulator's bits (there is no atomic multiply), which retries the lanes another write raced.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 2048  # elements per program
MODES = {None: 0, "add": 1, "multiply": 2}
BITS = {torch.float32: torch.int32, torch.float64: torch.int64}


@triton.jit
def _scatter_kernel(
    acc_ptr, bits_ptr, idx_ptr, src_ptr, value, D, a_sdim,
    size1, size2, n_rows, n_cols,
    is0, is1, is2, is3,
    ss0, ss1, ss2, ss3,
    as0, as1, as2, as3,
    MODE: tl.constexpr, SCALAR: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
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

    idx = tl.load(idx_ptr + (i0 * is0 + i1 * is1 + i2 * is2)[:, None] + cols * is3, mask=mask, other=0)
    idx = idx.to(tl.int64)
    tl.device_assert((idx >= 0) & (idx < D), "scatter: index out of range")
    ok = mask & (idx >= 0) & (idx < D)
    # acc's stride along `dim` is zero in as*: the position along dim comes from the index.
    dst = tl.where(ok, (i0 * as0 + i1 * as1 + i2 * as2)[:, None] + cols * as3 + idx * a_sdim, 0)
    dtype = acc_ptr.dtype.element_ty
    if SCALAR:  # numbers reach half types through float32 (float64 for float64)
        if dtype.is_floating():
            val = tl.full([BLOCK_R, BLOCK_C], value, tl.float64 if dtype == tl.float64 else tl.float32).to(dtype)
        else:
            val = tl.full([BLOCK_R, BLOCK_C], value, dtype)
    else:
        val = tl.load(src_ptr + (i0 * ss0 + i1 * ss1 + i2 * ss2)[:, None] + cols * ss3, mask=ok).to(dtype)

    if MODE == 0:
        tl.store(acc_ptr + dst, val, mask=ok)
    elif MODE == 1:
        tl.atomic_add(acc_ptr + dst, val, mask=ok)
    else:
        # Masked lanes swap 0 for 0 at offset 0: a no-op whatever the memory holds.
        bits_ty = bits_ptr.dtype.element_ty
        cur = tl.load(acc_ptr + dst, mask=ok, other=0)
        pending = ok
        while tl.sum(pending.to(tl.int32)) > 0:
            seen = cur.to(bits_ty, bitcast=True)
            want = (cur * val).to(bits_ty, bitcast=True)
            prev = tl.atomic_cas(bits_ptr + dst, tl.where(pending, seen, 0), tl.where(pending, want, 0))
            pending = pending & (prev != seen)
            cur = prev.to(dtype, bitcast=True)


def _check(self, dim, index, src, reduce):
    """ATen's argument checks; returns the non-negative dim."""
    rank = max(self.dim(), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"scatter: dim {dim} out of range for a tensor of {self.dim()} dims")
    dim %= rank
    if index.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"scatter(): Expected dtype int32/int64 for index, got {index.dtype}")
    if reduce not in MODES:
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    if max(index.dim(), 1) != rank:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    for d in range(index.dim()):
        if d != dim and index.shape[d] > self.shape[d]:
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(self.shape)} apart from dimension {dim}")
    if src is not None:
        if src.dtype != self.dtype:
            raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype, got {self.dtype} "
                               f"and {src.dtype}")
        if any(index.shape[d] > src.shape[d] for d in range(index.dim())):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than src {list(src.shape)}")
    return dim


def _launch(acc, dim, index, src, value, mode):
    """acc[.. index ..] (op)= src or value, all of one rank (>= 1), walking index's shape."""
    if index.numel() == 0:
        return
    rank = index.dim()
    if rank > MAX_DIMS:  # rare: split the first (non-scattered) dim on the host
        if dim == 0:
            acc, index, dim = acc.movedim(0, -1), index.movedim(0, -1), rank - 1
            src = None if src is None else src.movedim(0, -1)
        for i in range(index.shape[0]):
            _launch(acc[i], dim - 1, index[i], None if src is None else src[i], value, mode)
        return
    pad = MAX_DIMS - rank
    sizes = [1] * pad + list(index.shape)
    ist = [0] * pad + list(index.stride())
    sst = [0] * pad + (list(src.stride()) if src is not None else [0] * rank)
    ast = [0] * pad + [0 if d == dim else acc.stride(d) for d in range(rank)]
    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    bits = acc.view(BITS.get(acc.dtype, acc.dtype))
    _scatter_kernel[grid](
        acc, bits, index, acc if src is None else src, value, acc.shape[dim], acc.stride(dim),
        sizes[1], sizes[2], n_rows, n_cols, *ist, *sst, *ast,
        MODE=mode, SCALAR=src is None, BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _scatter_into(self, dim, index, src, value, reduce, out):
    dim = _check(self, dim, index, src, reduce)
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    mode = MODES[reduce]
    # Reduce forms of half types accumulate in float32 (ATen's CPU kernel rounds at every step).
    wide = mode and self.dtype in (torch.float16, torch.bfloat16)
    acc = torch.empty(self.shape, dtype=torch.float32, device=self.device) if wide else out
    acc.copy_(self)
    _launch(_vector(acc), dim, _vector(index), _vector(src), value, mode)
    if wide:
        out.copy_(acc)
    return out


def _vector(t):
    """0-d tensors are scattered as one-element vectors (a view, so writes land in `t`)."""
    return t.view(1) if t is not None and t.dim() == 0 else t


def _new(self):
    return torch.empty(self.shape, dtype=self.dtype, device=self.device)


def scatter_value(self, dim, index, value):
    return _scatter_into(self, dim, index, None, value, None, _new(self))


def scatter_src(self, dim, index, src):
    return _scatter_into(self, dim, index, src, 0, None, _new(self))


def scatter_reduce(self, dim, index, src, *, reduce):
    return _scatter_into(self, dim, index, src, 0, reduce, _new(self))


def scatter_value_reduce(self, dim, index, value, *, reduce):
    return _scatter_into(self, dim, index, None, value, reduce, _new(self))


def scatter_src_out(self, dim, index, src, *, out):
    return _scatter_into(self, dim, index, src, 0, None, out)


def scatter_value_out(self, dim, index, value, *, out):
    return _scatter_into(self, dim, index, None, value, None, out)


def scatter_reduce_out(self, dim, index, src, *, reduce, out):
    return _scatter_into(self, dim, index, src, 0, reduce, out)


def scatter_value_reduce_out(self, dim, index, value, *, reduce, out):
    return _scatter_into(self, dim, index, None, value, reduce, out)
