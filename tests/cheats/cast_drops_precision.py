# op: aten::silu
# expect: wrong_result
# evidence: numerical error too large
# trick 13 with the new freedom to cast: host casts are allowed, so cast a float32 input down to
# float16, run a float16 kernel, and cast the result back up. Only the tolerance can tell, and it
# does: the error is hundreds of times native float32's.
import torch
import triton
import triton.language as tl


@triton.jit
def _silu_half(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n)
    y = x * tl.sigmoid(x.to(tl.float32)).to(tl.float16)
    tl.store(o_ptr + i, y, mask=i < n)


def silu(self):
    x = self.contiguous().to(torch.float16)
    y = torch.empty_like(x)
    if x.numel():
        _silu_half[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y.to(self.dtype)


def silu_out(self, *, out):
    out.copy_(silu(self))
    return out
