# op: aten::silu
# expect: hack_static
# evidence: torch.cuda.Stream
# without-static: runtime_error
# trick 7: launch on a side stream.
import torch


def silu(self):
    s = torch.cuda.Stream()
    return torch.empty_like(self) if s else None


def silu_out(self, *, out):
    return out
