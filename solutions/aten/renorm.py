"""aten::renorm in Triton: scale each sub-tensor x.select(dim, j) whose p-norm exceeds `maxnorm`
by maxnorm / (norm + 1e-7), and leave the others unchanged (ATen's formula).

The host views input and output as (outer, n, inner) with strides, n being `dim`. A program owns
BLOCK_J consecutive sub-tensors j: a first loop over the (outer * inner) elements of each
accumulates its norm (sum |x|^p, sum |x|, sum x^2 or max |x|) in float32 (float64 for float64
input), a second loop writes the scaled values, rounded once at the store.
"""

import torch
import triton
import triton.language as tl

TILE = 4096  # elements per program per loop step


@triton.jit
def _renorm_kernel(x_ptr, out_ptr, n, inner, count, x_so, x_sn, x_si, o_so, o_sn, o_si, p, maxnorm,
                   MODE: tl.constexpr, ACC: tl.constexpr, TINY: tl.constexpr,
                   BLOCK_J: tl.constexpr, BLOCK_T: tl.constexpr):
    """MODE: 0 general p, 1 p == 1, 2 p == 2, 3 p == inf. A tile is (BLOCK_T elements, BLOCK_J slices).
    |a|^p = exp(p log |a|) with |a| clamped to TINY, a normal number of ACC, so log stays finite."""
    js = tl.program_id(0) * BLOCK_J + tl.arange(0, BLOCK_J)
    j_mask = (js < n)[None, :]
    jx = js.to(tl.int64)[None, :] * x_sn
    jo = js.to(tl.int64)[None, :] * o_sn
    ts = tl.arange(0, BLOCK_T)[:, None]
    acc = tl.zeros([BLOCK_T, BLOCK_J], ACC)
    for t0 in range(0, count, BLOCK_T):
        t = (t0 + ts).to(tl.int64)
        mask = (t < count) & j_mask
        a = tl.abs(tl.load(x_ptr + (t // inner) * x_so + (t % inner) * x_si + jx, mask=mask, other=0.0).to(ACC))
        if MODE == 1:
            acc += a
        elif MODE == 2:
            acc += a * a
        elif MODE == 3:
            acc = tl.maximum(acc, a)
        else:
            acc += tl.where(a > 0, tl.exp(p * tl.log(tl.maximum(a, TINY))), 0.0)
    if MODE == 3:
        norm = tl.max(acc, axis=0)
    else:
        s = tl.sum(acc, axis=0)
        if MODE == 1:
            norm = s
        elif MODE == 2:
            norm = tl.sqrt(s)
        else:
            norm = tl.where(s > 0, tl.exp(tl.log(tl.maximum(s, TINY)) / p), 0.0)
    factor = tl.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)[None, :]
    for t0 in range(0, count, BLOCK_T):
        t = (t0 + ts).to(tl.int64)
        mask = (t < count) & j_mask
        x = tl.load(x_ptr + (t // inner) * x_so + (t % inner) * x_si + jx, mask=mask, other=0.0).to(ACC)
        tl.store(out_ptr + (t // inner) * o_so + (t % inner) * o_si + jo,
                 (x * factor).to(out_ptr.dtype.element_ty), mask=mask)


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


def _renorm_into(x, p, dim, maxnorm, out):
    if x.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {x.dim()} dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError("renorm: expected maxnorm to be >= 0")
    dim %= x.dim()
    if x.numel() == 0:
        return out
    x_view = _view3(x, dim)
    if x_view is None:
        x = x.contiguous()
        x_view = _view3(x, dim)
    target = out if _view3(out, dim) is not None else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    (outer, x_so), (n, x_sn), (inner, x_si) = x_view
    (_, o_so), (_, o_sn), (_, o_si) = _view3(target, dim)
    count = outer * inner
    p = float(p)
    mode = 3 if p == float("inf") else {1.0: 1, 2.0: 2}.get(p, 0)
    block_j = min(triton.next_power_of_2(n), 32 if inner == 1 else 1)  # slices side by side when contiguous
    block_t = min(triton.next_power_of_2(count), max(1, TILE // block_j))
    _renorm_kernel[(triton.cdiv(n, block_j),)](
        x, target, n, inner, count, x_so, x_sn, x_si, o_so, o_sn, o_si, p, float(maxnorm),
        MODE=mode, ACC=tl.float64 if x.dtype == torch.float64 else tl.float32,
        TINY=1e-300 if x.dtype == torch.float64 else 1e-30,
        BLOCK_J=block_j, BLOCK_T=block_t, num_warps=8,
    )
    if target is not out:
        out.copy_(target)
    return out


def renorm(self, p, dim, maxnorm):
    return _renorm_into(self, p, dim, maxnorm, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def renorm_out(self, p, dim, maxnorm, *, out):
    return _renorm_into(self, p, dim, maxnorm, out)
