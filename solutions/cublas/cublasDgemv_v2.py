"""cublasDgemv_v2 in Triton: y := alpha * op(A) @ x + beta * y, A column-major, BLAS-strided x and y.

Two kernels, each streaming A along its contiguous (row) direction: for op = N every program owns
a block of rows of y and walks the columns; for op = T/C every program owns a block of columns and
walks the rows. Partial products stay in a 2-D register tile and are reduced once at the end.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_n_kernel(a_ptr, x_ptr, y_ptr, m, n, lda, incx, incy, x0, y0, alpha: tl.float64, beta: tl.float64,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ALPHA_ZERO: tl.constexpr,
                   BETA_ZERO: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < m
    part = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float64)
    if not ALPHA_ZERO:
        for j0 in range(0, n, BLOCK_N):
            cols = j0 + tl.arange(0, BLOCK_N).to(tl.int64)
            cmask = cols < n
            a = tl.load(a_ptr + rows[:, None] + cols[None, :] * lda, mask=rmask[:, None] & cmask[None, :], other=0.0)
            x = tl.load(x_ptr + x0 + cols * incx, mask=cmask, other=0.0)
            part += a * x[None, :]
    out = alpha * tl.sum(part, axis=1)
    y_idx = y0 + rows * incy
    if not BETA_ZERO:
        out += beta * tl.load(y_ptr + y_idx, mask=rmask, other=0.0)
    tl.store(y_ptr + y_idx, out, mask=rmask)


@triton.jit
def _gemv_t_kernel(a_ptr, x_ptr, y_ptr, m, n, lda, incx, incy, x0, y0, alpha: tl.float64, beta: tl.float64,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ALPHA_ZERO: tl.constexpr,
                   BETA_ZERO: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < n
    part = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float64)
    if not ALPHA_ZERO:
        for i0 in range(0, m, BLOCK_M):
            rows = i0 + tl.arange(0, BLOCK_M).to(tl.int64)
            rmask = rows < m
            a = tl.load(a_ptr + rows[:, None] + cols[None, :] * lda, mask=rmask[:, None] & cmask[None, :], other=0.0)
            x = tl.load(x_ptr + x0 + rows * incx, mask=rmask, other=0.0)
            part += a * x[:, None]
    out = alpha * tl.sum(part, axis=0)
    y_idx = y0 + cols * incy
    if not BETA_ZERO:
        out += beta * tl.load(y_ptr + y_idx, mask=cmask, other=0.0)
    tl.store(y_ptr + y_idx, out, mask=cmask)


def _op(trans) -> int:
    if isinstance(trans, str):
        return {"N": 0, "T": 1, "C": 2}[trans.upper()]
    return int(trans)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def cublasDgemv_v2(trans, m: int, n: int, alpha: float, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int,
                   beta: float, y: torch.Tensor, incy: int) -> None:
    op = _op(trans)
    if m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return
    flags = dict(ALPHA_ZERO=alpha == 0, BETA_ZERO=beta == 0)
    if op == 0:
        block_m, block_n = 32, 128
        grid = (triton.cdiv(m, block_m),)
        _gemv_n_kernel[grid](A, x, y, m, n, lda, incx, incy, _start(n, incx), _start(m, incy), float(alpha),
                             float(beta), BLOCK_M=block_m, BLOCK_N=block_n, **flags)
    else:
        block_m, block_n = 128, 32
        grid = (triton.cdiv(n, block_n),)
        _gemv_t_kernel[grid](A, x, y, m, n, lda, incx, incy, _start(m, incx), _start(n, incy), float(alpha),
                             float(beta), BLOCK_M=block_m, BLOCK_N=block_n, **flags)
