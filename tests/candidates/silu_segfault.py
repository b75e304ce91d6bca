"""Writes through a wild pointer: an illegal address on a GPU, a segfault in the interpreter."""
import torch
import triton
import triton.language as tl


@triton.jit
def _wild(o_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(o_ptr + i + (1 << 40), tl.zeros([BLOCK], dtype=tl.float32))


def silu(self):
    out = torch.empty(self.shape, dtype=torch.float32, device=self.device)
    _wild[(1,)](out, BLOCK=128)
    return out


def silu_out(self, *, out):
    return silu(self)
