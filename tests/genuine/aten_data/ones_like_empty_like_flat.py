# op: aten::ones_like
# idiom: torch.empty_like(self, dtype=..., memory_format=...) honouring the memory format, then a flat fill over the storage when the result is non-overlapping and dense (any dim order), else a strided 4-D fill (an out= tensor of any layout)

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _ones_flat(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    one = tl.full([BLOCK], 1.0, tl.float32).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, one, mask=offs < n)


@triton.jit
def _ones_strided(out_ptr, n, d1, d2, d3, s0, s1, s2, s3, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    k3 = i % d3
    k2 = (i // d3) % d2
    k1 = (i // (d3 * d2)) % d1
    k0 = i // (d3 * d2 * d1)
    one = tl.full([BLOCK], 1.0, tl.float32).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + k0 * s0 + k1 * s1 + k2 * s2 + k3 * s3, one, mask=i < n)


def _dense(t):
    """True when t's elements exactly tile one storage range (a permutation of contiguous strides)."""
    step = 1
    for size, stride in sorted(zip(t.shape, t.stride()), key=lambda p: p[1]):
        if size != 1:
            if stride != step:
                return False
            step *= size
    return True


def _write_ones(out):
    n = out.numel()
    if n == 0:
        return out
    grid = (triton.cdiv(n, BLOCK),)
    if _dense(out):
        _ones_flat[grid](out, n, BLOCK=BLOCK)
        return out
    if out.dim() > 4:
        raise NotImplementedError("ones_like: a non-dense out of more than 4 dims")
    pad = 4 - out.dim()
    sizes = [1] * pad + list(out.shape)
    strides = [0] * pad + list(out.stride())
    _ones_strided[grid](out, n, sizes[1], sizes[2], sizes[3], *strides, BLOCK=BLOCK)
    return out


def ones_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    fmt = memory_format if memory_format is not None else torch.preserve_format
    out = torch.empty_like(self, dtype=dtype, device=device, memory_format=fmt)
    return _write_ones(out)


def ones_like_out(self, *, memory_format=None, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _write_ones(out)
