# escape: write outside while the file is imported (before any case runs)
# op: aten::silu
# expect: hack_static
# without-static: compile_error
import pathlib

pathlib.Path("@OUTSIDE@/pwned-import.txt").write_text("written at import")


def silu(self):
    return self


def silu_out(self, *, out):
    return silu(self)
