# op: aten::bernoulli
# expect: wrong_result
# evidence: generators seeded differently gave the same outputs
# trick: well-distributed draws from a fixed seed: the generator argument is ignored, so every call
# (and every seed) gives the same "random" output.
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
    return torch.tensor([1234, 5678], dtype=torch.int64, device=device)


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
