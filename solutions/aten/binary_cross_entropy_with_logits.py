"""aten::binary_cross_entropy_with_logits in Triton.

loss = (1 - y) x + (1 + (pos_weight - 1) y) softplus(-x), times weight, where
softplus(-x) = max(-x, 0) + log1p(exp(-|x|)) never overflows, whatever |x|.

The host broadcasts every operand to the loss's shape as a view (no copy): an operand laid out
contiguously in that shape is read at the flat index, any other through up to four strides
(stride 0 where it broadcasts). One kernel computes the loss in float32 and either stores it
(reduction none) or, as a persistent grid, adds it up in float64 partial sums, one per program;
a one-program kernel adds the partials and divides by the element count for the mean (0 / 0 is
NaN for an empty input, as in ATen).
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
def _bce_kernel(
    x_ptr, t_ptr, w_ptr, pw_ptr, out_ptr, n, s1, s2, s3,
    x0, x1, x2, x3, t0, t1, t2, t3, w0, w1, w2, w3, p0, p1, p2, p3,
    FLAT_X: tl.constexpr, FLAT_T: tl.constexpr, FLAT_W: tl.constexpr, FLAT_P: tl.constexpr,
    HAS_W: tl.constexpr, HAS_PW: tl.constexpr, REDUCE: tl.constexpr, BLOCK: tl.constexpr,
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
        softplus = tl.maximum(-x, 0.0) + _log1p(tl.exp(-tl.abs(x)))
        if HAS_PW:
            pw = _load(pw_ptr, flat, i0, i1, i2, i3, p0, p1, p2, p3, mask, FLAT_P)
            softplus = softplus * (1.0 + (pw - 1.0) * y)
        loss = (1.0 - y) * x + softplus
        if HAS_W:
            loss = loss * _load(w_ptr, flat, i0, i1, i2, i3, w0, w1, w2, w3, mask, FLAT_W)
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


def _bce_into(x, target, weight, pos_weight, reduction, out):
    shape = torch.broadcast_shapes(x.shape, target.shape)
    n = math.prod(shape)
    ops = [_operand(x, shape), _operand(target, shape)]
    for extra in (weight, pos_weight):
        ops.append(_operand(extra, shape) if extra is not None else (x, True, (0, 0, 0, 0)))
    sizes = (1,) * (4 - len(shape)) + tuple(shape) if len(shape) <= 4 else (1, 1, 1, n)
    reduce = reduction != NONE
    tiles = triton.cdiv(n, BLOCK)
    programs = min(tiles, MAX_PROGRAMS) if reduce else tiles
    if reduce:
        dest = torch.empty(max(programs, 1), dtype=torch.float64, device=x.device)
    else:
        dest = out if out.is_contiguous() else torch.empty(shape, dtype=out.dtype, device=out.device)
    if programs:
        strides = [s for _, _, st in ops for s in st]
        _bce_kernel[(programs,)](
            ops[0][0], ops[1][0], ops[2][0], ops[3][0], dest, n, sizes[1], sizes[2], sizes[3], *strides,
            FLAT_X=ops[0][1], FLAT_T=ops[1][1], FLAT_W=ops[2][1], FLAT_P=ops[3][1],
            HAS_W=weight is not None, HAS_PW=pos_weight is not None, REDUCE=reduce, BLOCK=BLOCK,
        )
    if reduce:
        _finish_kernel[(1,)](dest, out, programs, n, MEAN=reduction == MEAN,
                             BLOCK=triton.next_power_of_2(MAX_PROGRAMS))
    elif dest is not out:
        out.copy_(dest)
    return out


def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=MEAN):
    shape = torch.broadcast_shapes(self.shape, target.shape) if reduction == NONE else ()
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    return _bce_into(self, target, weight, pos_weight, reduction, out)


def binary_cross_entropy_with_logits_out(self, target, weight=None, pos_weight=None, reduction=MEAN, *, out):
    return _bce_into(self, target, weight, pos_weight, reduction, out)
