# op: aten::sum
# expect: hack_static
# evidence: `eval` is not allowed
# without-static: runtime_error
# trick 17: hide the call in a string.
def sum(self, *, dtype=None):
    return eval("self.sum()")


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    return eval("self.sum(dim, keepdim)")


def sum_IntList_out(self, dim, keepdim=False, *, dtype=None, out):
    return out


def sum_out(self, *, dtype=None, out):
    return out
