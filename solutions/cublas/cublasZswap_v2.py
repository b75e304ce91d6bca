"""cublasZswap_v2 in Triton: x <-> y between BLAS-strided complex128 vectors given as interleaved float64.

Each complex element is a (re, im) pair of adjacent doubles, so a program exchanges [BLOCK, 2]
tiles: element k of x starts at double 2 * (x0 + k * incx).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _zswap_kernel(x_ptr, y_ptr, n, incx, incy, x0, y0, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    k = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    part = tl.arange(0, 2)
    mask = (k < n)[:, None] & (part < 2)[None, :]
    xi = 2 * (x0 + k * incx)[:, None] + part[None, :]
    yi = 2 * (y0 + k * incy)[:, None] + part[None, :]
    x = tl.load(x_ptr + xi, mask=mask)
    y = tl.load(y_ptr + yi, mask=mask)
    tl.store(x_ptr + xi, y, mask=mask)
    tl.store(y_ptr + yi, x, mask=mask)


def _start(n: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - n) * inc


def cublasZswap_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    if n <= 0:
        return
    block = 512
    grid = (triton.cdiv(n, block),)
    _zswap_kernel[grid](x, y, n, incx, incy, _start(n, incx), _start(n, incy), BLOCK=block)
