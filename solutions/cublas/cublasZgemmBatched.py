"""cublasZgemmBatched in Triton: C[b] := alpha * op(A[b]) @ op(B[b]) + beta * C[b], complex128, pointer arrays.

Complex data is interleaved (re, im) float64 and a pointer addresses a complex element, so element
p's parts sit at 2p and 2p + 1 of a float64 pointer. Grid (output tile, batch entry): a program
accumulates the four real products of each complex tile product (explicit multiply-and-reduce:
fp64 FMAs, which the interpreter takes too, unlike a float64 tl.dot), conjugating for op = C.
op(A)[i, p] and op(B)[p, j] are addressed through strides chosen on the host.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _zgemm_batched_kernel(a_arr, b_arr, c_arr, M, N, K, s_am, s_ak, s_bk, s_bn, ldc,
                          alpha_re: tl.float64, alpha_im: tl.float64, beta_re: tl.float64, beta_im: tl.float64,
                          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, CONJ_A: tl.constexpr,
                          CONJ_B: tl.constexpr, SKIP_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr):
    pid = tl.program_id(0)
    batch = tl.program_id(1)
    num_n = tl.cdiv(N, BN)
    a_ptr = tl.load(a_arr + batch).to(tl.pointer_type(tl.float64))
    b_ptr = tl.load(b_arr + batch).to(tl.pointer_type(tl.float64))
    c_ptr = tl.load(c_arr + batch).to(tl.pointer_type(tl.float64))
    rm = (pid // num_n).to(tl.int64) * BM + tl.arange(0, BM)
    rn = (pid % num_n).to(tl.int64) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK).to(tl.int64)
    m_mask = rm < M
    n_mask = rn < N
    acc_re = tl.zeros([BM, BN], dtype=tl.float64)
    acc_im = tl.zeros([BM, BN], dtype=tl.float64)
    if not SKIP_PRODUCT:
        for k0 in range(0, K, BK):
            kk = k0 + rk
            k_mask = kk < K
            a_mask = m_mask[:, None] & k_mask[None, :]
            b_mask = k_mask[:, None] & n_mask[None, :]
            a_idx = 2 * (rm[:, None] * s_am + kk[None, :] * s_ak)
            b_idx = 2 * (kk[:, None] * s_bk + rn[None, :] * s_bn)
            a_re = tl.load(a_ptr + a_idx, mask=a_mask, other=0.0)[:, :, None]
            a_im = tl.load(a_ptr + a_idx + 1, mask=a_mask, other=0.0)[:, :, None]
            b_re = tl.load(b_ptr + b_idx, mask=b_mask, other=0.0)[None, :, :]
            b_im = tl.load(b_ptr + b_idx + 1, mask=b_mask, other=0.0)[None, :, :]
            if CONJ_A:
                a_im = -a_im
            if CONJ_B:
                b_im = -b_im
            acc_re += tl.sum(a_re * b_re - a_im * b_im, axis=1)
            acc_im += tl.sum(a_re * b_im + a_im * b_re, axis=1)
    out_re = alpha_re * acc_re - alpha_im * acc_im
    out_im = alpha_re * acc_im + alpha_im * acc_re
    c_idx = 2 * (rm[:, None] + rn[None, :] * ldc)
    c_mask = m_mask[:, None] & n_mask[None, :]
    if not BETA_ZERO:
        c_re = tl.load(c_ptr + c_idx, mask=c_mask, other=0.0)
        c_im = tl.load(c_ptr + c_idx + 1, mask=c_mask, other=0.0)
        out_re += beta_re * c_re - beta_im * c_im
        out_im += beta_re * c_im + beta_im * c_re
    tl.store(c_ptr + c_idx, out_re, mask=c_mask)
    tl.store(c_ptr + c_idx + 1, out_im, mask=c_mask)


def _op(trans) -> int:
    return "NTC".index(trans.upper()) if isinstance(trans, str) else int(trans)


def cublasZgemmBatched(transa, transb, m: int, n: int, k: int, alpha: complex, Aarray: torch.Tensor, lda: int,
                       Barray: torch.Tensor, ldb: int, beta: complex, Carray: torch.Tensor, ldc: int,
                       batchCount: int) -> None:
    alpha, beta = complex(alpha), complex(beta)
    skip_product = alpha == 0 or k <= 0
    if m <= 0 or n <= 0 or batchCount <= 0 or (skip_product and beta == 1):
        return
    opa, opb = _op(transa), _op(transb)
    s_am, s_ak = (lda, 1) if opa else (1, lda)
    s_bk, s_bn = (ldb, 1) if opb else (1, ldb)
    bm, bn, bk = 16, 16, 8
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), batchCount)
    _zgemm_batched_kernel[grid](Aarray, Barray, Carray, m, n, k, s_am, s_ak, s_bk, s_bn, ldc, alpha.real,
                                alpha.imag, beta.real, beta.imag, BM=bm, BN=bn, BK=bk, CONJ_A=opa == 2,
                                CONJ_B=opb == 2, SKIP_PRODUCT=skip_product, BETA_ZERO=beta == 0)
