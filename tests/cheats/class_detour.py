# op: aten::silu
# expect: hack_static
# evidence: Tensor methods through the class
# without-static: hack_ghost
# trick 1: call a computing Tensor method through the class to dodge a method-name check.
import torch


def silu(self):
    return torch.Tensor.mul(self, torch.Tensor.sigmoid(self))


def silu_out(self, *, out):
    return silu(self)
