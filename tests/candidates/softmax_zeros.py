"""The null candidate the loose `1e-4 * reduce_dim` tolerance lets through: all zeros."""
import torch


def softmax_int(self, dim, dtype=None):
    return torch.zeros(self.shape, dtype=dtype or self.dtype, device=self.device)


def softmax_int_out(self, dim, dtype=None, *, out):
    return out.zero_()
