# op: aten::poisson
# expect: wrong_result
# evidence: do not follow the law
# trick: the count nearest the rate (the law's mean, made an integer): right support, right mean,
# no randomness.
import torch
import triton
import triton.language as tl


@triton.jit
def _nearest(rate_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    lam = tl.load(rate_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, tl.floor(lam + 0.5).to(out_ptr.dtype.element_ty), mask=mask)


def _poisson(self, out=None):
    result = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = result.numel()
    if n:
        _nearest[(triton.cdiv(n, 1024),)](self.contiguous(), result, n, BLOCK=1024)
    if out is None:
        return result
    return out.copy_(result)


def poisson(self, generator=None):
    return _poisson(self)


def poisson_out(self, generator=None, *, out):
    return _poisson(self, out)
