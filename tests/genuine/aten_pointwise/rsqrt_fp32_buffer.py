# op: aten::rsqrt
# idiom: tl.math.rsqrt on host-upcast float32 input into a float32 buffer, cast back on the host (y32.to(dtype) / out.copy_(y32))

"""Reciprocal square root in a float32 buffer.

The input is upcast to float32 on the host (``x.float()``), the kernel writes a float32 result,
and the host casts it back to the caller's dtype. Simple and precise: one rounding at the end.
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 2048
NUM_WARPS = 8


@triton.jit
def _rsqrt_f32_kernel(in_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < numel
    v = tl.load(in_ptr + offs, mask=valid, other=1.0)
    tl.store(out_ptr + offs, tl.math.rsqrt(v), mask=valid)


def _rsqrt_fp32(self: torch.Tensor) -> torch.Tensor:
    x32 = self.contiguous().float()
    y32 = torch.empty(x32.shape, dtype=torch.float32, device=x32.device)
    n = x32.numel()
    if n:
        _rsqrt_f32_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x32, y32, n, BLOCK=BLOCK_SIZE, num_warps=NUM_WARPS)
    return y32


def rsqrt(self: torch.Tensor) -> torch.Tensor:
    return _rsqrt_fp32(self).to(self.dtype)


def rsqrt_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    out.copy_(_rsqrt_fp32(self))
    return out
