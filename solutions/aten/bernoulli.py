"""aten::bernoulli in Triton: out[i] = 1 if u[i] < p[i] else 0, u uniform on [0, 1).

The uniforms come from Triton's Philox generator (`tl.rand`), keyed by two 31-bit words drawn
from the `generator` argument (the device's default generator when it is None), so the same
generator state gives the same output and each call advances it; the counter is the element's
logical index, so the draws do not depend on the layout. The probabilities (`self`, the float
`p`, or the tensor `p` broadcast to self) are read in float32, where 0 and 1 stay exact: a
probability of 0 never draws a one (u >= 0) and a probability of 1 always does (u < 1).
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _bernoulli_kernel(p_ptr, p_value, out_ptr, seed_ptr, n, P_IS_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    seed = tl.load(seed_ptr).to(tl.int64) * 2147483648 + tl.load(seed_ptr + 1).to(tl.int64)
    if P_IS_TENSOR:
        p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    else:
        p = p_value
    u = tl.rand(seed, offs)
    tl.store(out_ptr + offs, tl.where(u < p, 1.0, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _seed(generator, device):
    """The kernel's Philox key, drawn from the generator so that it advances like ATen's."""
    return torch.randint(0, 2**31 - 1, (2,), generator=generator, device=device)


def _draw(shape, like, p, generator, out=None):
    """Bernoulli draws of `shape` into `out` (or a new tensor of `like`'s dtype)."""
    result = torch.empty(shape, dtype=(out if out is not None else like).dtype, device=like.device)
    n = result.numel()
    if n:
        seed = _seed(generator, like.device)
        if isinstance(p, torch.Tensor):
            probs = p.expand(shape).contiguous()
            _bernoulli_kernel[(triton.cdiv(n, BLOCK),)](probs, 0.0, result, seed, n, P_IS_TENSOR=True,
                                                        BLOCK=BLOCK)
        else:
            _bernoulli_kernel[(triton.cdiv(n, BLOCK),)](result, float(p), result, seed, n, P_IS_TENSOR=False,
                                                        BLOCK=BLOCK)
    if out is None:
        return result
    out.resize_(shape)
    out.copy_(result)
    return out


def bernoulli(self, *, generator=None):
    return _draw(self.shape, self, self, generator)


def bernoulli_out(self, *, generator=None, out):
    return _draw(self.shape, self, self, generator, out)


def bernoulli_p(self, p, *, generator=None):
    return _draw(self.shape, self, p, generator)


def bernoulli_Tensor(self, p, *, generator=None):
    return _draw(self.shape, self, p, generator)


def bernoulli_Tensor_out(self, p, *, generator=None, out):
    return _draw(self.shape, self, p, generator, out)


def bernoulli_float_out(self, p=0.5, *, generator=None, out):
    return _draw(self.shape, self, p, generator, out)
