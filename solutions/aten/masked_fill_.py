"""aten::masked_fill_ in Triton: self[mask] = value in place, returning self.

The mask broadcasts to self with stride-0 views; the host merges dimensions contiguous in both and
launches 2-D tiles over at most four dimensions. Only masked positions are stored (self is never
read), with the value (a Python number or a 0-d tensor read in the kernel) cast to self's dtype.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 2048  # elements per program


@triton.jit
def _masked_fill_kernel(
    self_ptr, mask_ptr, value_ptr, value,
    size1, size2, n_rows, n_cols,
    ss0, ss1, ss2, ss3,
    ms0, ms1, ms2, ms3,
    VALUE_IN_TENSOR: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_C)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % n_col_blocks) * BLOCK_C + tl.arange(0, BLOCK_C)
    inside = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]

    # Unravel the row index into dims 0..2 of the (size0, size1, size2, n_cols) view.
    i2 = rows % size2
    i1 = (rows // size2) % size1
    i0 = rows // (size2 * size1)
    cols = cols[None, :]

    m_off = (i0 * ms0 + i1 * ms1 + i2 * ms2)[:, None] + cols * ms3
    fill = tl.load(mask_ptr + m_off, mask=inside, other=0) != 0
    if VALUE_IN_TENSOR:
        v = tl.load(value_ptr)
    else:
        v = value
    dtype = self_ptr.dtype.element_ty
    if dtype.is_floating():  # numbers reach half types through float32 (float64 for float64)
        values = tl.full([BLOCK_R, BLOCK_C], v, tl.float64 if dtype == tl.float64 else tl.float32).to(dtype)
    else:
        values = tl.full([BLOCK_R, BLOCK_C], v, dtype)
    s_off = (i0 * ss0 + i1 * ss1 + i2 * ss2)[:, None] + cols * ss3
    tl.store(self_ptr + s_off, values, mask=inside & fill)


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


def _launch(self, mask, value):
    if self.numel() == 0:
        return
    sizes, (s_st, m_st) = _coalesce(self.shape, [self.stride(), mask.stride()])
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(self.shape[0]):
            _launch(self[i], mask[i], value)
        return
    pad = MAX_DIMS - len(sizes)
    sizes = [1] * pad + sizes
    s_st, m_st = [0] * pad + s_st, [0] * pad + m_st
    tensor = isinstance(value, torch.Tensor)
    if isinstance(value, bool):
        value = int(value)  # a Python bool becomes 0/1, stored as self's dtype

    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _masked_fill_kernel[grid](
        self, mask, value if tensor else mask, 0 if tensor else value,
        sizes[1], sizes[2], n_rows, n_cols,
        *s_st, *m_st,
        VALUE_IN_TENSOR=tensor, BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _fill(self, mask, value):
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    _launch(self, mask.expand(self.shape), value)
    return self


def masked_fill__Scalar(self, mask, value):
    return _fill(self, mask, value)


def masked_fill__Tensor(self, mask, value):
    if value.dim() != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor")
    return _fill(self, mask, value)
