"""cublasDsbmv_v2 in Triton: y := alpha * A @ x + beta * y, A symmetric band in BLAS band storage.

Each program owns a block of rows of y and walks the 2k+1 diagonals in tiles. Symmetry means
element (i, j) is read from whichever of (i, j) and (j, i) lies in the stored triangle: for upper
storage A[k - |j-i| + max(i, j)*lda], for lower A[|j-i| + min(i, j)*lda]. Only band positions
inside the matrix are loaded.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sbmv_kernel(a_ptr, x_ptr, y_ptr, n, k, lda, incx, incy, x0, y0, alpha: tl.float64, beta: tl.float64,
                 UPPER: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr, ALPHA_ZERO: tl.constexpr,
                 BETA_ZERO: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < n
    part = tl.zeros([BLOCK_R, BLOCK_D], dtype=tl.float64)
    if not ALPHA_ZERO:
        for d0 in range(-k, k + 1, BLOCK_D):
            d = d0 + tl.arange(0, BLOCK_D).to(tl.int64)
            cols = rows[:, None] + d[None, :]
            mask = rmask[:, None] & (d[None, :] <= k) & (cols >= 0) & (cols < n)
            dist = tl.abs(d)[None, :]
            if UPPER:
                off = k - dist + tl.maximum(rows[:, None], cols) * lda
            else:
                off = dist + tl.minimum(rows[:, None], cols) * lda
            a = tl.load(a_ptr + off, mask=mask, other=0.0)
            xv = tl.load(x_ptr + x0 + cols * incx, mask=mask, other=0.0)
            part += a * xv
    out = alpha * tl.sum(part, axis=1)
    y_idx = y0 + rows * incy
    if not BETA_ZERO:
        out += beta * tl.load(y_ptr + y_idx, mask=rmask, other=0.0)
    tl.store(y_ptr + y_idx, out, mask=rmask)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def cublasDsbmv_v2(uplo, n: int, k: int, alpha: float, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int,
                   beta: float, y: torch.Tensor, incy: int) -> None:
    upper = (uplo.upper() == "U") if isinstance(uplo, str) else int(uplo) == 1
    if n <= 0 or (alpha == 0 and beta == 1):
        return
    block_d = min(64, triton.next_power_of_2(2 * k + 1))
    block_r = 64
    _sbmv_kernel[(triton.cdiv(n, block_r),)](
        A, x, y, n, k, lda, incx, incy, _start(n, incx), _start(n, incy), float(alpha), float(beta),
        UPPER=upper, BLOCK_R=block_r, BLOCK_D=block_d, ALPHA_ZERO=alpha == 0, BETA_ZERO=beta == 0)
