"""aten::stack in Triton: the inputs copied, one launch each, into slices of one output along a new `dim`.

All inputs have one shape; the output has that shape with len(tensors) inserted at `dim` and the
promoted dtype of all inputs. Each input is copied into its `select` slice of the output by a
strided 2-D tile kernel over at most four dims (dims contiguous in both merged first), casting
at the store.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 4096  # elements per program


@triton.jit
def _copy_kernel(
    src_ptr, dst_ptr, size1, size2, n_rows, n_cols,
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
    vals = tl.load(src_ptr + (i0 * ss0 + i1 * ss1 + i2 * ss2)[:, None] + cols * ss3, mask=mask)
    tl.store(dst_ptr + (i0 * ds0 + i1 * ds1 + i2 * ds2)[:, None] + cols * ds3,
             vals.to(dst_ptr.dtype.element_ty), mask=mask)


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


def _copy(dst, src):
    """dst[...] = src[...] (same shape, any strides), converted to dst's dtype."""
    if dst.numel() == 0:
        return
    sizes, (ss, ds) = _coalesce(dst.shape, [src.stride(), dst.stride()])
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(dst.shape[0]):
            _copy(dst[i], src[i])
        return
    pad = MAX_DIMS - len(sizes)
    sizes, ss, ds = [1] * pad + sizes, [0] * pad + ss, [0] * pad + ds
    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _copy_kernel[grid](src, dst, sizes[1], sizes[2], n_rows, n_cols, *ss, *ds,
                       BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4)


def _plan(tensors, dim):
    """(inputs, output shape, output dtype, non-negative dim), with ATen's checks."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = list(tensors[0].shape)
    for i, t in enumerate(tensors[1:], 1):
        if list(t.shape) != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {shape} at entry 0 "
                               f"and {list(t.shape)} at entry {i}")
    rank = len(shape) + 1
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
                         f"but got {dim})")
    dim %= rank
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    return tensors, shape[:dim] + [len(tensors)] + shape[dim:], dtype, dim


def _stack_into(tensors, dim, out):
    for i, t in enumerate(tensors):
        _copy(out.select(dim, i), t)
    return out


def stack(tensors, dim=0):
    tensors, shape, dtype, dim = _plan(tensors, dim)
    out = torch.empty(shape, dtype=dtype, device=tensors[0].device)
    return _stack_into(tensors, dim, out)


def stack_out(tensors, dim=0, *, out):
    tensors, shape, _, dim = _plan(tensors, dim)
    if list(out.shape) != shape:
        out.resize_(shape)
    return _stack_into(tensors, dim, out)
