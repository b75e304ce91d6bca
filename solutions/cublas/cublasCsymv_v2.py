"""cublasCsymv_v2 in Triton: y := alpha * A @ x + beta * y, A complex symmetric (one triangle stored).

Complex64 arrives as interleaved float32, so the arithmetic is done on (re, im) pairs by hand. Every
program owns a block of rows of y and walks the columns; each element of the tile is read from the
stored triangle, either at (i, j) or at its mirror (j, i) (symmetric: no conjugation), so the other
triangle is never touched. Partial products stay in 2-D register tiles, reduced once at the end.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _symv_kernel(a_ptr, x_ptr, y_ptr, n, lda, incx, x0, incy, y0, alpha_re, alpha_im, beta_re, beta_im,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, UPPER: tl.constexpr, ALPHA_ZERO: tl.constexpr,
                 BETA_ZERO: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n
    part_re = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    part_im = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if not ALPHA_ZERO:
        for j0 in range(0, n, BLOCK_N):
            cols = j0 + tl.arange(0, BLOCK_N).to(tl.int64)
            cmask = cols < n
            if UPPER:
                stored = rows[:, None] <= cols[None, :]
            else:
                stored = rows[:, None] >= cols[None, :]
            a_idx = 2 * tl.where(stored, rows[:, None] + cols[None, :] * lda, cols[None, :] + rows[:, None] * lda)
            amask = rmask[:, None] & cmask[None, :]
            a_re = tl.load(a_ptr + a_idx, mask=amask, other=0.0)
            a_im = tl.load(a_ptr + a_idx + 1, mask=amask, other=0.0)
            x_idx = 2 * (x0 + cols * incx)
            x_re = tl.load(x_ptr + x_idx, mask=cmask, other=0.0)[None, :]
            x_im = tl.load(x_ptr + x_idx + 1, mask=cmask, other=0.0)[None, :]
            part_re += a_re * x_re - a_im * x_im
            part_im += a_re * x_im + a_im * x_re
    s_re = tl.sum(part_re, axis=1)
    s_im = tl.sum(part_im, axis=1)
    out_re = alpha_re * s_re - alpha_im * s_im
    out_im = alpha_re * s_im + alpha_im * s_re
    y_idx = 2 * (y0 + rows * incy)
    if not BETA_ZERO:
        y_re = tl.load(y_ptr + y_idx, mask=rmask, other=0.0)
        y_im = tl.load(y_ptr + y_idx + 1, mask=rmask, other=0.0)
        out_re += beta_re * y_re - beta_im * y_im
        out_im += beta_re * y_im + beta_im * y_re
    tl.store(y_ptr + y_idx, out_re, mask=rmask)
    tl.store(y_ptr + y_idx + 1, out_im, mask=rmask)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def cublasCsymv_v2(uplo, n: int, alpha: complex, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int,
                   beta: complex, y: torch.Tensor, incy: int) -> None:
    alpha, beta = complex(alpha), complex(beta)
    if n <= 0 or (alpha == 0 and beta == 1):
        return
    upper = (uplo.upper() == "U") if isinstance(uplo, str) else int(uplo) == 1
    block_m, block_n = 32, 64
    _symv_kernel[(triton.cdiv(n, block_m),)](
        A, x, y, n, lda, incx, _start(n, incx), incy, _start(n, incy), alpha.real, alpha.imag, beta.real,
        beta.imag, BLOCK_M=block_m, BLOCK_N=block_n, UPPER=upper, ALPHA_ZERO=alpha == 0, BETA_ZERO=beta == 0)
