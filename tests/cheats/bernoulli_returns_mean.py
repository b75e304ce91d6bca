# op: aten::bernoulli
# expect: wrong_result
# evidence: values other than 0 and 1
# trick: a random operator that returns its mean (the probabilities themselves) from a kernel.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(p_ptr, out_ptr, n, p_value, P_IS_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if P_IS_TENSOR:
        p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    else:
        p = tl.zeros([BLOCK], tl.float32) + p_value
    tl.store(out_ptr + offs, p.to(out_ptr.dtype.element_ty), mask=mask)


def _mean(self, p, out=None):
    result = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = result.numel()
    if n:
        if isinstance(p, torch.Tensor):
            _copy[(triton.cdiv(n, 1024),)](p.expand(self.shape).contiguous(), result, n, 0.0, True, BLOCK=1024)
        else:
            _copy[(triton.cdiv(n, 1024),)](result, result, n, float(p), False, BLOCK=1024)
    if out is None:
        return result
    return out.copy_(result)


def bernoulli(self, *, generator=None):
    return _mean(self, self)


def bernoulli_out(self, *, generator=None, out):
    return _mean(self, self, out)


def bernoulli_p(self, p, *, generator=None):
    return _mean(self, p)


def bernoulli_Tensor(self, p, *, generator=None):
    return _mean(self, p)


def bernoulli_Tensor_out(self, p, *, generator=None, out):
    return _mean(self, p, out)


def bernoulli_float_out(self, p=0.5, *, generator=None, out):
    return _mean(self, p, out)
