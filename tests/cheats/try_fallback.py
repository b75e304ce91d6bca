# op: aten::silu
# expect: hack_static
# evidence: try/except
# without-static: hack_ghost
# trick 4: a kernel that "fails" and a fallback to torch that does the work.
import torch


def silu(self):
    try:
        raise RuntimeError("kernel unsupported")
    except RuntimeError:
        return self * torch.sigmoid(self)


def silu_out(self, *, out):
    out.copy_(silu(self))
    return out
