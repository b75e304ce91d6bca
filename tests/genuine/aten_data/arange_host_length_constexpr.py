# op: aten::arange
# idiom: the length computed on the host from the Python scalar arguments (math.ceil in double, exact integer arithmetic for ints); start and step reach the kernel as tl.constexpr and are materialised with tl.full in the compute dtype (float64 stays float64), values start + i * step written in the kernel

import math

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def arange_kernel(out_ptr, n, stride, START: tl.constexpr, STEP: tl.constexpr,
                  COMPUTE: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    start = tl.full([BLOCK], START, COMPUTE)
    step = tl.full([BLOCK], STEP, COMPUTE)
    vals = start + i.to(COMPUTE) * step
    tl.store(out_ptr + i * stride, vals.to(out_ptr.dtype.element_ty), mask=i < n)


def _num_elements(start, end, step):
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if isinstance(start, int) and isinstance(end, int) and isinstance(step, int):
        return (end - start + step - (1 if step > 0 else -1)) // step
    return math.ceil((float(end) - float(start)) / float(step))


def _result_dtype(dtype, *scalars):
    if dtype is not None:
        return dtype
    if any(isinstance(s, float) for s in scalars):
        return torch.get_default_dtype()
    return torch.int64


def _fill_range(out, start, step, n):
    if n == 0:
        return out
    if out.dtype == torch.float64:
        compute, a, b = tl.float64, float(start), float(step)
    elif out.dtype.is_floating_point:
        compute, a, b = tl.float32, float(start), float(step)
    else:
        compute, a, b = tl.int64, int(start), int(step)
    arange_kernel[(triton.cdiv(n, BLOCK),)](out, n, out.stride(0), START=a, STEP=b, COMPUTE=compute, BLOCK=BLOCK)
    return out


def arange_start_step(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    n = _num_elements(start, end, step)
    out = torch.empty(n, dtype=_result_dtype(dtype, start, end, step), device=device)
    return _fill_range(out, start, step, n)


def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(0, end, 1, dtype=dtype, device=device)


def arange_start(start, end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(start, end, 1, dtype=dtype, device=device)


def arange_start_out(start, end, step=1, *, out):
    n = _num_elements(start, end, step)
    if out.dim() != 1 or out.numel() != n:
        out.resize_(n)
    return _fill_range(out, start, step, n)


def arange_out(end, *, out):
    return arange_start_out(0, end, 1, out=out)
