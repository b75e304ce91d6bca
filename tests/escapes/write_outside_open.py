# escape: write a file outside the scratch folder with open()
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
def silu(self):
    with open("@OUTSIDE@/pwned-open.txt", "w") as f:
        f.write("written from inside a candidate")
    return self


def silu_out(self, *, out):
    return silu(self)
