"""aten::heaviside~mirrored in Triton: 1 for x < 0, 0 for x > 0, `values` where x == 0.

One strided kernel serves every overload: the host broadcasts operands with stride-0 views, merges
dimensions contiguous in every operand and launches 2-D tiles over at most four dimensions.
Both operands share one dtype (ATen requires it); a NaN x gives 0, as in ATen's kernel.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 2048  # elements per program
_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
       torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8, torch.int16: tl.int16,
       torch.int32: tl.int32, torch.int64: tl.int64, torch.bool: tl.int1}


@triton.jit
def _apply(x, y, alpha, MODE: tl.constexpr):
    """values where x == 0 (+0.0 and -0.0), else 1 where x > 0 and 0 otherwise (NaN included)."""
    step = tl.where(x < 0, 1, 0).to(x.dtype)
    return tl.where(x == 0, y, step)


@triton.jit
def _binary_kernel(
    x_ptr, y_ptr, out_ptr, x_val, y_val, alpha,
    size1, size2, n_rows, n_cols,
    xs0, xs1, xs2, xs3,
    ys0, ys1, ys2, ys3,
    os0, os1, os2, os3,
    X_SCALAR: tl.constexpr, Y_SCALAR: tl.constexpr, COMMON: tl.constexpr, COMPUTE: tl.constexpr,
    MODE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    """One tile of out = _apply(x, y): tensor operands are read in their own dtype, cast to the
    common dtype (as ATen's TensorIterator does), then computed in COMPUTE."""
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

    zero = tl.zeros([BLOCK_R, BLOCK_C], COMPUTE)
    if X_SCALAR:
        x = zero + x_val
    else:
        x_off = (i0 * xs0 + i1 * xs1 + i2 * xs2)[:, None] + cols * xs3
        x = tl.load(x_ptr + x_off, mask=mask).to(COMMON).to(COMPUTE)
    if Y_SCALAR:
        y = zero + y_val
    else:
        y_off = (i0 * ys0 + i1 * ys1 + i2 * ys2)[:, None] + cols * ys3
        y = tl.load(y_ptr + y_off, mask=mask).to(COMMON).to(COMPUTE)
    result = _apply(x, y, alpha, MODE)

    o_off = (i0 * os0 + i1 * os1 + i2 * os2)[:, None] + cols * os3
    tl.store(out_ptr + o_off, result.to(out_ptr.dtype.element_ty), mask=mask)


def _opmath(dtype):
    """The type the arithmetic runs in: float32 for half types (like ATen's opmath), int64 for integers."""
    if dtype in (torch.float16, torch.bfloat16):
        return tl.float32
    if dtype.is_floating_point:
        return _TL[dtype]
    if dtype.is_complex:
        raise NotImplementedError(f"heaviside: dtype {dtype} is not supported by this kernel")
    return tl.int64


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


def _launch(out, x, y, common, compute, alpha=1, mode=0):
    """out = _apply(x, y): tensor operands already broadcast to out's shape, numbers passed by value."""
    if out.numel() == 0:
        return
    xt, yt = isinstance(x, torch.Tensor), isinstance(y, torch.Tensor)
    x, y = (int(v) if isinstance(v, bool) else v for v in (x, y))  # Python bools pass as 0/1
    tensors = [t for t in (x, y) if isinstance(t, torch.Tensor)] + [out]
    sizes, strides = _coalesce(out.shape, [t.stride() for t in tensors])
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(out.shape[0]):
            _launch(out[i], x[i] if xt else x, y[i] if yt else y, common, compute, alpha, mode)
        return
    pad = MAX_DIMS - len(sizes)
    sizes = [1] * pad + sizes
    strides = [[0] * pad + s for s in strides]
    none = [0] * MAX_DIMS
    x_st = strides[0] if xt else none
    y_st = strides[int(xt)] if yt else none

    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _binary_kernel[grid](
        x if xt else out, y if yt else out, out, 0 if xt else x, 0 if yt else y, alpha,
        sizes[1], sizes[2], n_rows, n_cols,
        *x_st, *y_st, *strides[-1],
        X_SCALAR=not xt, Y_SCALAR=not yt, COMMON=_TL[common], COMPUTE=compute,
        MODE=mode, BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _shape(*operands):
    """The broadcast shape of the tensor operands (numbers are 0-d)."""
    return torch.broadcast_shapes(*[t.shape for t in operands if isinstance(t, torch.Tensor)])


def _expand(t, shape):
    return t.expand(shape) if isinstance(t, torch.Tensor) else t


def _heaviside_into(out, self, values):
    if self.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    _launch(out, self.expand(out.shape), values.expand(out.shape), self.dtype, _opmath(self.dtype))
    return out


def heaviside(self, values):
    out = torch.empty(_shape(self, values), dtype=self.dtype, device=self.device)
    return _heaviside_into(out, self, values)


def heaviside_out(self, values, *, out):
    return _heaviside_into(out, self, values)
