"""aten::rot90 in Triton: a copy of self read through the rotation's strides.

A rotation is a flip and a transpose of self's (size, stride) lists: a flip starts at the far end
of its dim and walks it with the negated stride, a transpose swaps two entries. The host builds
that read pattern as plain integers (no tensor can hold a negative stride), merges dims that are
contiguous in both the pattern and the output, and one kernel copies (BLOCK_R, BLOCK_C) tiles into
the contiguous output: square tiles where the read runs across rows, so both sides stay coalesced.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 4096  # elements per program
SQUARE = 64  # tile side where the read runs along the other axis (a transpose)


@triton.jit
def _copy_kernel(
    src_ptr, dst_ptr, src_base, dst_base, size1, size2, n_rows, n_cols,
    ss0, ss1, ss2, ss3, ds0, ds1, ds2, ds3,
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
    src = src_ptr + src_base + (i0 * ss0 + i1 * ss1 + i2 * ss2)[:, None] + cols * ss3
    dst = dst_ptr + dst_base + (i0 * ds0 + i1 * ds1 + i2 * ds2)[:, None] + cols * ds3
    tl.store(dst, tl.load(src, mask=mask), mask=mask)


def _check(self, k, dims):
    """ATen's checks; returns (k mod 4, the two non-negative dims)."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if self.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.dim()}")
    for d in dims:
        if not -self.dim() <= d < self.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of [{-self.dim()}, "
                             f"{self.dim() - 1}], but got {d})")
    a, b = dims[0] % self.dim(), dims[1] % self.dim()
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and "
                           f"dim1 = {dims[1]}")
    return k % 4, a, b


def _read_pattern(self, k, a, b):
    """(sizes, strides, base offset) of self read as the rotated tensor."""
    sizes, strides, base = list(self.shape), list(self.stride()), 0
    flips = {1: (b,), 2: (a, b), 3: (a,)}.get(k, ())
    for d in flips:
        base += (sizes[d] - 1) * strides[d]
        strides[d] = -strides[d]
    if k % 2:
        sizes[a], sizes[b] = sizes[b], sizes[a]
        strides[a], strides[b] = strides[b], strides[a]
    return sizes, strides, base


def _coalesce(sizes, src, dst):
    """Drop size-1 dims and merge neighbours that are contiguous in both patterns."""
    out, ss, ds = [], [], []
    for n, s, d in zip(sizes, src, dst):
        if n == 1:
            continue
        if out and ss[-1] == s * n and ds[-1] == d * n:
            out[-1] *= n
            ss[-1], ds[-1] = s, d
        else:
            out.append(n)
            ss.append(s)
            ds.append(d)
    return out, ss, ds


def _copy(self, out, sizes, ss, ds, src_base, dst_base):
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(sizes[0]):
            _copy(self, out, sizes[1:], ss[1:], ds[1:], src_base + i * ss[0], dst_base + i * ds[0])
        return
    pad = MAX_DIMS - len(sizes)
    sizes, ss, ds = [1] * pad + sizes, [0] * pad + ss, [0] * pad + ds
    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    across = abs(ss[3]) != 1 and n_rows > 1
    block_c = min(triton.next_power_of_2(n_cols), SQUARE if across else TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _copy_kernel[grid](self, out, src_base, dst_base, sizes[1], sizes[2], n_rows, n_cols, *ss, *ds,
                       BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4)


def _rot90_into(self, k, dims, out):
    k, a, b = _check(self, k, dims)
    sizes, strides, base = _read_pattern(self, k, a, b)
    if list(out.shape) != sizes:
        out.resize_(sizes)
    if out.numel():
        merged, ss, ds = _coalesce(sizes, strides, list(out.stride()))
        _copy(self, out, merged, ss, ds, base, 0)
    return out


def rot90(self, k=1, dims=(0, 1)):
    k4, a, b = _check(self, k, dims)
    sizes, _, _ = _read_pattern(self, k4, a, b)
    return _rot90_into(self, k, dims, torch.empty(sizes, dtype=self.dtype, device=self.device))


def rot90_out(self, k=1, dims=(0, 1), *, out):
    return _rot90_into(self, k, dims, out)
