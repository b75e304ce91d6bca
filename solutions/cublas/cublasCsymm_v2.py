"""cublasCsymm_v2 in Triton: C := alpha * A @ B + beta * C (left) or alpha * B @ A + beta * C (right),
A complex symmetric with one triangle stored, complex64 given as interleaved float32.

A tiled complex matmul X @ Y (X = A, Y = B on the left; X = B, Y = A on the right): the symmetric
operand's tiles are gathered from the stored triangle, each element at (i, j) or at its mirror
(j, i) with no conjugation, so the other triangle is never read. The complex product is four real
dots on the real and imaginary planes (input_precision="ieee": no TF32).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _offsets(rows, cols, ld, SYM: tl.constexpr, UPPER: tl.constexpr):
    """Complex element offsets of a (rows, cols) tile; a symmetric one reads its stored triangle."""
    direct = rows[:, None] + cols[None, :] * ld
    if SYM:
        if UPPER:
            stored = rows[:, None] <= cols[None, :]
        else:
            stored = rows[:, None] >= cols[None, :]
        return tl.where(stored, direct, cols[None, :] + rows[:, None] * ld)
    return direct


@triton.jit
def _symm_kernel(x_ptr, y_ptr, c_ptr, M, N, K, ldx, ldy, ldc, alpha_re, alpha_im, beta_re, beta_im,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SYM_X: tl.constexpr, UPPER: tl.constexpr,
                 ALPHA_ZERO: tl.constexpr, BETA_ZERO: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM)
    rn = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    m_mask = rm < M
    n_mask = rn < N
    rr = tl.zeros([BM, BN], dtype=tl.float32)
    ii = tl.zeros([BM, BN], dtype=tl.float32)
    ri = tl.zeros([BM, BN], dtype=tl.float32)
    ir = tl.zeros([BM, BN], dtype=tl.float32)
    if not ALPHA_ZERO:
        for k0 in range(0, K, BK):
            rk = k0 + tl.arange(0, BK).to(tl.int64)
            k_mask = rk < K
            x_off = 2 * _offsets(rm, rk, ldx, SYM_X, UPPER)
            y_off = 2 * _offsets(rk, rn, ldy, not SYM_X, UPPER)
            x_mask = m_mask[:, None] & k_mask[None, :]
            y_mask = k_mask[:, None] & n_mask[None, :]
            x_re = tl.load(x_ptr + x_off, mask=x_mask, other=0.0)
            x_im = tl.load(x_ptr + x_off + 1, mask=x_mask, other=0.0)
            y_re = tl.load(y_ptr + y_off, mask=y_mask, other=0.0)
            y_im = tl.load(y_ptr + y_off + 1, mask=y_mask, other=0.0)
            rr = tl.dot(x_re, y_re, rr, input_precision="ieee")
            ii = tl.dot(x_im, y_im, ii, input_precision="ieee")
            ri = tl.dot(x_re, y_im, ri, input_precision="ieee")
            ir = tl.dot(x_im, y_re, ir, input_precision="ieee")
    acc_re = rr - ii
    acc_im = ri + ir
    out_re = alpha_re * acc_re - alpha_im * acc_im
    out_im = alpha_re * acc_im + alpha_im * acc_re
    c_off = 2 * (rm[:, None] + rn[None, :] * ldc)
    c_mask = m_mask[:, None] & n_mask[None, :]
    if not BETA_ZERO:
        c_re = tl.load(c_ptr + c_off, mask=c_mask, other=0.0)
        c_im = tl.load(c_ptr + c_off + 1, mask=c_mask, other=0.0)
        out_re += beta_re * c_re - beta_im * c_im
        out_im += beta_re * c_im + beta_im * c_re
    tl.store(c_ptr + c_off, out_re, mask=c_mask)
    tl.store(c_ptr + c_off + 1, out_im, mask=c_mask)


def _code(value, letters: str) -> int:
    return letters.index(value.upper()) if isinstance(value, str) else int(value)


def cublasCsymm_v2(side, uplo, m: int, n: int, alpha: complex, A: torch.Tensor, lda: int, B: torch.Tensor,
                   ldb: int, beta: complex, C: torch.Tensor, ldc: int) -> None:
    alpha, beta = complex(alpha), complex(beta)
    if m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return
    left = _code(side, "LR") == 0
    x, ldx, y, ldy, k = (A, lda, B, ldb, m) if left else (B, ldb, A, lda, n)
    if not C.is_cuda or m < 64 or n < 64:
        bm, bn, bk, warps, stages = 32, 32, 16, 4, 2
    else:
        bm, bn, bk, warps, stages = 64, 64, 32, 4, 3
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _symm_kernel[grid](x, y, C, m, n, k, ldx, ldy, ldc, alpha.real, alpha.imag, beta.real, beta.imag,
                       BM=bm, BN=bn, BK=bk, SYM_X=left, UPPER=_code(uplo, "LU") == 1, ALPHA_ZERO=alpha == 0,
                       BETA_ZERO=beta == 0, num_warps=warps, num_stages=stages)
