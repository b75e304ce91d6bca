"""cublasSsyrk_v2 in Triton: one triangle of C := alpha * op(A) @ op(A)^T + beta * C, full float32.

A tiled matmul of op(A) with itself over a 2-D grid of C tiles; tiles wholly outside the uplo
triangle return at once (about half the grid), and the diagonal tiles store through a triangle
mask, so the other triangle and the padding rows are never touched. op(A) is read through
(row, k) strides chosen on the host. The dot uses input_precision="ieee" (no TF32).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _syrk_kernel(a_ptr, c_ptr, N, K, s_ai, s_ak, ldc, alpha, beta, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, UPPER: tl.constexpr, SKIP_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    row_lo, row_hi = pid_m * BM, pid_m * BM + BM - 1
    col_lo, col_hi = pid_n * BN, pid_n * BN + BN - 1
    outside = (row_lo > col_hi) if UPPER else (row_hi < col_lo)
    if outside:
        return
    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    m_mask, n_mask = rm < N, rn < N
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    if not SKIP_PRODUCT:
        rk = tl.arange(0, BK).to(tl.int64)
        a_ptrs = a_ptr + rm[:, None] * s_ai + rk[None, :] * s_ak
        b_ptrs = a_ptr + rn[None, :] * s_ai + rk[:, None] * s_ak
        for k0 in range(0, K, BK):
            k_mask = (k0 + rk) < K
            a = tl.load(a_ptrs, mask=m_mask[:, None] & k_mask[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=k_mask[:, None] & n_mask[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BK * s_ak
            b_ptrs += BK * s_ak
    tri = (rm[:, None] <= rn[None, :]) if UPPER else (rm[:, None] >= rn[None, :])
    mask = m_mask[:, None] & n_mask[None, :] & tri
    c_ptrs = c_ptr + rm[:, None] + rn[None, :] * ldc
    out = alpha * acc
    if not BETA_ZERO:
        out += beta * tl.load(c_ptrs, mask=mask, other=0.0)
    tl.store(c_ptrs, out, mask=mask)


def _code(value, letters: str) -> int:
    return letters.index(value.upper()) if isinstance(value, str) else int(value)


def cublasSsyrk_v2(uplo, trans, n: int, k: int, alpha: float, A: torch.Tensor, lda: int, beta: float,
                   C: torch.Tensor, ldc: int) -> None:
    skip_product = alpha == 0 or k <= 0
    if n <= 0 or (skip_product and beta == 1):
        return
    s_ai, s_ak = (lda, 1) if _code(trans, "NTC") != 0 else (1, lda)
    if not C.is_cuda or n < 256:
        bm, bn, bk, warps, stages = 32, 32, 32, 4, 2
    else:
        bm, bn, bk, warps, stages = 128, 128, 32, 8, 3
    grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))
    _syrk_kernel[grid](A, C, n, k, s_ai, s_ak, ldc, float(alpha), float(beta), BM=bm, BN=bn, BK=bk,
                       UPPER=_code(uplo, "LU") == 1, SKIP_PRODUCT=skip_product, BETA_ZERO=beta == 0,
                       num_warps=warps, num_stages=stages)
