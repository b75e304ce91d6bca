"""aten::exponential_ in Triton: self[i] = -log(u[i]) / lambd, u uniform on (0, 1).

u is made from a 32-bit Philox integer as (r + 0.5) / 2**32, which is never 0 or 1 and keeps its
full resolution near 0, where the exponential's long tail comes from. The Philox key is drawn from
the `generator` argument (the device's default generator when it is None); the counter is the
element's logical index. A non-contiguous self is filled through a contiguous buffer.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _exponential_kernel(out_ptr, seed_ptr, n, rate, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    seed = tl.load(seed_ptr).to(tl.int64) * 2147483648 + tl.load(seed_ptr + 1).to(tl.int64)
    r = tl.randint(seed, offs).to(tl.uint32, bitcast=True)
    u = (r.to(tl.float32) + 0.5) * 2.3283064365386963e-10
    x = -tl.log(u) / rate
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty), mask=mask)


def exponential_(self, lambd=1.0, *, generator=None):
    n = self.numel()
    if n == 0:
        return self
    seed = torch.randint(0, 2**31 - 1, (2,), generator=generator, device=self.device)
    target = self if self.is_contiguous() else torch.empty(self.shape, dtype=self.dtype, device=self.device)
    _exponential_kernel[(triton.cdiv(n, BLOCK),)](target, seed, n, float(lambd), BLOCK=BLOCK)
    if target is not self:
        self.copy_(target)
    return self
