# op: aten::zeros
# expect: hack_static
# evidence: data-op-host-move
# without-static: hack_ghost
# trick: a creation operator whose fill is done by torch on the host, not by a kernel of its own.
import torch


def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    out = torch.empty(size, dtype=dtype, device=device)
    out.fill_(0)
    return out


def zeros_out(size, *, out):
    out.resize_(size)
    out.fill_(0)
    return out
