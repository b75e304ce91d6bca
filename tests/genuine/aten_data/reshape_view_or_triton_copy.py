# op: aten::reshape
# idiom: -1 inferred with math.prod; whether a view exists is decided up front by walking the old dims in chunks (ATen's computeStride logic, no try/except); viewable -> self.view(shape), else a Triton strided copy into torch.empty(self.shape) followed by .view(shape)

import math

import torch
import triton
import triton.language as tl

BLOCK = 512


@triton.jit
def _gather_contiguous(src_ptr, dst_ptr, n, sz1, sz2, sz3, st0, st1, st2, st3, BLOCK: tl.constexpr):
    """dst (contiguous) [i] = src[unravel(i)] through src's strides."""
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = i < n
    a3 = i % sz3
    a2 = (i // sz3) % sz2
    a1 = (i // (sz3 * sz2)) % sz1
    a0 = i // (sz3 * sz2 * sz1)
    v = tl.load(src_ptr + a0 * st0 + a1 * st1 + a2 * st2 + a3 * st3, mask=ok)
    tl.store(dst_ptr + i, v, mask=ok)


def _resolve_shape(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0 or numel % rest:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // rest
    elif math.prod(shape) != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return shape


def _viewable(old_shape, old_strides, new_shape):
    """True when new_shape can be a view of a tensor with these sizes and strides."""
    if len(old_shape) == 0 or math.prod(old_shape) == 0:
        return True
    view_d = len(new_shape) - 1
    base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        chunk_ends = d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * base_stride)
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False
            if d > 0:
                base_stride = old_strides[d - 1]
                tensor_numel = 1
                view_numel = 1
    return view_d == -1


def _contiguous_copy(self):
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = out.numel()
    if n == 0:
        return out
    if self.dim() > 4:
        raise NotImplementedError("reshape: copying more than 4 dims")
    pad = 4 - self.dim()
    sizes = [1] * pad + list(self.shape)
    strides = [0] * pad + list(self.stride())
    _gather_contiguous[(triton.cdiv(n, BLOCK),)](self, out, n, sizes[1], sizes[2], sizes[3], *strides, BLOCK=BLOCK)
    return out


def reshape(self, shape):
    new_shape = _resolve_shape(shape, self.numel())
    if _viewable(list(self.shape), list(self.stride()), new_shape):
        return self.view(new_shape)
    return _contiguous_copy(self).view(new_shape)
