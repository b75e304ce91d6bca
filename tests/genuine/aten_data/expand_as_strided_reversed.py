# op: aten::expand
# idiom: as_strided only: sizes and strides walked right-to-left with reversed()/zip, a broadcast dim gets stride 0, a kept dim keeps self's stride (size-1 dims included), a new leading dim gets size*stride of the dim after it (ATen's inferExpandGeometry)


def expand(self, size, *, implicit=False):
    target = list(size)
    if len(target) < self.dim():
        raise RuntimeError(f"expand: the number of sizes provided ({len(target)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({self.dim()})")
    old = list(zip(self.shape, self.stride()))
    new_sizes, new_strides = [], []
    nxt_size, nxt_stride = 1, 1  # the dim to the right of the one being built (none yet)
    for k, want in enumerate(reversed(target)):
        pos = len(target) - 1 - k
        if k < len(old):
            have, stride = old[len(old) - 1 - k]
        else:
            if want == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {pos}")
            have, stride = 1, nxt_size * nxt_stride
        if want == -1:
            want = have
        if want != have:
            if have != 1:
                raise RuntimeError(f"The expanded size of the tensor ({want}) must match the existing size ({have}) "
                                   f"at non-singleton dimension {pos}.  Target sizes: {target}.  "
                                   f"Tensor sizes: {list(self.shape)}")
            stride = 0
        new_sizes.append(want)
        new_strides.append(stride)
        nxt_size, nxt_stride = want, stride
    if self.dim() == 0:
        new_strides = [0] * len(target)
    return self.as_strided(new_sizes[::-1], new_strides[::-1], self.storage_offset())
