# op: aten::softmax
# expect: hack_static
# evidence: `torch.softmax` is not allowed
# without-static: runtime_error
# trick 1: a constant getattr, to dodge an attribute scan.
import torch


def softmax_int(self, dim, dtype=None):
    return getattr(torch, "softmax")(self, dim)


def softmax_int_out(self, dim, dtype=None, *, out):
    return softmax_int(self, dim)
