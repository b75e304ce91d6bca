"""vllm::scaled_int8_quant in Triton: static or dynamic per-token scales, with or without azp.

One program per row walks the row in blocks (a first pass for the dynamic min/max). Rounding is
half to even, as vLLM's cvt.rni: adding and subtracting 1.5 * 2^23 rounds a float32 below 2^22 to
an integer in the current (nearest-even) mode, and values are clamped well inside that first.
Divisions are IEEE (div_rn), as in vLLM's CUDA, where the default Triton division is approximate.
"""

import torch
import triton
import triton.language as tl

MAX_BLOCK = 2048


@triton.jit
def _rint(v):
    v = tl.minimum(tl.maximum(v, -1048576.0), 1048576.0)
    return (v + 12582912.0) - 12582912.0


@triton.jit
def _row_min_max(row_ptr, hidden, BLOCK: tl.constexpr):
    lo = tl.full([BLOCK], float("inf"), tl.float32)
    hi = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, hidden, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        ok = cols < hidden
        x = tl.load(row_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        lo = tl.minimum(lo, tl.where(ok, x, float("inf")))
        hi = tl.maximum(hi, tl.where(ok, x, float("-inf")))
    return tl.min(lo, axis=0), tl.max(hi, axis=0)


@triton.jit
def _int8_kernel(x_ptr, out_ptr, scale_ptr, azp_ptr, hidden,
                 DYNAMIC: tl.constexpr, HAS_AZP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * hidden
    out_row = out_ptr + row * hidden
    zp = 0.0
    if DYNAMIC:
        lo, hi = _row_min_max(x_row, hidden, BLOCK)
        if HAS_AZP:
            s = tl.math.div_rn(hi - lo, 255.0)
            zp = _rint(-128.0 - tl.math.div_rn(lo, s))
            tl.store(scale_ptr + row, s)
            tl.store(azp_ptr + row, zp.to(tl.int32))
            mul = tl.math.div_rn(1.0, s)
        else:
            amax = tl.maximum(hi, -lo)
            tl.store(scale_ptr + row, tl.math.div_rn(amax, 127.0))
            mul = tl.where(amax == 0.0, 0.0, tl.math.div_rn(127.0, amax))
    else:
        s = tl.load(scale_ptr)
        mul = tl.math.div_rn(1.0, s)
        if HAS_AZP:
            zp = tl.load(azp_ptr).to(tl.float32)
    for start in range(0, hidden, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        ok = cols < hidden
        x = tl.load(x_row + cols, mask=ok, other=0.0).to(tl.float32)
        if DYNAMIC or HAS_AZP:
            v = x * mul
        else:
            v = tl.math.div_rn(x, s)  # static symmetric: vLLM divides
        q = tl.minimum(tl.maximum(_rint(v) + zp, -128.0), 127.0)
        tl.store(out_row + cols, q.to(tl.int8), mask=ok)


def scaled_int8_quant(input, scale=None, azp=None, symmetric=True):
    hidden = input.shape[-1]
    rows = input.numel() // hidden if hidden else 0
    output = torch.empty(input.shape, dtype=torch.int8, device=input.device)
    dynamic = scale is None
    if dynamic:
        input = input.contiguous()
        scales = torch.empty((rows, 1), dtype=torch.float32, device=input.device)
        zps = None if symmetric else torch.empty((rows, 1), dtype=torch.int32, device=input.device)
    else:
        scales, zps = scale, azp
    if rows:
        block = min(triton.next_power_of_2(hidden), MAX_BLOCK)
        _int8_kernel[(rows,)](input, output, scales, zps if zps is not None else scales, hidden,
                              DYNAMIC=dynamic, HAS_AZP=zps is not None, BLOCK=block,
                              num_warps=max(1, min(8, block // 256)))
    return output, scales, zps
