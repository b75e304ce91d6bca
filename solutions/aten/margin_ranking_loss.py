"""aten::margin_ranking_loss in Triton: max(0, -target (input1 - input2) + margin), then reduced.

The host broadcasts the three operands to the loss's shape as views (no copy): an operand laid
out contiguously in that shape is read at the flat index, any other through up to four strides.
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
def _load(ptr, flat, i0, i1, i2, i3, st0, st1, st2, st3, mask, FLAT: tl.constexpr):
    if FLAT:
        offs = flat
    else:
        offs = i0 * st0 + i1 * st1 + i2 * st2 + i3 * st3
    return tl.load(ptr + offs, mask=mask, other=0.0).to(tl.float32)


@triton.jit
def _margin_ranking_kernel(
    a_ptr, b_ptr, t_ptr, out_ptr, n, s1, s2, s3,
    a0, a1, a2, a3, b0, b1, b2, b3, t0, t1, t2, t3, margin,
    FLAT_A: tl.constexpr, FLAT_B: tl.constexpr, FLAT_T: tl.constexpr,
    REDUCE: tl.constexpr, BLOCK: tl.constexpr,
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
        a = _load(a_ptr, flat, i0, i1, i2, i3, a0, a1, a2, a3, mask, FLAT_A)
        b = _load(b_ptr, flat, i0, i1, i2, i3, b0, b1, b2, b3, mask, FLAT_B)
        y = _load(t_ptr, flat, i0, i1, i2, i3, t0, t1, t2, t3, mask, FLAT_T)
        loss = tl.maximum(-y * (a - b) + margin, 0.0)
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


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=MEAN):
    shape = torch.broadcast_shapes(input1.shape, input2.shape, target.shape)
    dtype = torch.promote_types(torch.promote_types(input1.dtype, input2.dtype), target.dtype)
    out = torch.empty(shape if reduction == NONE else (), dtype=dtype, device=input1.device)
    n = math.prod(shape)
    ops = [_operand(t, shape) for t in (input1, input2, target)]
    sizes = (1,) * (4 - len(shape)) + tuple(shape) if len(shape) <= 4 else (1, 1, 1, n)
    reduce = reduction != NONE
    tiles = triton.cdiv(n, BLOCK)
    programs = min(tiles, MAX_PROGRAMS) if reduce else tiles
    dest = torch.empty(max(programs, 1), dtype=torch.float64, device=out.device) if reduce else out
    if programs:
        _margin_ranking_kernel[(programs,)](
            ops[0][0], ops[1][0], ops[2][0], dest, n, sizes[1], sizes[2], sizes[3],
            *ops[0][2], *ops[1][2], *ops[2][2], float(margin),
            FLAT_A=ops[0][1], FLAT_B=ops[1][1], FLAT_T=ops[2][1], REDUCE=reduce, BLOCK=BLOCK,
        )
    if reduce:
        _finish_kernel[(1,)](dest, out, programs, n, MEAN=reduction == MEAN,
                             BLOCK=triton.next_power_of_2(MAX_PROGRAMS))
    return out
