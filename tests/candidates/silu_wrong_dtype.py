"""Right values, wrong output dtype: returns float32 for every input."""
import torch
import triton
import triton.language as tl


@triton.jit
def _silu(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m).to(tl.float32)
    tl.store(o_ptr + i, x / (1 + tl.exp(-x)), mask=m)


def silu(self):
    x = self.contiguous()
    out = torch.empty(self.shape, dtype=torch.float32, device=self.device)
    if x.numel():
        _silu[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


def silu_out(self, *, out):
    return out
