# op: cublas::cublasDgemv_v2
# idiom: two specialised kernels (row blocks for N, column blocks for T), per-chunk tl.sum into a 1-D accumulator; host-side BLAS start offsets; typing hints, constants, __main__ self-test

"""Double-precision GEMV for column-major A.

Both kernels stream A along its contiguous direction (down a column):

* op = N: a program owns BLOCK_M entries of y and walks the columns, y_i += sum_j A[i, j] x_j.
* op = T/C: a program owns BLOCK_N entries of y and walks down the rows, y_j += sum_i A[i, j] x_i.

The epilogue (alpha, beta, beta == 0 not reading y) is fused into each kernel.
"""

from typing import Dict, Union

import torch
import triton
import triton.language as tl

OP_CODES: Dict[Union[int, str], int] = {0: 0, 1: 1, 2: 1, "N": 0, "T": 1, "C": 1, "n": 0, "t": 1, "c": 1}
N_TILE = (64, 64)    # (BLOCK_M, BLOCK_N) for op = N
T_TILE = (128, 32)   # (BLOCK_M, BLOCK_N) for op = T/C


@triton.jit
def gemv_n_kernel(A, X, Y, m, n, lda, incx, incy, x_off, y_off, alpha, beta,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, READ_Y: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    mi = i < m
    acc = tl.zeros([BLOCK_M], dtype=tl.float64)
    for j0 in range(0, n, BLOCK_N):
        j = j0 + tl.arange(0, BLOCK_N).to(tl.int64)
        mj = j < n
        tile = tl.load(A + i[:, None] + j[None, :] * lda, mask=mi[:, None] & mj[None, :], other=0.0)
        xj = tl.load(X + x_off + j * incx, mask=mj, other=0.0)
        acc += tl.sum(tile * xj[None, :], axis=1)
    yi = Y + y_off + i * incy
    res = alpha * acc
    if READ_Y:
        res += beta * tl.load(yi, mask=mi, other=0.0)
    tl.store(yi, res, mask=mi)


@triton.jit
def gemv_t_kernel(A, X, Y, m, n, lda, incx, incy, x_off, y_off, alpha, beta,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, READ_Y: tl.constexpr):
    j = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mj = j < n
    acc = tl.zeros([BLOCK_N], dtype=tl.float64)
    for i0 in range(0, m, BLOCK_M):
        i = i0 + tl.arange(0, BLOCK_M).to(tl.int64)
        mi = i < m
        tile = tl.load(A + i[:, None] + j[None, :] * lda, mask=mi[:, None] & mj[None, :], other=0.0)
        xi = tl.load(X + x_off + i * incx, mask=mi, other=0.0)
        acc += tl.sum(tile * xi[:, None], axis=0)
    yj = Y + y_off + j * incy
    res = alpha * acc
    if READ_Y:
        res += beta * tl.load(yj, mask=mj, other=0.0)
    tl.store(yj, res, mask=mj)


def _offset(count: int, inc: int) -> int:
    """Where logical element 0 lives: the far end of the storage for a negative increment."""
    return (count - 1) * -inc if inc < 0 else 0


def cublasDgemv_v2(trans: Union[int, str], m: int, n: int, alpha: float, A: torch.Tensor, lda: int,
                   x: torch.Tensor, incx: int, beta: float, y: torch.Tensor, incy: int) -> None:
    op = OP_CODES[trans]
    if m == 0 or n == 0 or (alpha == 0.0 and beta == 1.0):
        return
    read_y = beta != 0.0
    if op == 0:
        bm, bn = N_TILE
        grid = (triton.cdiv(m, bm),)
        gemv_n_kernel[grid](A, x, y, m, n, lda, incx, incy, _offset(n, incx), _offset(m, incy),
                            float(alpha), float(beta), BLOCK_M=bm, BLOCK_N=bn, READ_Y=read_y, num_warps=4)
    else:
        bm, bn = T_TILE
        grid = (triton.cdiv(n, bn),)
        gemv_t_kernel[grid](A, x, y, m, n, lda, incx, incy, _offset(m, incx), _offset(n, incy),
                            float(alpha), float(beta), BLOCK_M=bm, BLOCK_N=bn, READ_Y=read_y, num_warps=4)


if __name__ == "__main__":
    torch.manual_seed(0)
    for trans in (0, "T"):
        m, n, lda = 37, 53, 40
        a = torch.randn(lda * n, dtype=torch.float64)
        dense = a.view(n, lda).t()[:m]
        op_a = dense if OP_CODES[trans] == 0 else dense.t()
        xs = torch.randn(op_a.shape[1], dtype=torch.float64)
        y0 = torch.randn(op_a.shape[0], dtype=torch.float64)
        y = y0.clone()
        cublasDgemv_v2(trans, m, n, 0.5, a, lda, xs, 1, -2.0, y, 1)
        print(trans, (y - (0.5 * op_a @ xs - 2.0 * y0)).abs().max().item())
