"""aten::select: metadata only, no kernel.

The slice at `index` of dim `dim` (both may be negative) is a view with that dim removed and the
storage offset moved by index * stride; it shares self's storage (as_strided on self).
"""


def select_int(self, dim, index):
    n = self.dim()
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    d = dim + n if dim < 0 else dim
    size = self.size(d)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(self.shape)} "
                         f"at dimension {dim}")
    i = index + size if index < 0 else index
    sizes, strides = list(self.shape), list(self.stride())
    offset = self.storage_offset() + i * strides[d]
    del sizes[d], strides[d]
    return self.as_strided(sizes, strides, offset)
