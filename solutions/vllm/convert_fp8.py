"""vllm::convert_fp8 in Triton: a flat elementwise pass over a KV cache, to or from e4m3fn bytes.

The uint8 codes are decoded on their bits in the kernel (exactly, NaN codes included). Quantising divides
by the scale (IEEE div_rn, as vLLM's CUDA) and rounds to nearest even on the float32 bits with
saturation at +-448, so the stored code does not depend on the backend's own float8 conversion
(the sign bit is set apart, so -0 survives);
dequantising widens the code exactly and multiplies by the scale in float32.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096


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
def _quantise_kernel(x_ptr, q_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < n
    x = tl.load(x_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    v = tl.math.div_rn(x, scale)
    # the code of |v|, then the sign bit: a negative value that rounds to zero is -0 (0x80)
    magnitude = tl.abs(_e4m3_round(v)).to(tl.float8e4nv).to(tl.uint8, bitcast=True)
    negative = v.to(tl.int32, bitcast=True) < 0
    tl.store(q_ptr + offs, magnitude | tl.where(negative, 0x80, 0).to(tl.uint8), mask=ok)


@triton.jit
def _dequantise_kernel(q_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < n
    code = tl.load(q_ptr + offs, mask=ok, other=0).to(tl.int32)
    exp = (code >> 3) & 0xF
    mant = code & 0x7
    # normal codes: rebias the exponent into float32's bits; subnormals: mant * 2^-9
    normal = ((exp + 120) << 23 | mant << 20).to(tl.float32, bitcast=True)
    q = tl.where(exp == 0, mant.to(tl.float32) * 0.001953125, normal)
    q = tl.where((code & 0x7F) == 0x7F, float("nan"), q)  # e4m3fn's only NaN codes
    q = tl.where((code & 0x80) != 0, -q, q)
    tl.store(y_ptr + offs, (q * scale).to(y_ptr.dtype.element_ty), mask=ok)


def convert_fp8(output, input, scale=1.0, kv_dtype="fp8"):
    n = input.numel()
    if n == 0:
        return
    grid = (triton.cdiv(n, BLOCK),)
    if input.dtype == torch.uint8:
        _dequantise_kernel[grid](input, output, n, scale, BLOCK=BLOCK, num_warps=8)
    else:
        _quantise_kernel[grid](input, output, n, scale, BLOCK=BLOCK, num_warps=8)
