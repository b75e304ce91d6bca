# op: aten::expand
# idiom: leading size-1 dims added with self.view(padded shape) (always a valid view), then as_strided where every broadcast dim gets stride 0 and -1 keeps the size; errors raised as ATen words them


def expand(self, size, *, implicit=False):
    size = list(size)
    extra = len(size) - self.dim()
    if extra < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(size)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({self.dim()})")
    for i in range(extra):
        if size[i] == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                               f"non-existing dimension {i}")
    base = self.view([1] * extra + list(self.shape))  # leading dims of size 1
    shape, strides = [], []
    for i, (cur, st, want) in enumerate(zip(base.shape, base.stride(), size)):
        if want == -1 or want == cur:
            shape.append(cur)
            strides.append(st)
        elif cur == 1:
            shape.append(want)
            strides.append(0)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({want}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {size}.  Tensor sizes: {list(self.shape)}")
    return base.as_strided(shape, strides, base.storage_offset())
