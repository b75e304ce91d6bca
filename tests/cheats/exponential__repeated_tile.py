# op: aten::exponential_
# expect: wrong_result
# evidence: not independent
# trick: exact exponential draws for the first 1024 elements, repeated over the rest (a counter
# taken modulo the block): every marginal is right, the elements are not independent.
import torch
import triton
import triton.language as tl


@triton.jit
def _tiled(out_ptr, seed_ptr, n, rate, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    seed = tl.load(seed_ptr).to(tl.int64) * 2147483648 + tl.load(seed_ptr + 1).to(tl.int64)
    r = tl.randint(seed, offs % 1024).to(tl.uint32, bitcast=True)
    u = (r.to(tl.float32) + 0.5) * 2.3283064365386963e-10
    tl.store(out_ptr + offs, (-tl.log(u) / rate).to(out_ptr.dtype.element_ty), mask=mask)


def exponential_(self, lambd=1.0, *, generator=None):
    n = self.numel()
    if n == 0:
        return self
    seed = torch.randint(0, 2**31 - 1, (2,), generator=generator, device=self.device)
    target = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    _tiled[(triton.cdiv(n, 1024),)](target, seed, n, float(lambd), BLOCK=1024)
    self.copy_(target)
    return self
