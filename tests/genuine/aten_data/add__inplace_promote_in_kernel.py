# op: aten::add_
# idiom: in place through self's strides (self is both input and output of the kernel); other broadcast with expand(); type promotion done in the kernel: both operands cast to torch.result_type's dtype, computed in float32/float64/int64 and cast back to self's dtype; Scalar overload wraps the number with torch.full((), other) in float64/int64 so no precision is lost

import torch
import triton
import triton.language as tl

BLOCK = 256
TL_DTYPE = {
    torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
    torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8, torch.int16: tl.int16,
    torch.int32: tl.int32, torch.int64: tl.int64, torch.bool: tl.int1,
}


@triton.jit
def _cast(v, DST: tl.constexpr):
    if DST == tl.bfloat16 or DST == tl.float16:
        v = v.to(tl.float32)  # integers reach half types through float32
    return v.to(DST)


@triton.jit
def add_inplace_kernel(self_ptr, other_ptr, n, d1, d2, d3,
                       a0, a1, a2, a3, b0, b1, b2, b3,
                       ALPHA: tl.constexpr, COMMON: tl.constexpr, COMPUTE: tl.constexpr,
                       BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    k3 = i % d3
    k2 = (i // d3) % d2
    k1 = (i // (d3 * d2)) % d1
    k0 = i // (d3 * d2 * d1)
    self_ptrs = self_ptr + k0 * a0 + k1 * a1 + k2 * a2 + k3 * a3
    x = _cast(tl.load(self_ptrs, mask=m), COMMON).to(COMPUTE)
    y = _cast(tl.load(other_ptr + k0 * b0 + k1 * b1 + k2 * b2 + k3 * b3, mask=m), COMMON).to(COMPUTE)
    alpha = tl.full([BLOCK], ALPHA, COMPUTE)
    r = x + alpha * y
    tl.store(self_ptrs, _cast(r, self_ptr.dtype.element_ty), mask=m)


def _compute_dtype(common):
    if common == torch.float64:
        return tl.float64
    if common.is_floating_point:
        return tl.float32
    return tl.int64


def _add_inplace(self, other, alpha, common):
    n = self.numel()
    if n == 0:
        return self
    if self.dim() > 4:
        raise NotImplementedError("add_: at most 4 dims")
    other = other.expand(self.shape)
    pad = 4 - self.dim()
    sizes = [1] * pad + list(self.shape)
    s_st = [0] * pad + list(self.stride())
    o_st = [0] * pad + list(other.stride())
    alpha = float(alpha) if common.is_floating_point else int(alpha)
    add_inplace_kernel[(triton.cdiv(n, BLOCK),)](
        self, other, n, sizes[1], sizes[2], sizes[3], *s_st, *o_st,
        ALPHA=alpha, COMMON=TL_DTYPE[common], COMPUTE=_compute_dtype(common), BLOCK=BLOCK)
    return self


def add__Tensor(self, other, *, alpha=1):
    common = torch.result_type(self, other)
    if not torch.can_cast(common, self.dtype):
        raise RuntimeError(f"result type {common} can't be cast to the desired output type {self.dtype}")
    return _add_inplace(self, other, alpha, common)


def add__Scalar(self, other, alpha=1):
    common = torch.result_type(self, other)
    if not torch.can_cast(common, self.dtype):
        raise RuntimeError(f"result type {common} can't be cast to the desired output type {self.dtype}")
    wide = torch.float64 if isinstance(other, float) else torch.int64
    if isinstance(other, bool):
        wide = torch.bool
    scalar = torch.full((), other, dtype=wide, device=self.device)
    return _add_inplace(self, scalar, alpha, common)
