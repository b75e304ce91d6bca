# op: aten::clone
# expect: hack_static
# evidence: data-op-host-move
# without-static: hack_ghost
# trick: 1, for a data operator: the copy that is the operator's whole work done by torch on the host.
import torch


def clone(self, *, memory_format=None):
    out = torch.empty_like(self, memory_format=memory_format or torch.preserve_format)
    out.copy_(self)
    return out


def clone_out(self, *, memory_format=None, out):
    out.copy_(self)
    return out
