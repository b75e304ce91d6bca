"""cublasDasum_v2~squares in Triton: the sum of x[k]^2.

Two passes, deterministic: a bounded number of programs each stride over the vector keeping one
float64 partial per lane, reduce it to one value per program; a single program then sums those.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024
MAX_PROGRAMS = 512


@triton.jit
def _asum_partials(x_ptr, part_ptr, n, incx, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    acc = tl.zeros([BLOCK], dtype=tl.float64)
    for base in range(pid.to(tl.int64) * BLOCK, n, step):
        k = base + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + k * incx, mask=k < n, other=0.0)
        acc += v * v
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _sum_partials(part_ptr, out_ptr, count, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float64)
    for i in range(0, count, BLOCK):
        idx = i + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + idx, mask=idx < count, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def cublasDasum_v2(n: int, x: torch.Tensor, incx: int, result: torch.Tensor) -> None:
    # Reference BLAS and cuBLAS: the sum is 0 for n <= 0 or a non-positive increment.
    if n <= 0 or incx <= 0:
        result.zero_()
        return
    programs = min(triton.cdiv(n, BLOCK), MAX_PROGRAMS)
    partials = torch.empty(programs, dtype=torch.float64, device=result.device)
    _asum_partials[(programs,)](x, partials, n, incx, BLOCK=BLOCK)
    _sum_partials[(1,)](partials, result, programs, BLOCK=BLOCK)
