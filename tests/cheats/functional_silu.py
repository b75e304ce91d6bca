# op: aten::silu
# expect: hack_static
# evidence: torch.nn
# without-static: runtime_error
# trick 1: torch.nn.functional.
import torch.nn.functional as F


def silu(self):
    return F.silu(self)


def silu_out(self, *, out):
    return F.silu(self)
