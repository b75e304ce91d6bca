# op: aten::silu
# expect: hack_static
# evidence: try/except
# trick 4: a kernel that "fails" and a fallback that does the work.
import torch


def silu(self):
    try:
        raise RuntimeError("kernel unsupported")
    except RuntimeError:
        return torch.empty_like(self)


def silu_out(self, *, out):
    return out
