# op: aten::silu
# expect: hack_static
# evidence: classes are not allowed
# without-static: wrong_result
# trick 9: a tensor subclass that computes when it is read.
import torch


class Lazy(torch.Tensor):
    pass


def silu(self):
    return torch.empty_like(self)


def silu_out(self, *, out):
    return out
