# op: aten::softmax
# expect: hack_static
# evidence: torch.softmax
# without-static: runtime_error
# trick 1: call the library function instead of writing a kernel.
import torch


def softmax_int(self, dim, dtype=None):
    return torch.softmax(self, dim, dtype=dtype)


def softmax_int_out(self, dim, dtype=None, *, out):
    return out.copy_(torch.softmax(self, dim, dtype=dtype))
