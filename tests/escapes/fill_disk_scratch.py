# escape: fill the disk from the scratch folder (stops by itself at 4 GiB)
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
def silu(self):
    block = b"\0" * (64 << 20)
    for i in range(64):
        with open(f"fill-{i}.bin", "wb") as f:
            f.write(block)
    raise RuntimeError("wrote 4 GiB")


def silu_out(self, *, out):
    return silu(self)
