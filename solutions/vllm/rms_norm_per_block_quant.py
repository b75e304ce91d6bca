"""vllm::rms_norm_per_block_quant in Triton: RMSNorm, then fp8 quantisation with a scale per group.

One program per token: a first pass over the row sums the squares, a second normalises tiles
of whole groups, takes each group's maximum, stores its scale and the quantised values (and the
residual's rounded sum). As in vLLM the residual is added in float32 and that unrounded sum is
normalised; x * rsqrt(...) is rounded to the working dtype before the weight multiplies it, and
the e4m3 rounding (nearest even, saturating at +-448) is done on the float32 bits.
"""

import torch
import triton
import triton.language as tl

MAX_BLOCK = 2048


@triton.jit
def _e4m3_round(v):
    """v clamped to +-448, rounded to the nearest e4m3fn value (ties to even), still float32."""
    v = tl.minimum(tl.maximum(v, -448.0), 448.0)
    a = tl.abs(v)
    bits = a.to(tl.int32, bitcast=True)
    kept = (bits + 0x7FFFF + ((bits >> 20) & 1)) & -0x100000
    normal = kept.to(tl.float32, bitcast=True)
    sub = ((a * 512.0 + 12582912.0) - 12582912.0) * 0.001953125
    r = tl.where(a < 0.015625, sub, normal)
    return tl.where(v < 0, -r, r)


@triton.jit
def _round_to(v, dtype: tl.constexpr):
    """float32 v rounded to `dtype` (nearest even), as float32; bfloat16 is rounded on the bits."""
    if dtype == tl.bfloat16:
        bits = v.to(tl.int32, bitcast=True)
        v = ((bits + 0x7FFF + ((bits >> 16) & 1)) & -65536).to(tl.float32, bitcast=True)
    return v.to(dtype).to(tl.float32)


@triton.jit
def _row_values(x_row, r_row, cols, ok, HAS_RESIDUAL: tl.constexpr):
    x = tl.load(x_row + cols, mask=ok, other=0.0).to(tl.float32)
    if HAS_RESIDUAL:
        x += tl.load(r_row + cols, mask=ok, other=0.0).to(tl.float32)
    return x


@triton.jit
def _block_quant_kernel(x_ptr, w_ptr, r_ptr, out_ptr, scale_ptr, ub_ptr, hidden, eps, s_row, s_group,
                        HAS_RESIDUAL: tl.constexpr, HAS_UB: tl.constexpr, BLOCK: tl.constexpr,
                        GROUP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * hidden
    r_row = r_ptr + row * hidden
    ss = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, hidden, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = _row_values(x_row, r_row, cols, cols < hidden, HAS_RESIDUAL)
        ss += x * x
    rms = tl.rsqrt(tl.sum(ss, axis=0) / hidden + eps)
    NG: tl.constexpr = BLOCK // GROUP
    for start in range(0, hidden, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        ok = cols < hidden
        x = _row_values(x_row, r_row, cols, ok, HAS_RESIDUAL)
        if HAS_RESIDUAL:
            tl.store(r_row + cols, _round_to(x, r_ptr.dtype.element_ty).to(r_ptr.dtype.element_ty), mask=ok)
        w = tl.load(w_ptr + cols, mask=ok, other=0.0)
        y = _round_to(_round_to(x * rms, w.dtype) * w.to(tl.float32), w.dtype)
        y2 = tl.reshape(y, (NG, GROUP))
        m = tl.max(tl.abs(y2), axis=1)
        if HAS_UB:
            m = tl.minimum(m, tl.load(ub_ptr))
        s = tl.maximum(tl.math.div_rn(m, tl.full([NG], 448.0, tl.float32)), 1.0 / (448.0 * 512.0))
        groups = start // GROUP + tl.arange(0, NG)
        tl.store(scale_ptr + row * s_row + groups * s_group, s, mask=groups * GROUP < hidden)
        q = _e4m3_round(tl.math.div_rn(y2, s[:, None]))
        out_cols = tl.reshape(cols, (NG, GROUP))
        tl.store(out_ptr + row * hidden + out_cols, q.to(out_ptr.dtype.element_ty), mask=out_cols < hidden)


def rms_norm_per_block_quant(input, weight, epsilon, quant_dtype, group_size, scale_ub=None, residual=None,
                             is_scale_transposed=False):
    hidden, group = input.shape[-1], group_size[1]
    rows = input.numel() // hidden
    output = torch.empty(input.shape, dtype=quant_dtype, device=input.device)
    if is_scale_transposed:
        scales = torch.empty((hidden // group, rows), dtype=torch.float32, device=input.device).t()
    else:
        scales = torch.empty((rows, hidden // group), dtype=torch.float32, device=input.device)
    if rows == 0:
        return output, scales
    block = max(group, min(triton.next_power_of_2(hidden), MAX_BLOCK))
    has_res, has_ub = residual is not None, scale_ub is not None
    _block_quant_kernel[(rows,)](input, weight, residual if has_res else input, output, scales,
                                 scale_ub if has_ub else scales, hidden, epsilon,
                                 scales.stride(0), scales.stride(1),
                                 HAS_RESIDUAL=has_res, HAS_UB=has_ub, BLOCK=block, GROUP=group,
                                 num_warps=max(1, min(8, block // 256)))
    return output, scales
