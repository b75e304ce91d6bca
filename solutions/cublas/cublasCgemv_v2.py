"""cublasCgemv_v2 in Triton: y := alpha * op(A) @ x + beta * y over complex64 given as interleaved float32.

Two kernels, each streaming A along its contiguous (row) direction: for op = N every program owns
a block of rows of y and walks the columns; for T/C every program owns a block of columns and walks
the rows, negating the imaginary part of A for the conjugate transpose. Real and imaginary partial
products stay in 2-D register tiles and are reduced once at the end.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_n_kernel(a_ptr, x_ptr, y_ptr, m, n, lda, stride_a, incx, stride_x, x0, incy, stride_y, y0,
                   alpha_re, alpha_im, beta_re, beta_im,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ALPHA_ZERO: tl.constexpr, BETA_ZERO: tl.constexpr):
    batch = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < m
    part_re = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    part_im = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if not ALPHA_ZERO:
        for j0 in range(0, n, BLOCK_N):
            cols = j0 + tl.arange(0, BLOCK_N).to(tl.int64)
            cmask = cols < n
            a_idx = 2 * (batch * stride_a + rows[:, None] + cols[None, :] * lda)
            amask = rmask[:, None] & cmask[None, :]
            a_re = tl.load(a_ptr + a_idx, mask=amask, other=0.0)
            a_im = tl.load(a_ptr + a_idx + 1, mask=amask, other=0.0)
            x_idx = 2 * (batch * stride_x + x0 + cols * incx)
            x_re = tl.load(x_ptr + x_idx, mask=cmask, other=0.0)[None, :]
            x_im = tl.load(x_ptr + x_idx + 1, mask=cmask, other=0.0)[None, :]
            part_re += a_re * x_re - a_im * x_im
            part_im += a_re * x_im + a_im * x_re
    s_re = tl.sum(part_re, axis=1)
    s_im = tl.sum(part_im, axis=1)
    out_re = alpha_re * s_re - alpha_im * s_im
    out_im = alpha_re * s_im + alpha_im * s_re
    y_idx = 2 * (batch * stride_y + y0 + rows * incy)
    if not BETA_ZERO:
        y_re = tl.load(y_ptr + y_idx, mask=rmask, other=0.0)
        y_im = tl.load(y_ptr + y_idx + 1, mask=rmask, other=0.0)
        out_re += beta_re * y_re - beta_im * y_im
        out_im += beta_re * y_im + beta_im * y_re
    tl.store(y_ptr + y_idx, out_re, mask=rmask)
    tl.store(y_ptr + y_idx + 1, out_im, mask=rmask)


@triton.jit
def _gemv_t_kernel(a_ptr, x_ptr, y_ptr, m, n, lda, stride_a, incx, stride_x, x0, incy, stride_y, y0,
                   alpha_re, alpha_im, beta_re, beta_im,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CONJ: tl.constexpr, ALPHA_ZERO: tl.constexpr,
                   BETA_ZERO: tl.constexpr):
    batch = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < n
    part_re = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    part_im = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if not ALPHA_ZERO:
        for i0 in range(0, m, BLOCK_M):
            rows = i0 + tl.arange(0, BLOCK_M).to(tl.int64)
            rmask = rows < m
            a_idx = 2 * (batch * stride_a + rows[:, None] + cols[None, :] * lda)
            amask = rmask[:, None] & cmask[None, :]
            a_re = tl.load(a_ptr + a_idx, mask=amask, other=0.0)
            a_im = tl.load(a_ptr + a_idx + 1, mask=amask, other=0.0)
            if CONJ:
                a_im = -a_im
            x_idx = 2 * (batch * stride_x + x0 + rows * incx)
            x_re = tl.load(x_ptr + x_idx, mask=rmask, other=0.0)[:, None]
            x_im = tl.load(x_ptr + x_idx + 1, mask=rmask, other=0.0)[:, None]
            part_re += a_re * x_re - a_im * x_im
            part_im += a_re * x_im + a_im * x_re
    s_re = tl.sum(part_re, axis=0)
    s_im = tl.sum(part_im, axis=0)
    out_re = alpha_re * s_re - alpha_im * s_im
    out_im = alpha_re * s_im + alpha_im * s_re
    y_idx = 2 * (batch * stride_y + y0 + cols * incy)
    if not BETA_ZERO:
        y_re = tl.load(y_ptr + y_idx, mask=cmask, other=0.0)
        y_im = tl.load(y_ptr + y_idx + 1, mask=cmask, other=0.0)
        out_re += beta_re * y_re - beta_im * y_im
        out_im += beta_re * y_im + beta_im * y_re
    tl.store(y_ptr + y_idx, out_re, mask=cmask)
    tl.store(y_ptr + y_idx + 1, out_im, mask=cmask)


def _op(trans) -> int:
    if isinstance(trans, str):
        return {"N": 0, "T": 1, "C": 2}[trans.upper()]
    return int(trans)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def _launch(trans, m, n, alpha, A, lda, stride_a, x, incx, stride_x, beta, y, incy, stride_y, batch):
    alpha, beta = complex(alpha), complex(beta)
    if m <= 0 or n <= 0 or batch <= 0 or (alpha == 0 and beta == 1):
        return
    op = _op(trans)
    scalars = (alpha.real, alpha.imag, beta.real, beta.imag)
    flags = dict(ALPHA_ZERO=alpha == 0, BETA_ZERO=beta == 0)
    if op == 0:
        block_m, block_n = 32, 64
        grid = (triton.cdiv(m, block_m), batch)
        _gemv_n_kernel[grid](A, x, y, m, n, lda, stride_a, incx, stride_x, _start(n, incx), incy, stride_y,
                             _start(m, incy), *scalars, BLOCK_M=block_m, BLOCK_N=block_n, **flags)
    else:
        block_m, block_n = 64, 32
        grid = (triton.cdiv(n, block_n), batch)
        _gemv_t_kernel[grid](A, x, y, m, n, lda, stride_a, incx, stride_x, _start(m, incx), incy, stride_y,
                             _start(n, incy), *scalars, BLOCK_M=block_m, BLOCK_N=block_n, CONJ=op == 2, **flags)


def cublasCgemv_v2(trans, m: int, n: int, alpha: complex, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int,
                   beta: complex, y: torch.Tensor, incy: int) -> None:
    _launch(trans, m, n, alpha, A, lda, 0, x, incx, 0, beta, y, incy, 0, 1)
