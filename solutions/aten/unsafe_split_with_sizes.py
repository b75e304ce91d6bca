"""aten::unsafe_split_with_sizes: parts of the given sizes along dim, as views of self.

Each part is as_strided on self at the offset of its first slice, so it shares self's storage and
strides; parts may be empty. The out= form copies every part into its buffer with one strided copy
kernel per part.
"""

import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the copy kernel indexes directly; more are split on the host
TILE = 2048  # elements per program


@triton.jit
def _copy_kernel(src, dst, size1, size2, n_rows, n_cols,
                 ss0, ss1, ss2, ss3, ds0, ds1, ds2, ds3,
                 BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """dst[i] = src[i] over a (size0, size1, size2, n_cols) index space, both sides strided; int64 offsets."""
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_C)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = ((pid % n_col_blocks) * BLOCK_C + tl.arange(0, BLOCK_C)).to(tl.int64)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    i2 = rows % size2
    i1 = (rows // size2) % size1
    i0 = rows // (size2 * size1)
    s_off = (i0 * ss0 + i1 * ss1 + i2 * ss2)[:, None] + cols[None, :] * ss3
    d_off = (i0 * ds0 + i1 * ds1 + i2 * ds2)[:, None] + cols[None, :] * ds3
    tl.store(dst + d_off, tl.load(src + s_off, mask=mask), mask=mask)


def _coalesce(shape, strides):
    """Drop size-1 dims and merge neighbours that are contiguous in every tensor."""
    sizes, merged = [], [[] for _ in strides]
    for d, size in enumerate(shape):
        if size == 1:
            continue
        if sizes and all(m[-1] == s[d] * size for s, m in zip(strides, merged)):
            sizes[-1] *= size
            for s, m in zip(strides, merged):
                m[-1] = s[d]
        else:
            sizes.append(size)
            for s, m in zip(strides, merged):
                m.append(s[d])
    return sizes, merged


def _copy(src, dst):
    """Copy src into dst (same shape, any strides, same dtype) with the Triton kernel."""
    if dst.numel() == 0:
        return
    sizes, (s_st, d_st) = _coalesce(dst.shape, [src.stride(), dst.stride()])
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(dst.shape[0]):
            _copy(src[i], dst[i])
        return
    pad = MAX_DIMS - len(sizes)
    sizes, s_st, d_st = [1] * pad + sizes, [0] * pad + s_st, [0] * pad + d_st
    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _copy_kernel[grid](src, dst, sizes[1], sizes[2], n_rows, n_cols, *s_st, *d_st,
                       BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4)


def _parts(self, sizes, dim):
    """Views of self, one per part of dim `dim` (as_strided on self: same storage and strides)."""
    offset, stride = self.storage_offset(), self.stride(dim)
    shape, strides = list(self.shape), list(self.stride())
    parts = []
    for n in sizes:
        shape[dim] = n
        parts.append(self.as_strided(shape, strides, offset))
        offset += n * stride
    return parts


def _dim(self, dim):
    n = self.dim()
    if n == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _copy_parts(parts, out):
    """The out= forms: every part copied into its buffer by the kernel (same shapes, as ATen's copy_)."""
    if len(out) != len(parts):
        raise RuntimeError(f"expected {len(parts)} output tensors, got {len(out)}")
    for part, o in zip(parts, out):
        if list(o.shape) != list(part.shape):
            raise RuntimeError(f"output of shape {list(o.shape)} for a part of shape {list(part.shape)}")
        _copy(part, o)


def _checked(self, split_sizes, dim):
    d = _dim(self, dim)
    if any(n < 0 for n in split_sizes) or sum(split_sizes) != self.size(d):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {self.size(d)} (input tensor's "
                           f"size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return d


def unsafe_split_with_sizes(self, split_sizes, dim=0):
    d = _checked(self, split_sizes, dim)
    return _parts(self, split_sizes, d)


def unsafe_split_with_sizes_out(self, split_sizes, dim=0, *, out):
    d = _checked(self, split_sizes, dim)
    _copy_parts(_parts(self, split_sizes, d), out)
