"""cublasZgerc_v2 in Triton: A := alpha * x @ y^H + A (y conjugated) over complex128 given as interleaved float64.

A 2-D grid of tiles of A: each program loads its slices of x and y once, scales x by alpha, negates
y's imaginary part, and updates its tile in place; rows past m (the lda padding) are masked off.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ger_kernel(x_ptr, y_ptr, a_ptr, m, n, lda, incx, x0, incy, y0, alpha_re: tl.float64, alpha_im: tl.float64,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CONJ: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < m
    cmask = cols < n
    x_idx = 2 * (x0 + rows * incx)
    x_re = tl.load(x_ptr + x_idx, mask=rmask, other=0.0)
    x_im = tl.load(x_ptr + x_idx + 1, mask=rmask, other=0.0)
    # alpha * x first: one complex product per row instead of one per element
    ax_re = (alpha_re * x_re - alpha_im * x_im)[:, None]
    ax_im = (alpha_re * x_im + alpha_im * x_re)[:, None]
    y_idx = 2 * (y0 + cols * incy)
    y_re = tl.load(y_ptr + y_idx, mask=cmask, other=0.0)[None, :]
    y_im = tl.load(y_ptr + y_idx + 1, mask=cmask, other=0.0)[None, :]
    if CONJ:
        y_im = -y_im
    a_idx = 2 * (rows[:, None] + cols[None, :] * lda)
    amask = rmask[:, None] & cmask[None, :]
    a_re = tl.load(a_ptr + a_idx, mask=amask)
    a_im = tl.load(a_ptr + a_idx + 1, mask=amask)
    tl.store(a_ptr + a_idx, a_re + (ax_re * y_re - ax_im * y_im), mask=amask)
    tl.store(a_ptr + a_idx + 1, a_im + (ax_re * y_im + ax_im * y_re), mask=amask)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def _launch(m, n, alpha, x, incx, y, incy, A, lda, conj):
    alpha = complex(alpha)
    if m <= 0 or n <= 0 or alpha == 0:
        return
    block_m, block_n = 64, 64
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    _ger_kernel[grid](x, y, A, m, n, lda, incx, _start(m, incx), incy, _start(n, incy), alpha.real, alpha.imag,
                      BLOCK_M=block_m, BLOCK_N=block_n, CONJ=conj)


def cublasZgerc_v2(m: int, n: int, alpha: complex, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                   A: torch.Tensor, lda: int) -> None:
    _launch(m, n, alpha, x, incx, y, incy, A, lda, conj=True)
