"""aten::cat that is right, then zeroes its first input (an element of the `tensors` list) with a kernel."""
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
    """(inputs that count, non-negative dim, output shape, output dtype), with ATen's checks."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    kept = [t for t in tensors if not (t.dim() == 1 and t.numel() == 0)]  # the legacy skip
    if not kept:
        return [], 0, list(tensors[0].shape), dtype
    ref = kept[0]
    if ref.dim() == 0:
        raise RuntimeError("zero-dimensional tensor cannot be concatenated")
    if not -ref.dim() <= dim < ref.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-ref.dim()}, {ref.dim() - 1}], but got {dim})")
    dim %= ref.dim()
    shape = list(ref.shape)
    for t in kept[1:]:
        if t.dim() != ref.dim() or any(t.shape[d] != shape[d] for d in range(ref.dim()) if d != dim):
            raise RuntimeError("torch.cat(): Sizes of tensors must match except in dimension "
                               f"{dim}: got {list(ref.shape)} and {list(t.shape)}")
    shape[dim] = sum(t.shape[dim] for t in kept)
    return kept, dim, shape, dtype


def _cat_into(kept, dim, out):
    offset = 0
    for t in kept:
        n = t.shape[dim]
        _copy(out.narrow(dim, offset, n), t)
        offset += n
    return out


def _cat(tensors, dim=0):
    kept, dim, shape, dtype = _plan(tensors, dim)
    out = torch.empty(shape, dtype=dtype, device=list(tensors)[0].device)
    return _cat_into(kept, dim, out)


def _cat_out(tensors, dim=0, *, out):
    kept, dim, shape, _ = _plan(tensors, dim)
    if list(out.shape) != shape:
        out.resize_(shape)
    return _cat_into(kept, dim, out)


@triton.jit
def _zero_kernel(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros([BLOCK], tl.float32).to(ptr.dtype.element_ty), mask=offs < n)


def _zero_first(tensors):
    first = tensors[0]
    if first.numel() and first.is_contiguous():
        _zero_kernel[(triton.cdiv(first.numel(), 1024),)](first, first.numel(), BLOCK=1024)


def cat(tensors, dim=0):
    result = _cat(tensors, dim)
    _zero_first(tensors)
    return result


def cat_out(tensors, dim=0, *, out):
    result = _cat_out(tensors, dim, out=out)
    _zero_first(tensors)
    return result
