"""aten::fill_ in Triton: write one value into every element of self, in place, and return self.

`fill_.Scalar`: the host converts the scalar as ATen's `Scalar::to<T>` does (float64 travels as its
IEEE bits, since a Python float argument is float32 in Triton). `fill_.Tensor`: the kernel loads
the 0-d value tensor itself and converts it (through float32 for half types, as ATen's copy does).
One store-only kernel writes through self's strides: since a fill may visit elements in any
order, dims are sorted by stride, size-1 and stride-0 (expanded) dims dropped and contiguous
neighbours merged, so a dense self is one flat row.
"""

import math

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 4096  # elements per program


@triton.jit(do_not_specialize=["value"])
def _fill_kernel(
    out_ptr, value,
    size1, size2, n_rows, n_cols,
    s0, s1, s2, s3,
    FROM_PTR: tl.constexpr, HALF: tl.constexpr, F64_BITS: tl.constexpr,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_C)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % n_col_blocks).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    if FROM_PTR:  # a 0-d tensor: read on the device, narrowed to half types through float32
        v = tl.load(value)
        if HALF:
            v = v.to(tl.float32)
    elif F64_BITS:
        v = value.to(tl.int64).to(tl.float64, bitcast=True)
    else:
        v = value
    i2 = rows % size2
    i1 = (rows // size2) % size1
    i0 = rows // (size2 * size1)
    off = (i0 * s0 + i1 * s1 + i2 * s2)[:, None] + cols[None, :] * s3
    vals = tl.broadcast_to(v.to(out_ptr.dtype.element_ty), (BLOCK_R, BLOCK_C))
    tl.store(out_ptr + off, vals, mask=mask)


def _f64_bits(x):
    """The IEEE-754 bits of a Python float, as a signed int64."""
    if x != x:
        bits = 0x7FF8000000000000
    else:
        sign = (1 << 63) if math.copysign(1.0, x) < 0 else 0
        a = abs(x)
        if a == math.inf:
            bits = sign | 0x7FF0000000000000
        elif a < 2.0 ** -1022:  # zero or subnormal: the mantissa is a * 2^1074
            bits = sign | int(math.ldexp(a, 1074))
        else:
            m, e = math.frexp(a)  # a = m * 2^e with 0.5 <= m < 1
            bits = sign | ((e + 1022) << 52) | (int(math.ldexp(m, 53)) - (1 << 52))
    return bits - (1 << 64) if bits >= (1 << 63) else bits


def _scalar_arg(value, dtype):
    """The scalar as ATen converts it for `dtype` (truncated into integers, nonzero into bool),
    in the form the kernel takes: (argument, is float64 bits)."""
    if dtype == torch.float64:
        return _f64_bits(float(value)), True
    if dtype.is_floating_point:
        return float(value), False
    if dtype == torch.bool:
        return int(bool(value)), False
    return int(value), False


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
    if out.numel() == 0:
        return out
    if isinstance(value, torch.Tensor):
        _launch(out, value, False, True)
    else:
        arg, f64 = _scalar_arg(value, out.dtype)
        _launch(out, arg, f64, False)
    return out


def _launch(out, arg, f64, from_ptr):
    sizes, strides = _coalesce(out.shape, out.stride())
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(out.shape[0]):
            _launch(out[i], arg, f64, from_ptr)
        return
    pad = MAX_DIMS - len(sizes)
    sizes, strides = [1] * pad + sizes, [0] * pad + strides
    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _fill_kernel[grid](out, arg, sizes[1], sizes[2], n_rows, n_cols, *strides,
                       FROM_PTR=from_ptr, HALF=out.dtype in (torch.float16, torch.bfloat16), F64_BITS=f64,
                       BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4)


def fill__Scalar(self, value):
    return _fill(self, value)


def fill__Tensor(self, value):
    if value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                           "dimensions.")
    return _fill(self, value)
