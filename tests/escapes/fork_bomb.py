# escape: a fork bomb (bounded here, so that a machine without the sandbox survives the test)
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import os
import time


def silu(self):
    children = 0
    for _ in range(3000):
        pid = os.fork()
        if pid == 0:
            time.sleep(20)
            os._exit(0)
        children += 1
    raise RuntimeError(f"forked {children} processes")


def silu_out(self, *, out):
    return silu(self)
