# op: aten::to
# idiom: returns self when dtype, device and layout already match (copy=False), else torch.empty_like(self, dtype=...) and a strided kernel that converts with x.to(out_ptr.dtype.element_ty); a typing-annotated module-level helper pads shape and strides to 4-D

from typing import List, Optional, Tuple

import torch
import triton
import triton.language as tl

BLOCK = 512


@triton.jit
def _convert_kernel(x_ptr, out_ptr, numel,
                    n1, n2, n3,
                    xs0, xs1, xs2, xs3,
                    os0, os1, os2, os3,
                    BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = i < numel
    c3 = i % n3
    c2 = (i // n3) % n2
    c1 = (i // (n3 * n2)) % n1
    c0 = i // (n3 * n2 * n1)
    x = tl.load(x_ptr + c0 * xs0 + c1 * xs1 + c2 * xs2 + c3 * xs3, mask=valid)
    if out_ptr.dtype.element_ty == tl.bfloat16:
        # Triton's interpreter mis-converts integers and float64 straight to bfloat16; float32 is exact
        # for every half-precision source and is the route ATen's BFloat16(float) takes as well
        x = x.to(tl.float32)
    y = x.to(out_ptr.dtype.element_ty)  # the dtype conversion happens here, on the device
    tl.store(out_ptr + c0 * os0 + c1 * os1 + c2 * os2 + c3 * os3, y, mask=valid)


def _pad4(t: torch.Tensor) -> Tuple[List[int], List[int]]:
    """Shape and strides left-padded to four dims (size 1, stride 0)."""
    if t.dim() > 4:
        raise NotImplementedError("to: tensors of more than 4 dims are not supported")
    k = 4 - t.dim()
    return [1] * k + list(t.shape), [0] * k + list(t.stride())


def _suggested_format(t: torch.Tensor) -> torch.memory_format:
    if t.dim() == 4 and not t.is_contiguous() and t.is_contiguous(memory_format=torch.channels_last):
        return torch.channels_last
    return torch.contiguous_format


def _convert(self: torch.Tensor, dtype: Optional[torch.dtype], device, copy: bool,
             memory_format: Optional[torch.memory_format]) -> torch.Tensor:
    dtype = self.dtype if dtype is None else dtype
    if device is not None and torch.device(device).type != self.device.type:
        raise NotImplementedError("to: cross-device copies are not implemented")
    fmt = torch.preserve_format if memory_format is None else memory_format
    same_format = fmt == torch.preserve_format or fmt == _suggested_format(self)
    if not copy and dtype == self.dtype and same_format:
        return self
    if fmt == torch.preserve_format:
        out = torch.empty_like(self, dtype=dtype)
    else:
        out = torch.empty(self.shape, dtype=dtype, device=self.device, memory_format=fmt)
    n = out.numel()
    if n == 0:
        return out
    shape, x_st = _pad4(self)
    _, o_st = _pad4(out)
    _convert_kernel[(triton.cdiv(n, BLOCK),)](self, out, n, shape[1], shape[2], shape[3],
                                              *x_st, *o_st, BLOCK=BLOCK)
    return out


def to_device(self, device, dtype, non_blocking=False, copy=False, memory_format=None):
    return _convert(self, dtype, device, copy, memory_format)


def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):
    return _convert(self, dtype, None, copy, memory_format)


def to_other(self, other, non_blocking=False, copy=False, memory_format=None):
    return _convert(self, other.dtype, other.device, copy, memory_format)


def to_dtype_layout(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
                    copy=False, memory_format=None):
    return _convert(self, dtype, device, copy, memory_format)
