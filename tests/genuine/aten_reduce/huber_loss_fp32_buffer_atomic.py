# op: aten::huber_loss
# idiom: torch.broadcast_tensors + .contiguous() on the host, a float32 loss buffer cast to the result on the host (loss.to(self.dtype)); mean/sum by tl.atomic_add of per-chunk float32 sums into torch.zeros, then a one-program kernel divides by n (0 / 0 gives NaN for an empty mean); @triton.heuristics for the mask-free path
"""Huber loss written the straightforward way: flatten, compute, reduce with atomics."""

import torch
import triton
import triton.language as tl

BLOCK = 1024
BLOCKS_PER_PROGRAM = 16


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def _huber_elementwise(x_ptr, y_ptr, loss_ptr, n, delta, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs).to(tl.float32)
        y = tl.load(y_ptr + offs).to(tl.float32)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    diff = x - y
    absdiff = tl.abs(diff)
    quadratic = 0.5 * diff * diff
    linear = delta * (absdiff - 0.5 * delta)
    loss = tl.where(absdiff < delta, quadratic, linear)
    if EVEN:
        tl.store(loss_ptr + offs, loss)
    else:
        tl.store(loss_ptr + offs, loss, mask=offs < n)


@triton.jit
def _huber_sum(x_ptr, y_ptr, acc_ptr, n, delta, BLOCK: tl.constexpr, BLOCKS_PER_PROGRAM: tl.constexpr):
    start = tl.program_id(0) * BLOCK * BLOCKS_PER_PROGRAM
    running = tl.zeros([BLOCK], dtype=tl.float32)
    for b in range(BLOCKS_PER_PROGRAM):
        offs = start + b * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=m, other=0.0).to(tl.float32)
        a = tl.abs(x - y)
        loss = tl.where(a < delta, 0.5 * a * a, delta * (a - 0.5 * delta))
        running += tl.where(m, loss, 0.0)
    tl.atomic_add(acc_ptr, tl.sum(running, axis=0))


@triton.jit
def _finish(acc_ptr, out_ptr, divisor):
    total = tl.load(acc_ptr)
    tl.store(out_ptr, (total / divisor).to(out_ptr.dtype.element_ty))


def _huber(self, target, reduction, delta):
    x, y = torch.broadcast_tensors(self, target)
    x = x.contiguous()
    y = y.contiguous()
    n = x.numel()
    if reduction == 0:
        loss = torch.empty(x.shape, dtype=torch.float32, device=x.device)
        if n > 0:
            _huber_elementwise[(triton.cdiv(n, BLOCK),)](x, y, loss, n, float(delta), BLOCK=BLOCK)
        return loss.to(self.dtype)
    acc = torch.zeros(1, dtype=torch.float32, device=x.device)
    if n > 0:
        grid = (triton.cdiv(n, BLOCK * BLOCKS_PER_PROGRAM),)
        _huber_sum[grid](x, y, acc, n, float(delta), BLOCK=BLOCK, BLOCKS_PER_PROGRAM=BLOCKS_PER_PROGRAM)
    out = torch.empty((), dtype=torch.float32, device=x.device)
    _finish[(1,)](acc, out, float(n) if reduction == 1 else 1.0)
    return out.to(self.dtype)


def huber_loss(self, target, reduction=1, delta=1.0):
    return _huber(self, target, reduction, delta)


def huber_loss_out(self, target, reduction=1, delta=1.0, *, out):
    out.copy_(_huber(self, target, reduction, delta))
    return out
