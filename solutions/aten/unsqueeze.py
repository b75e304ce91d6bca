"""aten::unsqueeze: metadata only, no kernel.

A size-one dim is inserted at `dim` (negative counts from the end of the result). Its stride is
ATen's: size * stride of the dim it is inserted before, or 1 at the end. The view shares self's
storage and offset (as_strided on self).
"""


def unsqueeze(self, dim):
    n = self.dim()
    if not -n - 1 <= dim <= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n - 1}, {n}], but got {dim})")
    d = dim + n + 1 if dim < 0 else dim
    sizes, strides = list(self.shape), list(self.stride())
    new_stride = 1 if d >= n else sizes[d] * strides[d]
    sizes.insert(d, 1)
    strides.insert(d, new_stride)
    return self.as_strided(sizes, strides)
