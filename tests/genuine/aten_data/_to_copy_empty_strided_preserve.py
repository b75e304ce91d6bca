# op: aten::_to_copy
# idiom: preserve_format allocates with torch.empty_strided(self.shape, self.stride(), dtype=...) when self is non-overlapping and dense (its exact strides), otherwise torch.empty(..., memory_format=...); one strided kernel converts with x.to(out.dtype.element_ty) (float -> int truncates, -> bool is x != 0) and writes through out's strides

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _to_copy_kernel(src, dst, n, n1, n2, n3, a0, a1, a2, a3, b0, b1, b2, b3, BLOCK: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = idx < n
    j3 = idx % n3
    j2 = (idx // n3) % n2
    j1 = (idx // (n3 * n2)) % n1
    j0 = idx // (n3 * n2 * n1)
    x = tl.load(src + j0 * a0 + j1 * a1 + j2 * a2 + j3 * a3, mask=live)
    target = dst.dtype.element_ty
    if target == tl.bfloat16:
        x = x.to(tl.float32)  # the interpreter cannot convert integers/float64 straight to bfloat16
    tl.store(dst + j0 * b0 + j1 * b1 + j2 * b2 + j3 * b3, x.to(target), mask=live)


def _non_overlapping_dense(t):
    want = 1
    for size, stride in sorted(zip(t.shape, t.stride()), key=lambda x: x[1]):
        if size == 1:
            continue
        if stride != want:
            return False
        want *= size
    return True


def _convert_into(out, src):
    n = out.numel()
    if n == 0:
        return out
    if src.dim() > 4:
        raise NotImplementedError("_to_copy: at most 4 dims")
    pad = 4 - src.dim()
    shape = [1] * pad + list(src.shape)
    a = [0] * pad + list(src.stride())
    b = [0] * pad + list(out.stride())
    _to_copy_kernel[(triton.cdiv(n, BLOCK),)](src, out, n, shape[1], shape[2], shape[3], *a, *b, BLOCK=BLOCK)
    return out


def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    if device is not None and torch.device(device).type != self.device.type:
        raise NotImplementedError("_to_copy: device transfers are not implemented")
    dtype = self.dtype if dtype is None else dtype
    fmt = torch.preserve_format if memory_format is None else memory_format
    if fmt == torch.preserve_format and _non_overlapping_dense(self):
        out = torch.empty_strided(self.shape, self.stride(), dtype=dtype, device=self.device)
    elif fmt == torch.preserve_format:
        out = torch.empty_like(self, dtype=dtype)
    else:
        out = torch.empty(self.shape, dtype=dtype, device=self.device, memory_format=fmt)
    return _convert_into(out, self)


def _to_copy_out(self, *, non_blocking=False, memory_format=None, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _convert_into(out, self)
