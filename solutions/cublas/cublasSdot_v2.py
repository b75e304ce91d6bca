"""cublasSdot_v2 in Triton: sum_k x[k] * y[k] over BLAS-strided float32 vectors, left on the device.

Two passes, deterministic: a bounded number of programs each stride over the vector keeping one
float32 partial per lane, reduce it to one value per program; a single program then sums those.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024
MAX_PROGRAMS = 512


@triton.jit
def _dot_partials(x_ptr, y_ptr, part_ptr, n, incx, incy, x0, y0, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for base in range(pid.to(tl.int64) * BLOCK, n, step):
        k = base + tl.arange(0, BLOCK)
        mask = k < n
        x = tl.load(x_ptr + x0 + k * incx, mask=mask, other=0.0)
        y = tl.load(y_ptr + y0 + k * incy, mask=mask, other=0.0)
        acc += x * y
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _sum_partials(part_ptr, out_ptr, count, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, count, BLOCK):
        idx = i + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + idx, mask=idx < count, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def _start(n: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - n) * inc


def cublasSdot_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int, result: torch.Tensor) -> None:
    if n <= 0:
        result.zero_()
        return
    programs = min(triton.cdiv(n, BLOCK), MAX_PROGRAMS)
    partials = torch.empty(programs, dtype=torch.float32, device=result.device)
    _dot_partials[(programs,)](x, y, partials, n, incx, incy, _start(n, incx), _start(n, incy), BLOCK=BLOCK)
    _sum_partials[(1,)](partials, result, programs, BLOCK=BLOCK)
