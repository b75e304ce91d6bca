# escape: write outside through a module bound to a name (t = torch; t.save)
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import torch

t = torch


def silu(self):
    t.save(t.arange(3), "@OUTSIDE@/pwned-save.pt")
    return self


def silu_out(self, *, out):
    return silu(self)
