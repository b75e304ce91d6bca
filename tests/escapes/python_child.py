# escape: a second Python interpreter, started by its own path, that writes outside
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import subprocess
import sys


def silu(self):
    subprocess.run([sys.executable, "-c", "open('@OUTSIDE@/pwned-python.txt', 'w').write('x')"], check=True)
    return self


def silu_out(self, *, out):
    return silu(self)
