"""aten::expand_as: metadata only, no kernel.

self expanded to other's shape (only other's shape is read), with ATen's expand geometry: kept dims
keep their strides, broadcast size-one dims and new leading dims get stride 0 (a new leading dim of
size one gets the next dim's size * stride), a 0-d tensor gets all strides 0. The view shares self's
storage and offset (as_strided on self).
"""


def _expand_geometry(shape, strides, sizes):
    ndim, dims = len(sizes), len(shape)
    if ndim < dims:
        raise RuntimeError(f"expand: the number of sizes provided ({ndim}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({dims})")
    if dims == 0:
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"expand: invalid size {list(sizes)} for a 0-dim tensor")
        return list(sizes), [0] * ndim
    out_sizes, out_strides = [0] * ndim, [0] * ndim
    for i in range(ndim - 1, -1, -1):
        d = dims - ndim + i
        size = shape[d] if d >= 0 else 1
        stride = strides[d] if d >= 0 else (out_sizes[i + 1] * out_strides[i + 1] if i + 1 < ndim else 1)
        target = sizes[i]
        if target == -1:
            if d < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(f"The expanded size of the tensor ({target}) must match the existing size "
                                   f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                                   f"Tensor sizes: {list(shape)}")
            size, stride = target, 0
        out_sizes[i], out_strides[i] = size, stride
    return out_sizes, out_strides


def expand_as(self, other):
    sizes, strides = _expand_geometry(list(self.shape), list(self.stride()), list(other.shape))
    return self.as_strided(sizes, strides)
