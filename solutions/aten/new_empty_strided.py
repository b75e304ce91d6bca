"""aten::new_empty_strided: an uninitialised tensor with the given sizes and strides, with
self's dtype and device unless given.

There is nothing to compute: the host allocates a flat buffer of exactly the storage the sizes and
strides address (1 + sum((size - 1) * stride), none when a size is 0) and views it with
`as_strided`; only self's metadata is read.
"""

import torch


def _storage_size(size, stride):
    if any(s == 0 for s in size):
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(size, stride))


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
    flat = torch.empty((_storage_size(size, stride),), dtype=self.dtype if dtype is None else dtype,
                       device=self.device if device is None else device)
    return flat.as_strided(size, stride)


def new_empty_strided_out(self, size, stride, *, out):
    """ATen's out= form resizes `out` to `size` (contiguous) and ignores `stride`."""
    if list(out.shape) != list(size):
        out.resize_(size)
    return out
