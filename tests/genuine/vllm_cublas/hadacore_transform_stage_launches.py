# op: vllm::hadacore_transform
# idiom: one launch per butterfly stage over a float32 copy, each program pairs element i with i + h on a flat 1-D grid, a last launch scales and casts into the output

"""Walsh-Hadamard by stages: log2(n) flat launches, each doing every butterfly of one stride."""

import math

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def butterfly(buf, half_total, h, BLOCK: tl.constexpr):
    k = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = k < half_total
    lo = (k // h) * (2 * h) + k % h
    a = tl.load(buf + lo, mask=live)
    b = tl.load(buf + lo + h, mask=live)
    tl.store(buf + lo, a + b, mask=live)
    tl.store(buf + lo + h, a - b, mask=live)


@triton.jit
def finish(buf, out, total, scale, BLOCK: tl.constexpr):
    k = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = k < total
    v = tl.load(buf + k, mask=live)
    tl.store(out + k, (v * scale).to(out.dtype.element_ty), mask=live)


def hadacore_transform(x, inplace=True):
    n = x.shape[-1]
    work = x.to(torch.float32).contiguous()
    total = work.numel()
    h = 1
    while h < n:  # pairs never straddle rows: n is a power of two and h < n
        butterfly[(triton.cdiv(total // 2, BLOCK),)](work, total // 2, h, BLOCK=BLOCK)
        h *= 2
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    finish[(triton.cdiv(total, BLOCK),)](work, out, total, 1.0 / math.sqrt(n), BLOCK=BLOCK)
    if inplace:
        x.copy_(out)
        return x
    return out
