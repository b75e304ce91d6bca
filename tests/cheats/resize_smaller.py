# op: aten::rsqrt
# expect: wrong_result
# evidence: expected
# the new freedom to resize_: shrink the out= buffer to half its size and compute only that half.
# `resize_` is allowed host code; the output's shape check catches it.
import torch
import triton
import triton.language as tl


@triton.jit
def _rsqrt(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n).to(tl.float32)
    tl.store(o_ptr + i, tl.rsqrt(x).to(o_ptr.dtype.element_ty), mask=i < n)


def rsqrt(self):
    x = self.contiguous()
    out = torch.empty_like(x)
    if x.numel():
        _rsqrt[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


def rsqrt_out(self, *, out):
    half = (self.numel() + 1) // 2
    out.resize_(half)
    if half:
        _rsqrt[(triton.cdiv(half, 1024),)](self.contiguous(), out, half, BLOCK=1024)
    return out
