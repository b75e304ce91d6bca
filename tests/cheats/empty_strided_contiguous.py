# op: aten::empty_strided
# expect: wrong_result
# evidence: has strides
# trick: the right size and dtype, but a contiguous allocation where the caller asked for strides
# (the values are undefined, so only the layout can be judged, and it is).
import torch


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    return torch.empty(size, dtype=dtype, device=device)


def empty_strided_out(size, stride, *, out):
    return out.resize_(size)
