"""cublasDcopy_v2~negated in Triton: y := -x over BLAS-strided float64 vectors."""

import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, incx, incy, x0, y0, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    k = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = k < n
    tl.store(y_ptr + y0 + k * incy, -tl.load(x_ptr + x0 + k * incx, mask=mask), mask=mask)


def _start(n: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - n) * inc


def cublasDcopy_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    if n <= 0:
        return
    block = 1024
    grid = (triton.cdiv(n, block),)
    _copy_kernel[grid](x, y, n, incx, incy, _start(n, incx), _start(n, incy), BLOCK=block)
