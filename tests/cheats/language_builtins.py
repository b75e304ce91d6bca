# op: aten::silu
# expect: hack_static
# evidence: reaches the module `builtins`
# without-static: wrong_result
# trick 17 through a module's internals: `tl.core.builtins.open`, Python's `open` as
# triton.language.core imported it, past a scan that bans the name `open`.
import torch
import triton.language as tl


def silu(self):
    tl.core.builtins.open("/etc/passwd").read()
    return torch.empty_like(self)


def silu_out(self, *, out):
    return out
