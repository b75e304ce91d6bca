"""cublasDgemvBatched in Triton: y[b] := alpha * op(A[b]) @ x[b] + beta * y[b] through pointer arrays.

Grid (batch entry, block of outputs): each program loads its entry's three addresses from the
pointer arrays, casts them to float32 pointers, and reduces a 2-D tile of partial products over
the inner dimension. op(A)[o, p] sits at o * s_out + p * s_in, so a transpose only swaps strides.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_batched_kernel(a_arr, x_arr, y_arr, n_out, n_in, s_out, s_in, incx, incy, x0, y0,
                         alpha: tl.float64, beta: tl.float64,
                         BLOCK_O: tl.constexpr, BLOCK_I: tl.constexpr, ALPHA_ZERO: tl.constexpr,
                         BETA_ZERO: tl.constexpr):
    b = tl.program_id(0)
    a_ptr = tl.load(a_arr + b).to(tl.pointer_type(tl.float64))
    x_ptr = tl.load(x_arr + b).to(tl.pointer_type(tl.float64))
    y_ptr = tl.load(y_arr + b).to(tl.pointer_type(tl.float64))
    outs = tl.program_id(1).to(tl.int64) * BLOCK_O + tl.arange(0, BLOCK_O)
    omask = outs < n_out
    part = tl.zeros([BLOCK_O, BLOCK_I], dtype=tl.float64)
    if not ALPHA_ZERO:
        for p0 in range(0, n_in, BLOCK_I):
            inner = p0 + tl.arange(0, BLOCK_I).to(tl.int64)
            imask = inner < n_in
            a = tl.load(a_ptr + outs[:, None] * s_out + inner[None, :] * s_in,
                        mask=omask[:, None] & imask[None, :], other=0.0)
            x = tl.load(x_ptr + x0 + inner * incx, mask=imask, other=0.0)
            part += a * x[None, :]
    out = alpha * tl.sum(part, axis=1)
    y_idx = y0 + outs * incy
    if not BETA_ZERO:
        out += beta * tl.load(y_ptr + y_idx, mask=omask, other=0.0)
    tl.store(y_ptr + y_idx, out, mask=omask)


def _transposed(trans) -> bool:
    if isinstance(trans, str):
        return {"N": False, "T": True, "C": True}[trans.upper()]
    return int(trans) != 0


def _start(count: int, inc: int) -> int:
    """Reference-BLAS rule: a negative increment starts at the far end of the storage."""
    return 0 if inc > 0 else (1 - count) * inc


def cublasDgemvBatched(trans, m: int, n: int, alpha: float, Aarray: torch.Tensor, lda: int, xarray: torch.Tensor,
                       incx: int, beta: float, yarray: torch.Tensor, incy: int, batchCount: int) -> None:
    if m <= 0 or n <= 0 or batchCount <= 0 or (alpha == 0 and beta == 1):
        return
    t = _transposed(trans)
    n_out, n_in = (n, m) if t else (m, n)
    s_out, s_in = (lda, 1) if t else (1, lda)
    block_o, block_i = (32, 128) if t else (64, 64)
    grid = (batchCount, triton.cdiv(n_out, block_o))
    _gemv_batched_kernel[grid](Aarray, xarray, yarray, n_out, n_in, s_out, s_in, incx, incy, _start(n_in, incx),
                               _start(n_out, incy), float(alpha), float(beta), BLOCK_O=block_o, BLOCK_I=block_i,
                               ALPHA_ZERO=alpha == 0, BETA_ZERO=beta == 0)
