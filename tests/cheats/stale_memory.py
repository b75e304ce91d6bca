# op: aten::silu
# expect: wrong_result
# evidence: output 0
# trick 5: return fresh uninitialised memory and hope it holds a freed copy of the answer.
import torch


def silu(self):
    return torch.empty_like(self)


def silu_out(self, *, out):
    return out
