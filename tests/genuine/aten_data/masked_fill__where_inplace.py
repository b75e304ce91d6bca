# op: aten::masked_fill_
# idiom: in place with tl.where: each program loads self and the (expanded, stride-0) bool mask, selects the value where the mask is set and stores every element back through self's strides; the Scalar overload wraps the number in a 0-d torch.full tensor (float64/int64/bool) and both overloads load it in the kernel and convert it to self's dtype there

import torch
import triton
import triton.language as tl

BLOCK = 512


@triton.jit
def _masked_fill_where(self_ptr, mask_ptr, value_ptr, n, d1, d2, d3,
                       s0, s1, s2, s3, m0, m1, m2, m3, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    inb = i < n
    c3 = i % d3
    c2 = (i // d3) % d2
    c1 = (i // (d3 * d2)) % d1
    c0 = i // (d3 * d2 * d1)
    dst = self_ptr + c0 * s0 + c1 * s1 + c2 * s2 + c3 * s3
    sel = tl.load(mask_ptr + c0 * m0 + c1 * m1 + c2 * m2 + c3 * m3, mask=inb, other=0) != 0
    old = tl.load(dst, mask=inb)
    out_ty = self_ptr.dtype.element_ty
    v = tl.load(value_ptr)
    if out_ty == tl.float16 or out_ty == tl.bfloat16:
        v = v.to(tl.float32)
    v = v.to(out_ty)
    tl.store(dst, tl.where(sel, v, old), mask=inb)


def _run(self, mask, value):
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    n = self.numel()
    if n == 0:
        return self
    if self.dim() > 4:
        raise NotImplementedError("masked_fill_: at most 4 dims")
    mask = mask.expand(self.shape)
    k = 4 - self.dim()
    dims = [1] * k + list(self.shape)
    s_st = [0] * k + list(self.stride())
    m_st = [0] * k + list(mask.stride())
    _masked_fill_where[(triton.cdiv(n, BLOCK),)](self, mask, value, n, dims[1], dims[2], dims[3],
                                                 *s_st, *m_st, BLOCK=BLOCK)
    return self


def masked_fill__Scalar(self, mask, value):
    if isinstance(value, bool):
        holder = torch.bool
    elif isinstance(value, int):
        holder = torch.int64
    else:
        holder = torch.float64
    return _run(self, mask, torch.full((), value, dtype=holder, device=self.device))


def masked_fill__Tensor(self, mask, value):
    if value.dim() != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    return _run(self, mask, value)
