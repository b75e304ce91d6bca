"""A plain, correct silu: the base the faulty variants are measured against."""
import torch
import triton
import triton.language as tl


@triton.jit
def _silu(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m).to(tl.float32)
    tl.store(o_ptr + i, (x / (1 + tl.exp(-x))).to(o_ptr.dtype.element_ty), mask=m)


def silu_out(self, *, out):
    x = self.contiguous()
    if x.numel():
        _silu[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


def silu(self):
    return silu_out(self, out=torch.empty(self.shape, dtype=self.dtype, device=self.device))
