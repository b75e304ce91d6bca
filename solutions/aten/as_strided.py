"""aten::as_strided: metadata only, no kernel.

The result is an alias of self (detach shares storage, offset, sizes and strides) whose geometry is
then set in place with as_strided_: the given sizes and strides, and the storage offset, absolute in
the storage (None keeps self's). as_strided_ checks, as ATen does, that the view fits in the storage.
"""


def as_strided(self, size, stride, storage_offset=None):
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
    alias = self.detach()
    return alias.as_strided_(size, stride, storage_offset)
