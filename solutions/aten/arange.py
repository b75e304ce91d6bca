"""aten::arange in Triton: values start + i * step for i < ceil((end - start) / step).

The host computes the length as ATen does (in double from the scalars; exactly, in integers, when
every scalar is an integer) and picks the arithmetic of ATen's CUDA kernel for the dtype: int64 for
integer results (start and step truncated toward zero first), float32 for float32/float16/bfloat16,
float64 with start and step passed as their IEEE bits (a Python float argument is float32 in
Triton). One kernel writes 4096 values per program with int64 indices.
"""

import math

import torch
import triton
import triton.language as tl

BLOCK = 4096  # elements per program
INT, FLOAT32, FLOAT64 = 0, 1, 2  # the arithmetic the values are computed in


@triton.jit(do_not_specialize=["start", "step"])
def _arange_kernel(out_ptr, start, step, n, stride, MODE: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    if MODE == 0:
        v = start.to(tl.int64) + step.to(tl.int64) * i
    elif MODE == 1:
        v = start + step * i.to(tl.float32)
    else:
        x0 = start.to(tl.int64).to(tl.float64, bitcast=True)
        dx = step.to(tl.int64).to(tl.float64, bitcast=True)
        v = x0 + dx * i.to(tl.float64)
    tl.store(out_ptr + i * stride, v.to(out_ptr.dtype.element_ty), mask=mask)


def _f64_bits(x):
    """The IEEE-754 bits of a finite Python float, as a signed int64."""
    sign = (1 << 63) if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    if a < 2.0 ** -1022:  # zero or subnormal: the mantissa is a * 2^1074
        bits = sign | int(math.ldexp(a, 1074))
    else:
        m, e = math.frexp(a)  # a = m * 2^e with 0.5 <= m < 1
        bits = sign | ((e + 1022) << 52) | (int(math.ldexp(m, 53)) - (1 << 52))
    return bits - (1 << 64) if bits >= (1 << 63) else bits


def _length(start, end, step):
    """ATen's `compute_arange_size`: bounds checked in double, the length ceil((end - start) / step)
    in double, or exactly when every scalar is an integer."""
    dstart, dend, dstep = float(start), float(end), float(step)
    if dstep == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(dstart) and math.isfinite(dend)):
        raise RuntimeError(f"unsupported range: {dstart} -> {dend}")
    if not ((dstep > 0 and dend >= dstart) or (dstep < 0 and dend <= dstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if all(isinstance(v, int) for v in (start, end, step)):
        return -((start - end) // step)
    return int(math.ceil((dend - dstart) / dstep))


def _write(out, start, step, n):
    if n == 0:
        return out
    if out.dtype == torch.float64:
        mode, a, b = FLOAT64, _f64_bits(float(start)), _f64_bits(float(step))
    elif out.dtype.is_floating_point:
        mode, a, b = FLOAT32, float(start), float(step)
    else:
        mode, a, b = INT, int(start), int(step)
    stride = out.stride(0) if out.dim() == 1 else 1
    _arange_kernel[(triton.cdiv(n, BLOCK),)](out, a, b, n, stride, MODE=mode, BLOCK=BLOCK, num_warps=4)
    return out


def _default_dtype(start, end, step):
    """int64 for integer scalars, else the default float dtype."""
    if any(isinstance(v, float) for v in (start, end, step)):
        return torch.get_default_dtype()
    return torch.int64


def arange_start_step(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    n = _length(start, end, step)
    dtype = dtype if dtype is not None else _default_dtype(start, end, step)
    return _write(torch.empty((n,), dtype=dtype, device=device), start, step, n)


def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(0, end, 1, dtype=dtype, device=device)


def arange_start(start, end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(start, end, 1, dtype=dtype, device=device)


def arange_start_out(start, end, step=1, *, out):
    n = _length(start, end, step)
    if out.numel() != n:
        out.resize_((n,))
    return _write(out, start, step, n)


def arange_out(end, *, out):
    return arange_start_out(0, end, 1, out=out)
