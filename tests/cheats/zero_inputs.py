# op: aten::sum
# expect: wrong_result
# evidence: modified its input
# trick 6: zero the input, then the right answer is zero.
import torch
import triton
import triton.language as tl


@triton.jit
def _zero(x_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + i, tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty), mask=i < n)


def _shape(x, dim, keepdim):
    dims = set(range(x.dim())) if not dim else {d % max(x.dim(), 1) for d in dim}
    if keepdim:
        return [1 if i in dims else s for i, s in enumerate(x.shape)]
    return [s for i, s in enumerate(x.shape) if i not in dims]


def _zeroed(self, shape, dtype):
    if self.numel() and self.is_contiguous():
        _zero[(triton.cdiv(self.numel(), 256),)](self, self.numel(), BLOCK=256)
    return torch.zeros(shape, dtype=dtype or self.dtype, device=self.device)


def sum(self, *, dtype=None):
    return _zeroed(self, (), dtype)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    return _zeroed(self, _shape(self, dim, keepdim), dtype)


def sum_IntList_out(self, dim, keepdim=False, *, dtype=None, out):
    _zeroed(self, (), dtype)
    return out.zero_()


def sum_out(self, *, dtype=None, out):
    _zeroed(self, (), dtype)
    return out.zero_()
