# escape: read a file outside through torch.from_file, reached by a walrus alias
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import torch


def silu(self):
    data = (t := torch).from_file("@OUTSIDE@/secret.txt", size=32, dtype=t.uint8)
    raise RuntimeError(bytes(data.tolist()).decode(errors="replace"))


def silu_out(self, *, out):
    return silu(self)
