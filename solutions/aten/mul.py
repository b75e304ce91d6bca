"""aten::mul in Triton: out = self * other, with broadcasting and type promotion.

One strided kernel serves all four overloads. The host broadcasts the operands with stride-0
views, merges dimensions that are contiguous in every operand (a contiguous same-shape product
becomes one flat row), and launches 2-D tiles over at most four dimensions: the last one is
indexed by columns, the others are unravelled once per row, so no per-element division is done.
Low-precision inputs are multiplied in float32 and rounded once at the store.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 2048  # elements per program


@triton.jit
def _mul_kernel(
    x_ptr, other, out_ptr,
    size1, size2, n_rows, n_cols,
    xs0, xs1, xs2, xs3,
    ys0, ys1, ys2, ys3,
    os0, os1, os2, os3,
    OTHER_IS_SCALAR: tl.constexpr, COMPUTE: tl.constexpr,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_C)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % n_col_blocks) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]

    # Unravel the row index into dims 0..2 of the (size0, size1, size2, n_cols) view.
    i2 = rows % size2
    i1 = (rows // size2) % size1
    i0 = rows // (size2 * size1)
    cols = cols[None, :]

    x_off = (i0 * xs0 + i1 * xs1 + i2 * xs2)[:, None] + cols * xs3
    x = tl.load(x_ptr + x_off, mask=mask).to(COMPUTE)
    if OTHER_IS_SCALAR:
        y = other
    else:
        y_off = (i0 * ys0 + i1 * ys1 + i2 * ys2)[:, None] + cols * ys3
        y = tl.load(other + y_off, mask=mask).to(COMPUTE)
    result = x * y

    o_off = (i0 * os0 + i1 * os1 + i2 * os2)[:, None] + cols * os3
    tl.store(out_ptr + o_off, result.to(out_ptr.dtype.element_ty), mask=mask)


def _compute_type(dtype):
    """The type the arithmetic runs in: float32 for half types (like ATen's opmath), else itself."""
    if dtype in (torch.float16, torch.bfloat16, torch.float32):
        return tl.float32
    if dtype == torch.float64:
        return tl.float64
    raise NotImplementedError(f"mul: dtype {dtype} is not supported by this kernel")


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


def _launch(out, x, other):
    """out = x * other; `x` (and a tensor `other`) already broadcast to out's shape."""
    if out.numel() == 0:
        return
    scalar = not isinstance(other, torch.Tensor)
    tensors = (x, out) if scalar else (x, other, out)
    sizes, strides = _coalesce(out.shape, [t.stride() for t in tensors])
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(out.shape[0]):
            _launch(out[i], x[i], other if scalar else other[i])
        return
    pad = MAX_DIMS - len(sizes)
    sizes = [1] * pad + sizes
    strides = [[0] * pad + s for s in strides]
    x_st, o_st = strides[0], strides[-1]
    y_st = [0] * MAX_DIMS if scalar else strides[1]

    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _mul_kernel[grid](
        x, other, out,
        sizes[1], sizes[2], n_rows, n_cols,
        *x_st, *y_st, *o_st,
        OTHER_IS_SCALAR=scalar, COMPUTE=_compute_type(out.dtype),
        BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _mul_into(out, self, other):
    x = self.expand(out.shape)
    if isinstance(other, torch.Tensor):
        other = other.expand(out.shape)
    _launch(out, x, other)
    return out


def _new_output(self, other):
    other_shape = other.shape if isinstance(other, torch.Tensor) else ()
    shape = torch.broadcast_shapes(self.shape, other_shape)
    return torch.empty(shape, dtype=torch.result_type(self, other), device=self.device)


def mul_Tensor(self, other):
    return _mul_into(_new_output(self, other), self, other)


def mul_Scalar(self, other):
    return _mul_into(_new_output(self, other), self, other)


def mul_out(self, other, *, out):
    return _mul_into(out, self, other)


def mul_Scalar_out(self, other, *, out):
    return _mul_into(out, self, other)
