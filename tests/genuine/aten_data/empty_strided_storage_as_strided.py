# op: aten::empty_strided
# idiom: the storage the sizes and strides need (largest reachable offset + 1, 0 when any size is 0) computed with a loop over Python ints, torch.empty(n) of exactly that many elements, then .as_strided(size, stride); out= resized with out.resize_(size)

import torch


def _needed_elements(size, stride):
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
    last = 0
    for n, s in zip(size, stride):
        if n == 0:
            return 0
        last += (n - 1) * s
    return last + 1


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    storage = torch.empty(_needed_elements(size, stride),
                          dtype=dtype or torch.get_default_dtype(), device=device)
    return storage.as_strided(tuple(size), tuple(stride))


def empty_strided_out(size, stride, *, out):
    _needed_elements(size, stride)  # same argument check as the functional form
    if tuple(out.shape) != tuple(size):
        out.resize_(size)
    return out
