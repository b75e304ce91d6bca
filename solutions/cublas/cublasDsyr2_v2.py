"""cublasDsyr2_v2 in Triton: A := alpha * (x y^T + y x^T) + A on the stored triangle only.

A 2-D grid of tiles over A; the mask keeps every load and store inside the triangle (a tile wholly
outside it touches nothing), so the other triangle is never read or written.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _syr2_kernel(a_ptr, x_ptr, y_ptr, n, lda, incx, incy, x0, y0, alpha: tl.float64,
                 UPPER: tl.constexpr, BLOCK: tl.constexpr):
    pid_r, pid_c = tl.program_id(0), tl.program_id(1)
    rows = pid_r.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    cols = pid_c.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    rmask, cmask = rows < n, cols < n
    xr = tl.load(x_ptr + x0 + rows * incx, mask=rmask, other=0.0)
    yr = tl.load(y_ptr + y0 + rows * incy, mask=rmask, other=0.0)
    xc = tl.load(x_ptr + x0 + cols * incx, mask=cmask, other=0.0)
    yc = tl.load(y_ptr + y0 + cols * incy, mask=cmask, other=0.0)
    if UPPER:
        tri = rows[:, None] <= cols[None, :]
    else:
        tri = rows[:, None] >= cols[None, :]
    mask = rmask[:, None] & cmask[None, :] & tri
    ptrs = a_ptr + rows[:, None] + cols[None, :] * lda
    a = tl.load(ptrs, mask=mask, other=0.0)
    upd = xr[:, None] * yc[None, :] + yr[:, None] * xc[None, :]
    tl.store(ptrs, a + alpha * upd, mask=mask)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def cublasDsyr2_v2(uplo, n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                   A: torch.Tensor, lda: int) -> None:
    upper = (uplo.upper() == "U") if isinstance(uplo, str) else int(uplo) == 1
    if n <= 0 or alpha == 0:
        return
    block = 64
    grid = (triton.cdiv(n, block), triton.cdiv(n, block))
    _syr2_kernel[grid](A, x, y, n, lda, incx, incy, _start(n, incx), _start(n, incy), float(alpha),
                       UPPER=upper, BLOCK=block)
