"""cublasCsyrkEx in Triton: one triangle of C := alpha * op(A) @ op(A)^T + beta * C, complex, with A
interleaved complex int8 or float32 and C interleaved float32 (computed in complex float32).

A tiled complex matmul of op(A) with its own transpose (no conjugation) over a 2-D grid of C tiles:
tiles wholly outside the uplo triangle return at once, and diagonal tiles store through a triangle
mask, so the other triangle and the padding rows are never touched. A's tiles are widened to
float32 as they are loaded; the four real dots use input_precision="ieee" (no TF32).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _syrk_ex_kernel(a_ptr, c_ptr, N, K, s_ai, s_ak, ldc, alpha_re, alpha_im, beta_re, beta_im,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, UPPER: tl.constexpr,
                    SKIP_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    if UPPER:
        outside = pid_m * BM > pid_n * BN + BN - 1
    else:
        outside = pid_m * BM + BM - 1 < pid_n * BN
    if outside:
        return
    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    m_mask = rm < N
    n_mask = rn < N
    rr = tl.zeros([BM, BN], dtype=tl.float32)
    ii = tl.zeros([BM, BN], dtype=tl.float32)
    ri = tl.zeros([BM, BN], dtype=tl.float32)
    ir = tl.zeros([BM, BN], dtype=tl.float32)
    if not SKIP_PRODUCT:
        rk = tl.arange(0, BK).to(tl.int64)
        for k0 in range(0, K, BK):
            k_mask = (k0 + rk) < K
            a_off = 2 * (rm[:, None] * s_ai + (k0 + rk)[None, :] * s_ak)
            b_off = 2 * (rn[None, :] * s_ai + (k0 + rk)[:, None] * s_ak)
            a_mask = m_mask[:, None] & k_mask[None, :]
            b_mask = k_mask[:, None] & n_mask[None, :]
            a_re = tl.load(a_ptr + a_off, mask=a_mask, other=0).to(tl.float32)
            a_im = tl.load(a_ptr + a_off + 1, mask=a_mask, other=0).to(tl.float32)
            b_re = tl.load(a_ptr + b_off, mask=b_mask, other=0).to(tl.float32)
            b_im = tl.load(a_ptr + b_off + 1, mask=b_mask, other=0).to(tl.float32)
            rr = tl.dot(a_re, b_re, rr, input_precision="ieee")
            ii = tl.dot(a_im, b_im, ii, input_precision="ieee")
            ri = tl.dot(a_re, b_im, ri, input_precision="ieee")
            ir = tl.dot(a_im, b_re, ir, input_precision="ieee")
    acc_re = rr - ii
    acc_im = ri + ir
    out_re = alpha_re * acc_re - alpha_im * acc_im
    out_im = alpha_re * acc_im + alpha_im * acc_re
    if UPPER:
        tri = rm[:, None] <= rn[None, :]
    else:
        tri = rm[:, None] >= rn[None, :]
    mask = m_mask[:, None] & n_mask[None, :] & tri
    c_off = 2 * (rm[:, None] + rn[None, :] * ldc)
    if not BETA_ZERO:
        c_re = tl.load(c_ptr + c_off, mask=mask, other=0.0)
        c_im = tl.load(c_ptr + c_off + 1, mask=mask, other=0.0)
        out_re += beta_re * c_re - beta_im * c_im
        out_im += beta_re * c_im + beta_im * c_re
    tl.store(c_ptr + c_off, out_re, mask=mask)
    tl.store(c_ptr + c_off + 1, out_im, mask=mask)


def _code(value, letters: str) -> int:
    return letters.index(value.upper()) if isinstance(value, str) else int(value)


def cublasCsyrkEx(uplo, trans, n: int, k: int, alpha: complex, A: torch.Tensor, Atype: int, lda: int,
                  beta: complex, C: torch.Tensor, Ctype: int, ldc: int) -> None:
    alpha, beta = complex(alpha), complex(beta)
    skip_product = alpha == 0 or k <= 0
    if n <= 0 or (skip_product and beta == 1):
        return
    s_ai, s_ak = (lda, 1) if _code(trans, "NTC") != 0 else (1, lda)
    if not C.is_cuda or n < 128:
        bm, bn, bk, warps, stages = 32, 32, 16, 4, 2
    else:
        bm, bn, bk, warps, stages = 64, 64, 32, 4, 3
    grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))
    _syrk_ex_kernel[grid](A, C, n, k, s_ai, s_ak, ldc, alpha.real, alpha.imag, beta.real, beta.imag,
                          BM=bm, BN=bn, BK=bk, UPPER=_code(uplo, "LU") == 1, SKIP_PRODUCT=skip_product,
                          BETA_ZERO=beta == 0, num_warps=warps, num_stages=stages)
