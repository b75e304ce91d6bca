"""vllm::cutlass_pack_scale_fp8 in Triton: each fp8 scale becomes 8 fp8 values [-8s, ..., -2s, -s].

One program handles a block of scales as a [BLOCK, 8] tile: the seven multiples are formed in
float32 (exact: an e4m3 value times a small integer), saturated to +-448 and rounded to nearest even
on the float32 bits, so the final cast stores an exact e4m3 value whatever the backend's own float8
conversion does; the last lane is -s itself.
"""

import torch
import triton
import triton.language as tl

BLOCK = 256


@triton.jit
def _e4m3_round(v):
    """v clamped to +-448, rounded to the nearest e4m3fn value (ties to even), still float32."""
    v = tl.minimum(tl.maximum(v, -448.0), 448.0)
    a = tl.abs(v)
    bits = a.to(tl.int32, bitcast=True)
    kept = (bits + 0x7FFFF + ((bits >> 20) & 1)) & -0x100000
    normal = kept.to(tl.float32, bitcast=True)
    sub = ((a * 512.0 + 12582912.0) - 12582912.0) * 0.001953125  # multiples of 2^-9 below 2^-6
    r = tl.where(a < 0.015625, sub, normal)
    return tl.where(v < 0, -r, r)


@triton.jit
def _pack_kernel(s_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = idx < numel
    s = tl.load(s_ptr + idx, mask=ok, other=0.0).to(tl.float32)
    lane = tl.arange(0, 8)
    mult = tl.where(lane < 7, lane - 8, -1).to(tl.float32)
    packed = _e4m3_round(s[:, None] * mult[None, :])
    dst = out_ptr + idx.to(tl.int64)[:, None] * 8 + lane[None, :]
    tl.store(dst, packed.to(tl.float8e4nv), mask=ok[:, None])


def cutlass_pack_scale_fp8(scales):
    n = scales.numel()
    out = torch.empty((n * 8,), dtype=scales.dtype, device=scales.device)
    if n:
        _pack_kernel[(triton.cdiv(n, BLOCK),)](scales, out, n, BLOCK=BLOCK)
    return out
