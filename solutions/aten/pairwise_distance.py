"""aten::pairwise_distance in Triton: the p-norm of x1 - x2 + eps over the last dim.

The host broadcasts x1 and x2 to one shape and views both as (rows, d) (a copy only where a
broadcast or layout cannot be viewed so). One kernel takes BLOCK_R rows per program and walks
d in BLOCK_D chunks, keeping per-lane float32 partials of the norm picked by MODE:
  0: p = 0, the count of non-zero differences;  1: sum |v|;  2: sqrt(sum v^2);
  3: p = inf, max |v|;  4: any other p, (sum |v|^p)^(1/p) with |v|^p = exp2(p log2 |v|);
  5: p = -inf, min |v|.
"""

import math

import torch
import triton
import triton.language as tl

TILE = 4096  # elements per program per step


@triton.jit
def _pairwise_kernel(
    a_ptr, b_ptr, out_ptr, rows, d, a_sr, a_sd, b_sr, b_sd, p, eps,
    MODE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr,
):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    r_mask = r < rows
    a_rows = a_ptr + r.to(tl.int64)[:, None] * a_sr
    b_rows = b_ptr + r.to(tl.int64)[:, None] * b_sr
    if MODE == 5:
        acc = tl.full([BLOCK_R, BLOCK_D], float("inf"), tl.float32)
    else:
        acc = tl.zeros([BLOCK_R, BLOCK_D], tl.float32)
    for d0 in range(0, d, BLOCK_D):
        c = d0 + tl.arange(0, BLOCK_D)
        mask = r_mask[:, None] & (c < d)[None, :]
        a = tl.load(a_rows + c[None, :] * a_sd, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_rows + c[None, :] * b_sd, mask=mask, other=0.0).to(tl.float32)
        v = tl.abs(a - b + eps)
        if MODE == 0:
            acc += tl.where(mask & (v != 0.0), 1.0, 0.0)
        elif MODE == 1:
            acc += tl.where(mask, v, 0.0)
        elif MODE == 2:
            acc += tl.where(mask, v * v, 0.0)
        elif MODE == 3:
            acc = tl.maximum(acc, tl.where(mask, v, 0.0))
        elif MODE == 4:
            acc += tl.where(mask, tl.exp2(p * tl.log2(v)), 0.0)
        else:
            acc = tl.minimum(acc, tl.where(mask, v, float("inf")))
    if MODE == 3:
        norm = tl.max(acc, axis=1)
    elif MODE == 5:
        norm = tl.min(acc, axis=1)
    else:
        norm = tl.sum(acc, axis=1)
    if MODE == 2:
        norm = tl.sqrt(norm)
    elif MODE == 4:
        norm = tl.exp2(tl.log2(norm) / p)
    tl.store(out_ptr + r, norm.to(out_ptr.dtype.element_ty), mask=r_mask)


def _mode(p):
    if p == 0:
        return 0
    if p == 1:
        return 1
    if p == 2:
        return 2
    if p == math.inf:
        return 3
    if p == -math.inf:
        return 5
    return 4


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    shape = torch.broadcast_shapes(x1.shape, x2.shape)
    if not shape:
        shape = (1,)
    d = shape[-1]
    rows = math.prod(shape[:-1])
    if d == 0 and abs(p) == math.inf:
        raise RuntimeError("pairwise_distance: the inf norm of an empty dimension is undefined")
    out_shape = shape[:-1] + ((1,) if keepdim else ())
    if x1.dim() == 0 and x2.dim() == 0:
        out_shape = ()
    out = torch.empty(out_shape, dtype=torch.promote_types(x1.dtype, x2.dtype), device=x1.device)
    if rows == 0:
        return out
    a = x1.expand(shape).reshape(rows, d)
    b = x2.expand(shape).reshape(rows, d)
    block_d = min(triton.next_power_of_2(max(d, 1)), 1024)
    block_r = min(triton.next_power_of_2(rows), max(1, TILE // block_d))
    _pairwise_kernel[(triton.cdiv(rows, block_r),)](
        a, b, out, rows, d, a.stride(0), a.stride(1), b.stride(0), b.stride(1), float(p), float(eps),
        MODE=_mode(p), BLOCK_R=block_r, BLOCK_D=block_d,
        num_warps=8 if block_r * block_d >= 4096 else 4,
    )
    return out
