"""aten::div_ in Triton: self /= other in place (rounding_mode None, 'trunc' or 'floor'), returning self.

One strided kernel serves every overload: the host broadcasts operands with stride-0 views, merges
dimensions contiguous in every operand and launches 2-D tiles over at most four dimensions. Operands
are cast to the promoted dtype and computed in float32 for half types (ATen's opmath); integer
trunc/floor stay in integers (int64), true division of integers is float32. Floor division of
floats follows ATen's div_floor_floating (fmod-based, so the sign of a zero and +-inf survive).
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
    """MODE 0: true division; 1/2: float trunc/floor; 3/4: integer trunc/floor (never by 0)."""
    if MODE == 0:
        return x / y
    elif MODE == 1:
        q = x / y
        return tl.where(q < 0, tl.ceil(q), tl.floor(q))
    elif MODE == 2:
        # ATen's div_floor_floating: floor of the exact quotient (x - fmod(x, y)) / y, rounded
        # to the nearest integer it is meant to be; IEEE x / y where y is +-0.
        q = x / y
        mod = x % y
        div = (x - mod) / y
        div = tl.where((mod != 0) & ((y < 0) != (mod < 0)), div - 1, div)
        fl = tl.floor(div)
        fl = tl.where(div - fl > 0.5, fl + 1, fl)
        fl = tl.where(div != 0, fl, q * 0.0)  # a zero keeps the sign of x / y
        return tl.where(y == 0, q, fl)
    elif MODE == 3:
        return x // y  # truncates, like C
    else:
        q = x // y
        return tl.where(((x < 0) != (y < 0)) & (x % y != 0), q - 1, q)


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
        raise NotImplementedError(f"div_: dtype {dtype} is not supported by this kernel")
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


def _plan(self, other, rounding_mode):
    """(common dtype of the operands, result dtype, compute type, MODE) for a rounding mode."""
    common = torch.result_type(self, other)
    integral = not (common.is_floating_point or common.is_complex)
    if rounding_mode is None:
        result = torch.get_default_dtype() if integral else common  # true division of integers is float
        return common, result, _opmath(result), 0
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found '{rounding_mode}'")
    mode = (1 if rounding_mode == "trunc" else 2) + (2 if integral else 0)
    return common, common, _opmath(common), mode


def _div_into(out, self, other, rounding_mode):
    common, _, compute, mode = _plan(self, other, rounding_mode)
    _launch(out, _expand(self, out.shape), _expand(other, out.shape), common, compute, 1, mode)
    return out


def _div_inplace(self, other, rounding_mode):
    result = _plan(self, other, rounding_mode)[1]
    if not torch.can_cast(result, self.dtype):
        raise RuntimeError(f"result type {result} can't be cast to the desired output type {self.dtype}")
    return _div_into(self, self, other, rounding_mode)


def div__Tensor(self, other):
    return _div_inplace(self, other, None)


def div__Tensor_mode(self, other, *, rounding_mode):
    return _div_inplace(self, other, rounding_mode)


def div__Scalar(self, other):
    return _div_inplace(self, other, None)


def div__Scalar_mode(self, other, *, rounding_mode):
    return _div_inplace(self, other, rounding_mode)
