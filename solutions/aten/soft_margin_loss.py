"""aten::soft_margin_loss in Triton.

loss = log(1 + exp(-target * self)), taken as max(z, 0) + log1p(exp(-|z|)) with z = -target * self,
which never overflows (ATen's own formula overflows to inf past |z| = 88 in float32).

The host broadcasts both operands to the loss's shape as views (no copy): an operand laid out
contiguously in that shape is read at the flat index, any other through up to four strides.
One kernel computes the loss in float32 and either stores it (reduction none) or, as a
persistent grid, adds it up in float64 partial sums, one per program; a one-program kernel adds
the partials and divides by the element count for the mean (0 / 0 is NaN for an empty input,
as in ATen).
"""

import math

import torch
import triton
import triton.language as tl

BLOCK = 1024
MAX_PROGRAMS = 1024  # partial sums of a reduction
NONE, MEAN, SUM = 0, 1, 2


@triton.jit
def _log1p(z):
    """log(1 + z) for z >= 0, accurate when 1 + z rounds to 1."""
    u = 1.0 + z
    return tl.where(u == 1.0, z, tl.log(u) * z / tl.where(u == 1.0, 1.0, u - 1.0))


@triton.jit
def _load(ptr, flat, i0, i1, i2, i3, st0, st1, st2, st3, mask, FLAT: tl.constexpr):
    if FLAT:
        offs = flat
    else:
        offs = i0 * st0 + i1 * st1 + i2 * st2 + i3 * st3
    return tl.load(ptr + offs, mask=mask, other=0.0).to(tl.float32)


@triton.jit
def _soft_margin_kernel(
    x_ptr, t_ptr, out_ptr, n, s1, s2, s3, x0, x1, x2, x3, t0, t1, t2, t3,
    FLAT_X: tl.constexpr, FLAT_T: tl.constexpr, REDUCE: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float64)
    for tile in range(pid, tl.cdiv(n, BLOCK), tl.num_programs(0)):
        flat = tile * BLOCK + tl.arange(0, BLOCK)
        mask = flat < n
        i3 = flat % s3
        i2 = (flat // s3) % s2
        i1 = (flat // (s3 * s2)) % s1
        i0 = flat // (s3 * s2 * s1)
        x = _load(x_ptr, flat, i0, i1, i2, i3, x0, x1, x2, x3, mask, FLAT_X)
        y = _load(t_ptr, flat, i0, i1, i2, i3, t0, t1, t2, t3, mask, FLAT_T)
        z = -y * x
        loss = tl.maximum(z, 0.0) + _log1p(tl.exp(-tl.abs(z)))
        if REDUCE:
            acc += tl.where(mask, loss, 0.0).to(tl.float64)
        else:
            tl.store(out_ptr + flat, loss.to(out_ptr.dtype.element_ty), mask=mask)
    if REDUCE:
        tl.store(out_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _finish_kernel(part_ptr, out_ptr, parts, count, MEAN: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    total = tl.sum(tl.load(part_ptr + i, mask=i < parts, other=0.0), axis=0)
    if MEAN:
        total = total / count  # int (a constexpr where it is 1) promotes to float64 exactly
    # via float32: the interpreter cannot cast float64 to bfloat16 directly
    tl.store(out_ptr, total.to(tl.float32).to(out_ptr.dtype.element_ty))


def _operand(t, shape):
    """`t` broadcast to `shape`, whether it is read at the flat index, and its four strides."""
    t = t.expand(shape)
    if t.is_contiguous():
        return t, True, (0, 0, 0, 0)
    if len(shape) > 4:
        return t.contiguous(), True, (0, 0, 0, 0)
    return t, False, (0,) * (4 - len(shape)) + tuple(t.stride())


def _soft_margin_into(x, target, reduction, out):
    shape = torch.broadcast_shapes(x.shape, target.shape)
    n = math.prod(shape)
    (xv, flat_x, xs), (tv, flat_t, ts) = _operand(x, shape), _operand(target, shape)
    sizes = (1,) * (4 - len(shape)) + tuple(shape) if len(shape) <= 4 else (1, 1, 1, n)
    reduce = reduction != NONE
    tiles = triton.cdiv(n, BLOCK)
    programs = min(tiles, MAX_PROGRAMS) if reduce else tiles
    if reduce:
        dest = torch.empty(max(programs, 1), dtype=torch.float64, device=x.device)
    else:
        dest = out if out.is_contiguous() else torch.empty(shape, dtype=out.dtype, device=out.device)
    if programs:
        _soft_margin_kernel[(programs,)](
            xv, tv, dest, n, sizes[1], sizes[2], sizes[3], *xs, *ts,
            FLAT_X=flat_x, FLAT_T=flat_t, REDUCE=reduce, BLOCK=BLOCK,
        )
    if reduce:
        _finish_kernel[(1,)](dest, out, programs, n, MEAN=reduction == MEAN,
                             BLOCK=triton.next_power_of_2(MAX_PROGRAMS))
    elif dest is not out:
        out.copy_(dest)
    return out


def soft_margin_loss(self, target, reduction=MEAN):
    shape = torch.broadcast_shapes(self.shape, target.shape) if reduction == NONE else ()
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    return _soft_margin_into(self, target, reduction, out)


def soft_margin_loss_out(self, target, reduction=MEAN, *, out):
    return _soft_margin_into(self, target, reduction, out)
