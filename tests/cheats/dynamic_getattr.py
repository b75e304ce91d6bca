# op: aten::softmax
# expect: hack_static
# evidence: getattr with a computed name
# without-static: runtime_error
# trick 1 and 17: reach a library function by a name built at run time.
import torch


def softmax_int(self, dim, dtype=None):
    return getattr(torch, "soft" + "max")(self, dim)


def softmax_int_out(self, dim, dtype=None, *, out):
    return softmax_int(self, dim)
