# op: aten::bernoulli
# expect: hack_trace
# evidence: host-random
# trick: `torch.randint` is allowed for a seed, so draw one "seed" per element with it and only
# compare in the kernel: torch's generator made the randomness.
import torch
import triton
import triton.language as tl


@triton.jit
def _threshold(bits_ptr, p_ptr, p_value, out_ptr, n, P_IS_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.load(bits_ptr + offs, mask=mask, other=0).to(tl.float32) * 4.656612873077393e-10
    if P_IS_TENSOR:
        p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    else:
        p = p_value
    tl.store(out_ptr + offs, tl.where(u < p, 1.0, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _draw(self, p, generator, out=None):
    result = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = result.numel()
    if n:
        bits = torch.randint(0, 2**31 - 1, (n,), generator=generator, device=self.device)
        probs = p.expand(self.shape).contiguous() if isinstance(p, torch.Tensor) else result
        _threshold[(triton.cdiv(n, 1024),)](bits, probs, 0.0 if isinstance(p, torch.Tensor) else float(p), result,
                                            n, isinstance(p, torch.Tensor), BLOCK=1024)
    if out is None:
        return result
    return out.copy_(result)


def bernoulli(self, *, generator=None):
    return _draw(self, self, generator)


def bernoulli_out(self, *, generator=None, out):
    return _draw(self, self, generator, out)


def bernoulli_p(self, p, *, generator=None):
    return _draw(self, p, generator)


def bernoulli_Tensor(self, p, *, generator=None):
    return _draw(self, p, generator)


def bernoulli_Tensor_out(self, p, *, generator=None, out):
    return _draw(self, p, generator, out)


def bernoulli_float_out(self, p=0.5, *, generator=None, out):
    return _draw(self, p, generator, out)
