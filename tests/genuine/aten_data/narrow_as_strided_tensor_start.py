# op: aten::narrow
# idiom: as_strided with the storage offset moved by start * stride(dim); narrow.Tensor reads its 0-d start with int(start.item()) on the host (the value places the view, as ATen does) and shares the int path

import torch


def narrow(self, dim, start, length):
    if self.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = dim + self.dim() if dim < 0 else dim
    if not 0 <= dim < self.dim():
        raise IndexError(f"Dimension out of range: {dim}")
    size = self.size(dim)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start = start + size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    shape = list(self.shape)
    shape[dim] = length
    return self.as_strided(shape, self.stride(), self.storage_offset() + start * self.stride(dim))


def narrow_Tensor(self, dim, start: torch.Tensor, length):
    if start.dim() != 0:
        raise RuntimeError("start must be a 0-dim integral Tensor.")
    return narrow(self, dim, int(start.item()), length)
