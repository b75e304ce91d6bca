# escape: os.system with a command that writes outside and connects out
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import os


def silu(self):
    code = os.system("touch @OUTSIDE@/pwned-system.txt")
    raise RuntimeError(f"os.system returned {code}")


def silu_out(self, *, out):
    return silu(self)
