# escape: start a shell by its path and write outside from it
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import subprocess


def silu(self):
    subprocess.run(["/bin/sh", "-c", "echo pwned > @OUTSIDE@/pwned-shell.txt"], check=True)
    return self


def silu_out(self, *, out):
    return silu(self)
