"""aten::narrow: metadata only, no kernel.

`length` entries of dim `dim` from `start` (a negative start counts from the end) are a view with
that dim's size replaced and the storage offset moved by start * stride (as_strided on self).
narrow.Tensor takes start as a 0-d integer tensor, whose value only a host read can turn into a
view's offset: it is read with item(), as ATen does (the host-code rule allows view operators that).
"""


def narrow(self, dim, start, length):
    n = self.dim()
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    d = dim + n if dim < 0 else dim
    size = self.size(d)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    sizes, strides = list(self.shape), list(self.stride())
    sizes[d] = length
    return self.as_strided(sizes, strides, self.storage_offset() + start * strides[d])


def narrow_Tensor(self, dim, start, length):
    """The start is data: it is read once on the host (where ATen reads it too) to place the view."""
    return narrow(self, dim, start.item(), length)
