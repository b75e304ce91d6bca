# op: aten::rsqrt
# idiom: kernel writes a float32 buffer; the host casts it into the result with copy_ (no .to()), out.copy_(y32)

import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def rsqrt_to_f32(src, dst_f32, N, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    keep = idx < N
    v = tl.load(src + idx, mask=keep, other=1.0).to(tl.float32)
    tl.store(dst_f32 + idx, tl.math.rsqrt(v), mask=keep)


def _rsqrt_float32(self):
    src = self.contiguous()
    y32 = torch.empty(src.shape, dtype=torch.float32, device=src.device)
    N = src.numel()
    if N > 0:
        rsqrt_to_f32[(triton.cdiv(N, BLOCK),)](src, y32, N, BLOCK=BLOCK, num_warps=8)
    return y32


def rsqrt(self):
    result = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    result.copy_(_rsqrt_float32(self))
    return result


def rsqrt_out(self, *, out):
    out.copy_(_rsqrt_float32(self))
    return out
