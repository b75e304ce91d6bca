"""cublasCdotu_v2 in Triton: sum_k x[k] * y[k] over BLAS-strided complex64 vectors given as interleaved float32.

The (re, im) result stays on the device. Two passes, deterministic: a bounded number of programs
each stride over the vectors keeping per-lane float32 partials of both parts and reduce them to one
pair per program; a single program then sums the pairs into result[0], result[1].
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
    acc_re = tl.zeros([BLOCK], dtype=tl.float32)
    acc_im = tl.zeros([BLOCK], dtype=tl.float32)
    for base in range(pid.to(tl.int64) * BLOCK, n, step):
        k = base + tl.arange(0, BLOCK)
        mask = k < n
        xo = 2 * (x0 + k * incx)
        yo = 2 * (y0 + k * incy)
        xr = tl.load(x_ptr + xo, mask=mask, other=0.0)
        xi = tl.load(x_ptr + xo + 1, mask=mask, other=0.0)
        yr = tl.load(y_ptr + yo, mask=mask, other=0.0)
        yi = tl.load(y_ptr + yo + 1, mask=mask, other=0.0)
        acc_re += xr * yr - xi * yi
        acc_im += xr * yi + xi * yr
    tl.store(part_ptr + 2 * pid, tl.sum(acc_re, axis=0))
    tl.store(part_ptr + 2 * pid + 1, tl.sum(acc_im, axis=0))


@triton.jit
def _sum_partials(part_ptr, out_ptr, count, BLOCK: tl.constexpr):
    acc_re = tl.zeros([BLOCK], dtype=tl.float32)
    acc_im = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, count, BLOCK):
        idx = i + tl.arange(0, BLOCK)
        mask = idx < count
        acc_re += tl.load(part_ptr + 2 * idx, mask=mask, other=0.0)
        acc_im += tl.load(part_ptr + 2 * idx + 1, mask=mask, other=0.0)
    tl.store(out_ptr, tl.sum(acc_re, axis=0))
    tl.store(out_ptr + 1, tl.sum(acc_im, axis=0))


def _start(n: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - n) * inc


def cublasCdotu_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int, result: torch.Tensor) -> None:
    if n <= 0:
        result.zero_()
        return
    programs = min(triton.cdiv(n, BLOCK), MAX_PROGRAMS)
    partials = torch.empty(2 * programs, dtype=torch.float32, device=result.device)
    _dot_partials[(programs,)](x, y, partials, n, incx, incy, _start(n, incx), _start(n, incy), BLOCK=BLOCK)
    _sum_partials[(1,)](partials, result, programs, BLOCK=BLOCK)
