"""cublasSger_v2~relu in Triton: A := max(alpha * x @ y^T + A, 0), A column-major, BLAS-strided x and y.

A 2-D grid of tiles, each tile's rows running along A's contiguous direction; x and y are read
once per tile, so the update streams A exactly once.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ger_kernel(a_ptr, x_ptr, y_ptr, m, n, lda, incx, incy, x0, y0, alpha,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask, cmask = rows < m, cols < n
    x = tl.load(x_ptr + x0 + rows * incx, mask=rmask, other=0.0)
    y = tl.load(y_ptr + y0 + cols * incy, mask=cmask, other=0.0)
    ptrs = a_ptr + rows[:, None] + cols[None, :] * lda
    mask = rmask[:, None] & cmask[None, :]
    a = tl.load(ptrs, mask=mask, other=0.0)
    tl.store(ptrs, tl.maximum(a + (alpha * x)[:, None] * y[None, :], 0.0), mask=mask)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def cublasSger_v2(m: int, n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                  A: torch.Tensor, lda: int) -> None:
    if m <= 0 or n <= 0:
        return
    block_m, block_n = 64, 64
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    _ger_kernel[grid](A, x, y, m, n, lda, incx, incy, _start(m, incx), _start(n, incy), float(alpha),
                      BLOCK_M=block_m, BLOCK_N=block_n)
