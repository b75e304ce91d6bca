# op: aten::silu
# expect: hack_static
# evidence: the module `torch` is used as a value
# without-static: runtime_error
# trick 18 for 1: the library's silu through `[torch][0]`, a module no attribute scan sees as torch.
import torch


def silu(self):
    return [torch][0].nn.functional.silu(self)


def silu_out(self, *, out):
    out.resize_(self.shape)
    out.copy_([torch][0].nn.functional.silu(self))
    return out
