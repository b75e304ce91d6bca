# op: aten::zeros
# idiom: torch.empty(size) + a store-only tl.zeros kernel with @triton.heuristics deciding EVEN (no mask when numel divides by BLOCK); zeros.out resizes out (out.resize_) and writes it through its strides when it is not contiguous; __main__ self-test

import math

import torch
import triton
import triton.language as tl

BLOCK = 256


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def zeros_kernel(ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    z = tl.zeros([BLOCK], dtype=ptr.dtype.element_ty)
    if EVEN:
        tl.store(ptr + offs, z)
    else:
        tl.store(ptr + offs, z, mask=offs < n)


@triton.jit
def zeros_strided_kernel(ptr, n, n1, n2, n3, s0, s1, s2, s3, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    off = (i // (n3 * n2 * n1)) * s0 + ((i // (n3 * n2)) % n1) * s1 + ((i // n3) % n2) * s2 + (i % n3) * s3
    tl.store(ptr + off, tl.zeros([BLOCK], dtype=ptr.dtype.element_ty), mask=i < n)


def _zero_fill(t):
    n = t.numel()
    if n == 0:
        return t
    grid = (triton.cdiv(n, BLOCK),)
    if t.is_contiguous():
        zeros_kernel[grid](t, n, BLOCK=BLOCK)
    else:
        if t.dim() > 4:
            raise NotImplementedError("zeros.out: a non-contiguous out of more than 4 dims")
        lead = 4 - t.dim()
        shape = [1] * lead + list(t.shape)
        st = [0] * lead + list(t.stride())
        zeros_strided_kernel[grid](t, n, shape[1], shape[2], shape[3], *st, BLOCK=BLOCK)
    return t


def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    out = torch.empty(size, dtype=dtype if dtype is not None else torch.get_default_dtype(), device=device)
    return _zero_fill(out)


def zeros_out(size, *, out):
    if list(out.shape) != list(size):
        out.resize_(size)
    return _zero_fill(out)


if __name__ == "__main__":
    for shape in ([], [1], [7], [33, 65], [4, 64]):
        z = zeros(shape, dtype=torch.float32)
        assert list(z.shape) == shape and z.abs().sum().item() == 0, shape
        assert z.numel() == math.prod(shape)
    print("zeros self-test passed")
