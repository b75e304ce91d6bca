"""cublasSgemvStridedBatched in Triton: y_b := alpha * op(A_b) @ x_b + beta * y_b for b < batchCount.

The batch is grid axis 0 (no 65535 limit there), so each program owns one problem's block of rows
of y (op = N) or block of columns of A (op = T/C) and streams A along its contiguous direction,
as a single gemv would. Operand offsets are b * stride in 64-bit; a stride of 0 shares one A or
one x between the problems, and storage between operands is never addressed.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_n_kernel(a_ptr, x_ptr, y_ptr, m, n, lda, sa, incx, sx, incy, sy, x0, y0, alpha: tl.float32, beta: tl.float32,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ALPHA_ZERO: tl.constexpr,
                   BETA_ZERO: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.program_id(1).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < m
    a_ptr += b * sa
    x_ptr += b * sx + x0
    y_ptr += b * sy + y0
    part = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if not ALPHA_ZERO:
        for j0 in range(0, n, BLOCK_N):
            cols = j0 + tl.arange(0, BLOCK_N).to(tl.int64)
            cmask = cols < n
            a = tl.load(a_ptr + rows[:, None] + cols[None, :] * lda, mask=rmask[:, None] & cmask[None, :], other=0.0)
            x = tl.load(x_ptr + cols * incx, mask=cmask, other=0.0)
            part += a * x[None, :]
    out = alpha * tl.sum(part, axis=1)
    if not BETA_ZERO:
        out += beta * tl.load(y_ptr + rows * incy, mask=rmask, other=0.0)
    tl.store(y_ptr + rows * incy, out, mask=rmask)


@triton.jit
def _gemv_t_kernel(a_ptr, x_ptr, y_ptr, m, n, lda, sa, incx, sx, incy, sy, x0, y0, alpha: tl.float32, beta: tl.float32,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ALPHA_ZERO: tl.constexpr,
                   BETA_ZERO: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < n
    a_ptr += b * sa
    x_ptr += b * sx + x0
    y_ptr += b * sy + y0
    part = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if not ALPHA_ZERO:
        for i0 in range(0, m, BLOCK_M):
            rows = i0 + tl.arange(0, BLOCK_M).to(tl.int64)
            rmask = rows < m
            a = tl.load(a_ptr + rows[:, None] + cols[None, :] * lda, mask=rmask[:, None] & cmask[None, :], other=0.0)
            x = tl.load(x_ptr + rows * incx, mask=rmask, other=0.0)
            part += a * x[:, None]
    out = alpha * tl.sum(part, axis=0)
    if not BETA_ZERO:
        out += beta * tl.load(y_ptr + cols * incy, mask=cmask, other=0.0)
    tl.store(y_ptr + cols * incy, out, mask=cmask)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def cublasSgemvStridedBatched(trans, m: int, n: int, alpha: float, A: torch.Tensor, lda: int, strideA: int,
                              x: torch.Tensor, incx: int, stridex: int, beta: float, y: torch.Tensor, incy: int,
                              stridey: int, batchCount: int) -> None:
    transposed = (trans.upper() != "N") if isinstance(trans, str) else int(trans) != 0
    if batchCount <= 0 or m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return
    flags = dict(ALPHA_ZERO=alpha == 0, BETA_ZERO=beta == 0)
    if not transposed:
        block_m, block_n = 32, 128
        grid = (batchCount, triton.cdiv(m, block_m))
        _gemv_n_kernel[grid](A, x, y, m, n, lda, strideA, incx, stridex, incy, stridey, _start(n, incx),
                             _start(m, incy), float(alpha), float(beta), BLOCK_M=block_m, BLOCK_N=block_n, **flags)
    else:
        block_m, block_n = 128, 32
        grid = (batchCount, triton.cdiv(n, block_n))
        _gemv_t_kernel[grid](A, x, y, m, n, lda, strideA, incx, stridex, incy, stridey, _start(m, incx),
                             _start(n, incy), float(alpha), float(beta), BLOCK_M=block_m, BLOCK_N=block_n, **flags)
