"""All-zeros mean, shaped exactly like the real result."""
import torch


def _shape(x, dim, keepdim):
    if dim is None or len(dim) == 0:
        dims = set(range(x.dim()))
    else:
        dims = {d % max(x.dim(), 1) for d in dim}
    if keepdim:
        return [1 if i in dims else s for i, s in enumerate(x.shape)]
    return [s for i, s in enumerate(x.shape) if i not in dims]


def mean(self, *, dtype=None):
    return torch.zeros((), dtype=dtype or self.dtype, device=self.device)


def mean_dim(self, dim, keepdim=False, *, dtype=None):
    return torch.zeros(_shape(self, dim, keepdim), dtype=dtype or self.dtype, device=self.device)


def mean_out(self, dim, keepdim=False, *, dtype=None, out):
    return out.zero_()


def mean_dtype_out(self, *, dtype=None, out):
    return out.zero_()
