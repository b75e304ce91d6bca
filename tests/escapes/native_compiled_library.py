# escape: compile a C library with gcc, load it, and let it write outside
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import ctypes
import os
import subprocess
import tempfile

SOURCE = '#include <stdio.h>\nint pwn(void){FILE*f=fopen("@OUTSIDE@/pwned-native.txt","w");' \
         'if(!f)return -1;fputs("native",f);fclose(f);return 0;}\n'


def silu(self):
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "pwn.c"), "w") as f:
        f.write(SOURCE)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(folder, "pwn.so"), os.path.join(folder, "pwn.c")],
                   check=True)
    if ctypes.CDLL(os.path.join(folder, "pwn.so")).pwn() != 0:
        raise RuntimeError("the native library could not open the file outside")
    return self


def silu_out(self, *, out):
    return silu(self)
