"""cublasDaxpy_v2~swapped in Triton: y := x + alpha * y over BLAS-strided float64 vectors, in place."""

import torch
import triton
import triton.language as tl


@triton.jit
def _axpy_kernel(x_ptr, y_ptr, n, alpha: tl.float64, incx, incy, x0, y0, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    k = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = k < n
    xi = x0 + k * incx
    yi = y0 + k * incy
    x = tl.load(x_ptr + xi, mask=mask)
    y = tl.load(y_ptr + yi, mask=mask)
    tl.store(y_ptr + yi, x + alpha * y, mask=mask)


def _start(n: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - n) * inc


def cublasDaxpy_v2(n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    if n <= 0:
        return
    block = 1024
    grid = (triton.cdiv(n, block),)
    _axpy_kernel[grid](x, y, n, float(alpha), incx, incy, _start(n, incx), _start(n, incy), BLOCK=block)
