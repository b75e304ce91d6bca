"""aten::reshape: a view when the strides allow one, else a contiguous copy by a Triton kernel.

The new shape (-1 inferred) is checked against self's strides with ATen's computeStride: when every
chunk of merged dims maps onto a run of old dims with one step, the result is a view with those
strides (as_strided on self). Otherwise, like ATen's clone-then-view, a new contiguous tensor is
allocated and self's elements are copied into it, in logical order, by one strided copy kernel.
"""

import math

import torch
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


def _infer_size(shape, numel):
    """The shape with its one -1 filled in from the element count."""
    shape = list(shape)
    infer = [i for i, n in enumerate(shape) if n == -1]
    if len(infer) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if any(n < -1 for n in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    known = math.prod(n for n in shape if n != -1)
    if infer:
        if known == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[infer[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return shape


def _view_strides(old_shape, old_strides, new_shape):
    """ATen's computeStride: the strides of a view of the new shape, or None when none exists."""
    if not old_shape:
        return [1] * len(new_shape)
    numel = math.prod(old_shape)
    if numel == 0 and list(old_shape) == list(new_shape):
        return list(old_strides)
    new_strides = [0] * len(new_shape)
    if numel == 0:
        for d in range(len(new_shape) - 1, -1, -1):
            new_strides[d] = 1 if d == len(new_shape) - 1 else max(new_shape[d + 1], 1) * new_strides[d + 1]
        return new_strides
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel, view_numel = 1, 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    return new_strides if view_d == -1 else None


def reshape(self, shape):
    new_shape = _infer_size(shape, self.numel())
    strides = _view_strides(list(self.shape), list(self.stride()), new_shape)
    if strides is not None:
        return self.as_strided(new_shape, strides)
    out = torch.empty(new_shape, dtype=self.dtype, device=self.device)
    _copy(self, out.view(self.shape))  # out seen in self's shape: the copy keeps the logical order
    return out
