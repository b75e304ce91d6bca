# op: cublas::cublasSgemvBatched
# idiom: one program per batch entry walking every output block itself, pointers taken with tl.cast(..., tl.pointer_type) and advanced by BLAS start offsets; two specialised kernels (N, T); typing hints

"""Batched SGEMV: one Triton program per batch entry.

The batch is usually wide and each matrix small, so a program takes a whole entry: it reads the
three addresses of its entry, then sweeps the output in chunks, reducing each chunk fully before
writing it (alpha, beta and the beta == 0 rule fused).
"""

from typing import Union

import torch
import triton
import triton.language as tl

CHUNK_OUT = 32
CHUNK_IN = 64


@triton.jit
def sgemv_n_entries(A_list, X_list, Y_list, m, n, lda, incx, incy, alpha, beta,
                    CO: tl.constexpr, CI: tl.constexpr, READ_Y: tl.constexpr, USE_A: tl.constexpr):
    e = tl.program_id(0)
    A = tl.cast(tl.load(A_list + e), tl.pointer_type(tl.float32))
    X = tl.cast(tl.load(X_list + e), tl.pointer_type(tl.float32))
    Y = tl.cast(tl.load(Y_list + e), tl.pointer_type(tl.float32))
    if incx < 0:
        X += (1 - n) * incx
    if incy < 0:
        Y += (1 - m) * incy
    for r0 in range(0, m, CO):
        r = r0 + tl.arange(0, CO)
        rm = r < m
        total = tl.zeros([CO], dtype=tl.float32)
        if USE_A:
            for c0 in range(0, n, CI):
                c = c0 + tl.arange(0, CI)
                cm = c < n
                tile = tl.load(A + r[:, None] + c[None, :].to(tl.int64) * lda, mask=rm[:, None] & cm[None, :],
                               other=0.0)
                xv = tl.load(X + c.to(tl.int64) * incx, mask=cm, other=0.0)
                total += tl.sum(tile * xv[None, :], axis=1)
        total = alpha * total
        if READ_Y:
            total += beta * tl.load(Y + r.to(tl.int64) * incy, mask=rm, other=0.0)
        tl.store(Y + r.to(tl.int64) * incy, total, mask=rm)


@triton.jit
def sgemv_t_entries(A_list, X_list, Y_list, m, n, lda, incx, incy, alpha, beta,
                    CO: tl.constexpr, CI: tl.constexpr, READ_Y: tl.constexpr, USE_A: tl.constexpr):
    e = tl.program_id(0)
    A = tl.cast(tl.load(A_list + e), tl.pointer_type(tl.float32))
    X = tl.cast(tl.load(X_list + e), tl.pointer_type(tl.float32))
    Y = tl.cast(tl.load(Y_list + e), tl.pointer_type(tl.float32))
    if incx < 0:
        X += (1 - m) * incx
    if incy < 0:
        Y += (1 - n) * incy
    for c0 in range(0, n, CO):
        c = c0 + tl.arange(0, CO)
        cm = c < n
        total = tl.zeros([CO], dtype=tl.float32)
        if USE_A:
            for r0 in range(0, m, CI):
                r = r0 + tl.arange(0, CI)
                rm = r < m
                tile = tl.load(A + r[:, None] + c[None, :].to(tl.int64) * lda, mask=rm[:, None] & cm[None, :],
                               other=0.0)
                xv = tl.load(X + r.to(tl.int64) * incx, mask=rm, other=0.0)
                total += tl.sum(tile * xv[:, None], axis=0)
        total = alpha * total
        if READ_Y:
            total += beta * tl.load(Y + c.to(tl.int64) * incy, mask=cm, other=0.0)
        tl.store(Y + c.to(tl.int64) * incy, total, mask=cm)


def cublasSgemvBatched(trans: Union[int, str], m: int, n: int, alpha: float, Aarray: torch.Tensor, lda: int,
                       xarray: torch.Tensor, incx: int, beta: float, yarray: torch.Tensor, incy: int,
                       batchCount: int) -> None:
    code = "NTC".index(trans.upper()) if isinstance(trans, str) else trans
    if batchCount == 0 or m == 0 or n == 0 or (alpha == 0.0 and beta == 1.0):
        return
    kernel = sgemv_n_entries if code == 0 else sgemv_t_entries
    kernel[(batchCount,)](Aarray, xarray, yarray, m, n, lda, incx, incy, alpha, beta, CO=CHUNK_OUT, CI=CHUNK_IN,
                          READ_Y=beta != 0.0, USE_A=alpha != 0.0)
