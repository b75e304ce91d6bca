# op: aten::t
# expect: wrong_result
# evidence: the native op returns a view of `self`
# trick: the right values, copied by a kernel into a new tensor where ATen returns a view (a write
# through the result would not reach the input, and the copy costs time a view never spends).
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x, o, rows, cols, sx0, sx1, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < rows * cols
    r, c = i // cols, i % cols
    tl.store(o + i, tl.load(x + r * sx0 + c * sx1, mask=m), mask=m)


def t(self):
    v = self.transpose(0, 1) if self.dim() == 2 else self
    out = torch.empty(v.shape, dtype=v.dtype, device=v.device)
    rows, cols = (v.shape[0], v.shape[1]) if v.dim() == 2 else (1, v.numel())
    sx0, sx1 = (v.stride(0), v.stride(1)) if v.dim() == 2 else (0, v.stride(0) if v.dim() else 1)
    if out.numel():
        _copy[(triton.cdiv(out.numel(), 256),)](v, out, rows, cols, sx0, sx1, BLOCK=256)
    return out
