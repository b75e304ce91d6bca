# op: aten::silu
# expect: hack_static
# evidence: torch.ops
# without-static: hack_ghost
# trick 1: reach the native kernel through torch.ops.
import torch


def silu(self):
    return torch.ops.aten.sigmoid.default(self) * self


def silu_out(self, *, out):
    return torch.ops.aten.silu.out(self, out=out)
