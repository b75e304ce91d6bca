"""cublasCgemvBatched_64 in Triton: y[b] := alpha * op(A[b]) @ x[b] + beta * y[b], complex64, pointer arrays.

Complex data is interleaved (re, im) float32, and a pointer addresses a complex element, so element
p's parts sit at 2p and 2p + 1 of a float32 pointer. Grid (batch entry, block of outputs): each
program reduces a tile of complex products over the inner dimension, conjugating A for op = C.
op(A)[o, p] sits at o * s_out + p * s_in (complex elements): a transpose only swaps strides. The _64
API differs from cublasCgemvBatched only in taking 64-bit sizes, which Python ints already are.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cgemv_batched_kernel(a_arr, x_arr, y_arr, n_out, n_in, s_out, s_in, incx, incy, x0, y0,
                          alpha_re, alpha_im, beta_re, beta_im,
                          BLOCK_O: tl.constexpr, BLOCK_I: tl.constexpr, CONJ: tl.constexpr,
                          ALPHA_ZERO: tl.constexpr, BETA_ZERO: tl.constexpr):
    b = tl.program_id(0)
    a_ptr = tl.load(a_arr + b).to(tl.pointer_type(tl.float32))
    x_ptr = tl.load(x_arr + b).to(tl.pointer_type(tl.float32))
    y_ptr = tl.load(y_arr + b).to(tl.pointer_type(tl.float32))
    outs = tl.program_id(1).to(tl.int64) * BLOCK_O + tl.arange(0, BLOCK_O)
    omask = outs < n_out
    part_re = tl.zeros([BLOCK_O, BLOCK_I], dtype=tl.float32)
    part_im = tl.zeros([BLOCK_O, BLOCK_I], dtype=tl.float32)
    if not ALPHA_ZERO:
        for p0 in range(0, n_in, BLOCK_I):
            inner = p0 + tl.arange(0, BLOCK_I).to(tl.int64)
            imask = inner < n_in
            am = omask[:, None] & imask[None, :]
            a_idx = 2 * (outs[:, None] * s_out + inner[None, :] * s_in)
            a_re = tl.load(a_ptr + a_idx, mask=am, other=0.0)
            a_im = tl.load(a_ptr + a_idx + 1, mask=am, other=0.0)
            if CONJ:
                a_im = -a_im
            x_idx = 2 * (x0 + inner * incx)
            x_re = tl.load(x_ptr + x_idx, mask=imask, other=0.0)[None, :]
            x_im = tl.load(x_ptr + x_idx + 1, mask=imask, other=0.0)[None, :]
            part_re += a_re * x_re - a_im * x_im
            part_im += a_re * x_im + a_im * x_re
    s_re = tl.sum(part_re, axis=1)
    s_im = tl.sum(part_im, axis=1)
    out_re = alpha_re * s_re - alpha_im * s_im
    out_im = alpha_re * s_im + alpha_im * s_re
    y_idx = 2 * (y0 + outs * incy)
    if not BETA_ZERO:
        y_re = tl.load(y_ptr + y_idx, mask=omask, other=0.0)
        y_im = tl.load(y_ptr + y_idx + 1, mask=omask, other=0.0)
        out_re += beta_re * y_re - beta_im * y_im
        out_im += beta_re * y_im + beta_im * y_re
    tl.store(y_ptr + y_idx, out_re, mask=omask)
    tl.store(y_ptr + y_idx + 1, out_im, mask=omask)


def _op(trans) -> int:
    return "NTC".index(trans.upper()) if isinstance(trans, str) else int(trans)


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def cublasCgemvBatched_64(trans, m: int, n: int, alpha: complex, Aarray: torch.Tensor, lda: int,
                          xarray: torch.Tensor, incx: int, beta: complex, yarray: torch.Tensor, incy: int,
                          batchCount: int) -> None:
    alpha, beta = complex(alpha), complex(beta)
    if m <= 0 or n <= 0 or batchCount <= 0 or (alpha == 0 and beta == 1):
        return
    op = _op(trans)
    n_out, n_in = (n, m) if op else (m, n)
    s_out, s_in = (lda, 1) if op else (1, lda)
    block_o, block_i = (32, 64) if op else (64, 32)
    grid = (batchCount, triton.cdiv(n_out, block_o))
    _cgemv_batched_kernel[grid](Aarray, xarray, yarray, n_out, n_in, s_out, s_in, incx, incy, _start(n_in, incx),
                                _start(n_out, incy), alpha.real, alpha.imag, beta.real, beta.imag,
                                BLOCK_O=block_o, BLOCK_I=block_i, CONJ=op == 2, ALPHA_ZERO=alpha == 0,
                                BETA_ZERO=beta == 0)
