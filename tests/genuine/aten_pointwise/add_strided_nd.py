# op: aten::add
# idiom: broadcasting through stride-0 .expand() views (no copies), per-element N-D unravel in a 1-D grid, type promotion by in-kernel casts (torch.result_type picks the output dtype), out= written in place through its strides

from typing import List, Union

import torch
import triton
import triton.language as tl

BLOCK = 1024
RANK = 4


@triton.jit
def add_nd_kernel(
    a_ptr, b_ptr, c_ptr, n, alpha, b_scalar,
    s1, s2, s3,
    a0, a1, a2, a3,
    b0, b1, b2, b3,
    c0, c1, c2, c3,
    CONTIG: tl.constexpr, B_IS_SCALAR: tl.constexpr, COMPUTE: tl.constexpr, BLOCK: tl.constexpr,
):
    lin = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    if CONTIG:
        a_off = lin
        b_off = lin
        c_off = lin
    else:
        i3 = lin % s3
        t = lin // s3
        i2 = t % s2
        t = t // s2
        i1 = t % s1
        i0 = t // s1
        a_off = i0 * a0 + i1 * a1 + i2 * a2 + i3 * a3
        b_off = i0 * b0 + i1 * b1 + i2 * b2 + i3 * b3
        c_off = i0 * c0 + i1 * c1 + i2 * c2 + i3 * c3
    # operands are rounded to the result dtype first, as ATen's TensorIterator does
    a = tl.load(a_ptr + a_off, mask=mask).to(c_ptr.dtype.element_ty).to(COMPUTE)
    if B_IS_SCALAR:
        b = b_scalar
    else:
        b = tl.load(b_ptr + b_off, mask=mask).to(c_ptr.dtype.element_ty).to(COMPUTE)
    c = a + alpha * b
    tl.store(c_ptr + c_off, c.to(c_ptr.dtype.element_ty), mask=mask)


def _compute_dtype(dtype: torch.dtype):
    if dtype == torch.float64:
        return tl.float64
    if dtype.is_floating_point:
        return tl.float32
    return tl.int64


def _pad(values: List[int], fill: int) -> List[int]:
    return [fill] * (RANK - len(values)) + list(values)


def _add(self: torch.Tensor, other: Union[torch.Tensor, float, int], alpha, out: torch.Tensor) -> torch.Tensor:
    shape = out.shape
    n = out.numel()
    if n == 0:
        return out
    b_is_scalar = not isinstance(other, torch.Tensor)
    a = self.expand(shape)
    b = a if b_is_scalar else other.expand(shape)
    target = out
    if len(shape) > RANK:
        a, b = a.contiguous(), b.contiguous()
        target = out if out.is_contiguous() else torch.empty(shape, dtype=out.dtype, device=out.device)
    contig = a.is_contiguous() and b.is_contiguous() and target.is_contiguous()
    if not out.dtype.is_floating_point:
        alpha = int(alpha)
    b_scalar = 0 if not b_is_scalar else other
    if len(shape) > RANK:
        sizes, sa, sb, sc = [1, 1, 1, n], [0] * RANK, [0] * RANK, [0] * RANK
    else:
        sizes = _pad(shape, 1)
        sa, sb, sc = _pad(a.stride(), 0), _pad(b.stride(), 0), _pad(target.stride(), 0)
    add_nd_kernel[(triton.cdiv(n, BLOCK),)](
        a, b, target, n, alpha, b_scalar,
        sizes[1], sizes[2], sizes[3],
        *sa, *sb, *sc,
        CONTIG=contig, B_IS_SCALAR=b_is_scalar, COMPUTE=_compute_dtype(out.dtype), BLOCK=BLOCK,
    )
    if target is not out:
        out.copy_(target)
    return out


def _new_out(self, other) -> torch.Tensor:
    shape = torch.broadcast_shapes(self.shape, other.shape if isinstance(other, torch.Tensor) else ())
    return torch.empty(shape, dtype=torch.result_type(self, other), device=self.device)


def add_Tensor(self, other, *, alpha=1):
    return _add(self, other, alpha, _new_out(self, other))


def add_Scalar(self, other, alpha=1):
    return _add(self, other, alpha, _new_out(self, other))


def add_out(self, other, *, alpha=1, out):
    return _add(self, other, alpha, out)


def add_Scalar_out(self, other, alpha=1, *, out):
    return _add(self, other, alpha, out)
