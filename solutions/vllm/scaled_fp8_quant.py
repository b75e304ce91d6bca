"""vllm::scaled_fp8_quant in Triton: static, dynamic per-tensor and dynamic per-token fp8 scales.

One program per row walks the row in blocks. The per-tensor scale is an atomic max of the row
maxima over a zeroed scalar, then a second launch quantises. The e4m3 rounding (to nearest, ties
to even, with subnormals) is done on the float32 bits, so the final cast stores an exact e4m3 value
and the result does not depend on how the backend rounds its own float8 conversion. Divisions are
IEEE (div_rn), as in vLLM's CUDA, where the default Triton division is approximate.
"""

import torch
import triton
import triton.language as tl

FP8_MAX = 448.0
MIN_SCALE = 1.0 / (448.0 * 512.0)
MAX_BLOCK = 2048


@triton.jit
def _e4m3_round(v):
    """v clamped to +-448, rounded to the nearest e4m3fn value (ties to even), still float32."""
    v = tl.minimum(tl.maximum(v, -448.0), 448.0)
    a = tl.abs(v)
    bits = a.to(tl.int32, bitcast=True)
    # normal range: keep 3 mantissa bits, round half to even on the 20 dropped ones
    kept = (bits + 0x7FFFF + ((bits >> 20) & 1)) & -0x100000
    normal = kept.to(tl.float32, bitcast=True)
    # subnormal range (below 2^-6): multiples of 2^-9, rounded by the 1.5 * 2^23 trick
    sub = ((a * 512.0 + 12582912.0) - 12582912.0) * 0.001953125
    r = tl.where(a < 0.015625, sub, normal)
    return tl.where(v < 0, -r, r)


@triton.jit
def _row_absmax(row_ptr, hidden, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, hidden, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < hidden, other=0.0)
        acc = tl.maximum(acc, tl.abs(x.to(tl.float32)))
    return tl.max(acc, axis=0)


@triton.jit
def _tensor_absmax_kernel(x_ptr, scale_ptr, row_stride, hidden, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = _row_absmax(x_ptr + row * row_stride, hidden, BLOCK)
    tl.atomic_max(scale_ptr, tl.math.div_rn(m, 448.0))


@triton.jit
def _quant_kernel(x_ptr, out_ptr, scale_ptr, ub_ptr, row_stride, hidden,
                  PER_TOKEN: tl.constexpr, HAS_UB: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * row_stride
    out_row = out_ptr + row * hidden
    if PER_TOKEN:
        m = _row_absmax(x_row, hidden, BLOCK)
        if HAS_UB:
            m = tl.minimum(m, tl.load(ub_ptr))
        s = tl.maximum(tl.math.div_rn(m, 448.0), 1.0 / (448.0 * 512.0))
        tl.store(scale_ptr + row, s)
    else:
        inv = tl.math.div_rn(1.0, tl.load(scale_ptr))
    for start in range(0, hidden, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        ok = cols < hidden
        x = tl.load(x_row + cols, mask=ok, other=0.0).to(tl.float32)
        if PER_TOKEN:
            v = tl.math.div_rn(x, s)
        else:
            v = x * inv
        tl.store(out_row + cols, _e4m3_round(v).to(out_ptr.dtype.element_ty), mask=ok)


def scaled_fp8_quant(input, scale=None, num_token_padding=None, scale_ub=None, use_per_token_if_dynamic=False):
    rows, hidden = input.shape
    output = torch.empty((rows, hidden), dtype=torch.float8_e4m3fn, device=input.device)
    per_token = scale is None and use_per_token_if_dynamic
    per_tensor = scale is None and not use_per_token_if_dynamic
    if per_token:
        scale = torch.empty((rows, 1), dtype=torch.float32, device=input.device)
    elif per_tensor:
        scale = torch.zeros(1, dtype=torch.float32, device=input.device)
    if rows == 0 or hidden == 0:
        return output, scale
    block = min(triton.next_power_of_2(hidden), MAX_BLOCK)
    warps = max(1, min(8, block // 256))
    row_stride = input.stride(0)
    if per_tensor:
        _tensor_absmax_kernel[(rows,)](input, scale, row_stride, hidden, BLOCK=block, num_warps=warps)
    has_ub = per_token and scale_ub is not None
    _quant_kernel[(rows,)](input, output, scale, scale_ub if has_ub else scale, row_stride, hidden,
                           PER_TOKEN=per_token, HAS_UB=has_ub, BLOCK=block, num_warps=warps)
    return output, scale
