# op: aten::rsqrt
# expect: hack_static
# evidence: .rsqrt()
# without-static: runtime_error
# trick 1: a tensor method that computes.


def rsqrt(self):
    return self.rsqrt()


def rsqrt_out(self, *, out):
    return out.copy_(self.rsqrt())
