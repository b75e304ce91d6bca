import triton

def silu(self)
    return self
