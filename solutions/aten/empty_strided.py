"""aten::empty_strided: an uninitialised tensor with the given sizes and strides.

There is nothing to compute: the host allocates a flat buffer of exactly the storage the sizes and
strides address (1 + sum((size - 1) * stride), none when a size is 0) and views it with
`as_strided`. `torch.empty_strided` itself cannot be called here: it is this operator.
"""

import torch


def _storage_size(size, stride):
    if any(s == 0 for s in size):
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(size, stride))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
    dtype = dtype if dtype is not None else torch.get_default_dtype()
    flat = torch.empty((_storage_size(size, stride),), dtype=dtype, device=device)
    return flat.as_strided(size, stride)


def empty_strided_out(size, stride, *, out):
    """ATen's out= form resizes `out` to `size` (contiguous) and ignores `stride`."""
    if list(out.shape) != list(size):
        out.resize_(size)
    return out
