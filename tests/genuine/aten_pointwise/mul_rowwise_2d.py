# op: aten::mul
# idiom: operands flattened to (rows, last dim) 2-D views with their own strides (a broadcast row vector gets row stride 0), 2-D launch grid, torch.result_type, @torch.no_grad()

import torch
import triton
import triton.language as tl

BLOCK_M = 8
BLOCK_N = 256


@triton.jit
def _mul_2d(
    x_ptr, y_ptr, z_ptr, M, N, scalar,
    sxm, sxn, sym, syn, szm,
    HAS_Y: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask).to(z_ptr.dtype.element_ty)
    if z_ptr.dtype.element_ty == tl.float64:
        x = x.to(tl.float64)
    elif z_ptr.dtype.element_ty.is_floating():
        x = x.to(tl.float32)
    else:
        x = x.to(z_ptr.dtype.element_ty)
    if HAS_Y:
        y = tl.load(y_ptr + rm[:, None] * sym + rn[None, :] * syn, mask=mask).to(z_ptr.dtype.element_ty).to(x.dtype)
        z = x * y
    else:
        z = x * scalar
    tl.store(z_ptr + rm[:, None] * szm + rn[None, :], z.to(z_ptr.dtype.element_ty), mask=mask)


def _as_rows(t, shape):
    """t broadcast to `shape`, as a (rows, cols) view (reshape copies only if it must)."""
    cols = shape[-1] if len(shape) else 1
    return t.expand(shape).reshape(-1, cols)


@torch.no_grad()
def _mul(self, other, out=None):
    has_y = isinstance(other, torch.Tensor)
    shape = torch.broadcast_shapes(self.shape, other.shape) if has_y else self.shape
    dtype = torch.result_type(self, other)
    direct = out is not None and out.is_contiguous()
    z = out if direct else torch.empty(shape, dtype=dtype, device=self.device)
    if z.numel() == 0:
        return out if out is not None else z
    x2 = _as_rows(self, shape)
    y2 = _as_rows(other, shape) if has_y else x2
    z2 = z.view(x2.shape)
    M, N = x2.shape
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _mul_2d[grid](
        x2, y2, z2, M, N, 0 if has_y else other,
        x2.stride(0), x2.stride(1), y2.stride(0), y2.stride(1), z2.stride(0),
        HAS_Y=has_y, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4,
    )
    if out is None or direct:
        return z
    out.copy_(z)
    return out


def mul_Tensor(self, other):
    return _mul(self, other)


def mul_Scalar(self, other):
    return _mul(self, other)


def mul_out(self, other, *, out):
    return _mul(self, other, out)


def mul_Scalar_out(self, other, *, out):
    return _mul(self, other, out)
