# escape: load native code (libc through ctypes) and write outside with raw system calls
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import ctypes
import ctypes.util


def silu(self):
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    fd = libc.open(b"@OUTSIDE@/pwned-libc.txt", 0o101, 0o644)  # O_WRONLY | O_CREAT
    if fd < 0:
        raise OSError(ctypes.get_errno(), "libc open refused")
    libc.write(fd, b"native", 6)
    return self


def silu_out(self, *, out):
    return silu(self)
