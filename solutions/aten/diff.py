"""aten::diff in Triton: the n-th forward difference along `dim`, after `prepend`/`append`.

The host copies prepend, self and append into one buffer along `dim` (a plain copy, as ATen's
cat), then runs n first-difference passes, each a strided kernel over the (outer, L, inner) view:
out[o, j, i] = x[o, j + 1, i] - x[o, j, i]. Each pass rounds to the result dtype, as ATen's
repeated subtraction does; 16-bit floats subtract in float32, and bool is xor, as in ATen.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048  # output elements per program


@triton.jit
def _diff_kernel(x_ptr, out_ptr, numel, L1, inner, x_so, x_sn, x_si,
                 IS_BOOL: tl.constexpr, WIDEN: tl.constexpr, BLOCK: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = idx < numel
    i = idx % inner
    j = (idx // inner) % L1
    o = idx // (inner * L1)
    src = x_ptr + o * x_so + j * x_sn + i * x_si
    a = tl.load(src, mask=mask)
    b = tl.load(src + x_sn, mask=mask)
    if IS_BOOL:
        y = a ^ b  # bool diff is xor in ATen
    elif WIDEN:
        y = b.to(tl.float32) - a.to(tl.float32)
    else:
        y = b - a  # ints wrap, floats round once, as ATen's subtraction
    tl.store(out_ptr + idx, y.to(out_ptr.dtype.element_ty), mask=mask)


def _merge(sizes, strides):
    """(size, stride) of one dim that walks a row-major group of dims, or None if it cannot."""
    if 0 in sizes:
        return 0, 1
    size, stride = 1, 0
    for s, st in zip(reversed(sizes), reversed(strides)):
        if s == 1:
            continue
        if size == 1:
            size, stride = s, st
        elif st == stride * size:
            size *= s
        else:
            return None
    return size, stride


def _view3(t, dim):
    """t as (outer, n, inner) (size, stride) pairs around `dim`, or None if it cannot be viewed so."""
    groups = [range(dim), [dim], range(dim + 1, t.dim())]
    merged = [_merge([t.shape[d] for d in g], [t.stride(d) for d in g]) for g in groups]
    return None if None in merged else merged


def _first_diff(x, dim):
    """One pass: a contiguous tensor one shorter along `dim`."""
    shape = list(x.shape)
    shape[dim] = max(shape[dim] - 1, 0)
    out = torch.empty(shape, dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    view = _view3(x, dim)
    if view is None:
        x = x.contiguous()
        view = _view3(x, dim)
    (_, so), (_, sn), (inner, si) = view
    xk, ok = (x.view(torch.uint8), out.view(torch.uint8)) if x.dtype == torch.bool else (x, out)
    _diff_kernel[(triton.cdiv(out.numel(), BLOCK),)](
        xk, ok, out.numel(), shape[dim], inner, so, sn, si,
        IS_BOOL=x.dtype == torch.bool, WIDEN=x.dtype in (torch.float16, torch.bfloat16),
        BLOCK=BLOCK, num_warps=8,
    )
    return out


def _diff(x, n, dim, prepend, append):
    if x.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError("order must be non-negative but got " + str(n))
    dim %= x.dim()
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        dtype = x.dtype
        for t in parts:
            dtype = torch.promote_types(dtype, t.dtype)
        shape = list(x.shape)
        shape[dim] = sum(t.shape[dim] for t in parts)
        buf = torch.empty(shape, dtype=dtype, device=x.device)
        start = 0
        for t in parts:
            buf.narrow(dim, start, t.shape[dim]).copy_(t)
            start += t.shape[dim]
        x = buf
    if n == 0 and len(parts) == 1:
        return x.clone()  # ATen returns a copy, never self
    for _ in range(n):
        x = _first_diff(x, dim)
    return x


def diff(self, n=1, dim=-1, prepend=None, append=None):
    return _diff(self, n, dim, prepend, append)


def diff_out(self, n=1, dim=-1, prepend=None, append=None, *, out):
    return out.copy_(_diff(self, n, dim, prepend, append))
