# op: aten::add
# idiom: torch.result_type + torch.broadcast_tensors, inputs cast with .to(dtype) and made contiguous on the host, flat kernels (tensor/tensor and tensor/scalar)

"""out = self + alpha * other.

Type promotion and broadcasting are resolved on the host the way many people write it:
``torch.result_type`` picks the output dtype, ``torch.broadcast_tensors`` gives both operands
the output shape, and each operand is cast to that dtype and made contiguous. The kernels
then see two dense arrays of equal length (or one array and a scalar).
"""

from typing import Optional, Tuple, Union

import torch
import triton
import triton.language as tl

BLOCK = 1024
Number = Union[int, float, bool]


@triton.jit
def _add_tt_kernel(a_ptr, b_ptr, c_ptr, n, alpha, BLOCK: tl.constexpr, UPCAST: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    if UPCAST:
        a = a.to(tl.float32)
        b = b.to(tl.float32)
    c = a + alpha * b
    tl.store(c_ptr + offs, c.to(c_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _add_ts_kernel(a_ptr, c_ptr, n, other, alpha, BLOCK: tl.constexpr, UPCAST: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    if UPCAST:
        a = a.to(tl.float32)
    c = a + alpha * other
    tl.store(c_ptr + offs, c.to(c_ptr.dtype.element_ty), mask=mask)


def _upcast(dtype: torch.dtype) -> bool:
    return dtype in (torch.float16, torch.bfloat16)


def _prepare(self: torch.Tensor, other: Union[torch.Tensor, Number]) -> Tuple[torch.Tensor, Optional[torch.Tensor], torch.dtype]:
    dtype = torch.result_type(self, other)
    if isinstance(other, torch.Tensor):
        a, b = torch.broadcast_tensors(self, other)
        return a.to(dtype).contiguous(), b.to(dtype).contiguous(), dtype
    return self.to(dtype).contiguous(), None, dtype


def _compute(self, other, alpha) -> torch.Tensor:
    a, b, dtype = _prepare(self, other)
    c = torch.empty(a.shape, dtype=dtype, device=a.device)
    n = c.numel()
    if n == 0:
        return c
    if not dtype.is_floating_point:
        alpha = int(alpha)
    grid = (triton.cdiv(n, BLOCK),)
    if b is not None:
        _add_tt_kernel[grid](a, b, c, n, alpha, BLOCK=BLOCK, UPCAST=_upcast(dtype))
    else:
        _add_ts_kernel[grid](a, c, n, other, alpha, BLOCK=BLOCK, UPCAST=_upcast(dtype))
    return c


def _write_out(c: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    out.resize_(c.shape)
    out.copy_(c)
    return out


def add_Tensor(self, other, *, alpha=1):
    return _compute(self, other, alpha)


def add_Scalar(self, other, alpha=1):
    return _compute(self, other, alpha)


def add_out(self, other, *, alpha=1, out):
    return _write_out(_compute(self, other, alpha), out)


def add_Scalar_out(self, other, alpha=1, *, out):
    return _write_out(_compute(self, other, alpha), out)
