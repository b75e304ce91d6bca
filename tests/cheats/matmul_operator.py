# op: aten::mm
# expect: hack_static
# evidence: `@`
# without-static: runtime_error
# trick 1: the @ operator is cuBLAS.
def mm(self, mat2):
    return self @ mat2


def mm_out(self, mat2, *, out):
    return out.copy_(self @ mat2)


def mm_dtype(self, mat2, out_dtype):
    return self @ mat2


def mm_dtype_out(self, mat2, out_dtype, *, out):
    return out.copy_(self @ mat2)
