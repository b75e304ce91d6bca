"""aten::zero_ in Triton: write zeros into self in place and return it.

One store-only kernel writes through self's strides (transposed, strided and expanded views):
since a fill may visit elements in any order, dims are sorted by stride, size-1 and stride-0
(expanded) dims are dropped and contiguous neighbours merged, so a dense self is one flat row.
"""

import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 4096  # elements per program


@triton.jit
def _fill_kernel(
    out_ptr,
    size1, size2, n_rows, n_cols,
    s0, s1, s2, s3,
    VALUE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_C)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % n_col_blocks).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    # Unravel the row index into dims 0..2 of the (size0, size1, size2, n_cols) view.
    i2 = rows % size2
    i1 = (rows // size2) % size1
    i0 = rows // (size2 * size1)
    off = (i0 * s0 + i1 * s1 + i2 * s2)[:, None] + cols[None, :] * s3
    vals = tl.full((BLOCK_R, BLOCK_C), VALUE, tl.float32).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + off, vals, mask=mask)


def _coalesce(shape, stride):
    """A fill may visit elements in any order: sort dims by stride (a transposed tensor becomes
    contiguous), drop size-1 and stride-0 dims (a stride-0 dim writes the same memory again) and
    merge neighbours that are contiguous."""
    sizes, strides = [], []
    for size, st in sorted(zip(shape, stride), key=lambda d: -d[1]):
        if size == 1 or st == 0:
            continue
        if sizes and strides[-1] == st * size:
            sizes[-1] *= size
            strides[-1] = st
        else:
            sizes.append(size)
            strides.append(st)
    return sizes, strides


def _fill(out, value):
    """Write `value` into every element of `out`, through its strides."""
    if out.numel() == 0:
        return out
    sizes, strides = _coalesce(out.shape, out.stride())
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(out.shape[0]):
            _fill(out[i], value)
        return out
    pad = MAX_DIMS - len(sizes)
    sizes, strides = [1] * pad + sizes, [0] * pad + strides
    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _fill_kernel[grid](out, sizes[1], sizes[2], n_rows, n_cols, *strides,
                       VALUE=value, BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4)
    return out


def zero_(self):
    return _fill(self, 0)
