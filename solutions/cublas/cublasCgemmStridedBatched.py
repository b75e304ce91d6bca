"""cublasCgemmStridedBatched in Triton: C_i := alpha * op(A_i) @ op(B_i) + beta * C_i over a strided batch
of complex64 matrices given as interleaved float32.

The second grid axis is the batch; each problem's matrices start at i*stride (complex elements).
Tiles of A and B load as separate real and imaginary planes and the complex product is four real
dots (input_precision="ieee", not TF32); the conjugate transpose only flips signs when the four
sums are combined. Offsets are computed in 64 bits.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cgemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, ldc, stride_a, stride_b, stride_c,
                  alpha_re, alpha_im, beta_re, beta_im,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                  CONJ_A: tl.constexpr, CONJ_B: tl.constexpr, SKIP_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr):
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    per_group = GROUP_M * num_n
    group = pid // per_group
    first_m = group * GROUP_M
    group_size = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_size
    pid_n = (pid % per_group) // group_size

    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK).to(tl.int64)
    m_mask = rm < M
    n_mask = rn < N
    # sums of the four real products of the stored parts; conjugation only flips signs at the end
    rr = tl.zeros([BM, BN], dtype=tl.float32)
    ii = tl.zeros([BM, BN], dtype=tl.float32)
    ri = tl.zeros([BM, BN], dtype=tl.float32)
    ir = tl.zeros([BM, BN], dtype=tl.float32)
    if not SKIP_PRODUCT:
        # complex element offsets; the real part sits at 2*offset, the imaginary part right after it
        a_off = batch * stride_a + rm[:, None] * s_am + rk[None, :] * s_ak
        b_off = batch * stride_b + rk[:, None] * s_bk + rn[None, :] * s_bn
        for k0 in range(0, K, BK):
            k_mask = (k0 + rk) < K
            a_mask = m_mask[:, None] & k_mask[None, :]
            b_mask = k_mask[:, None] & n_mask[None, :]
            a_re = tl.load(a_ptr + 2 * a_off, mask=a_mask, other=0.0)
            a_im = tl.load(a_ptr + 2 * a_off + 1, mask=a_mask, other=0.0)
            b_re = tl.load(b_ptr + 2 * b_off, mask=b_mask, other=0.0)
            b_im = tl.load(b_ptr + 2 * b_off + 1, mask=b_mask, other=0.0)
            rr = tl.dot(a_re, b_re, rr, input_precision="ieee", out_dtype=tl.float32)
            ii = tl.dot(a_im, b_im, ii, input_precision="ieee", out_dtype=tl.float32)
            ri = tl.dot(a_re, b_im, ri, input_precision="ieee", out_dtype=tl.float32)
            ir = tl.dot(a_im, b_re, ir, input_precision="ieee", out_dtype=tl.float32)
            a_off += BK * s_ak
            b_off += BK * s_bk
    sign_a = -1.0 if CONJ_A else 1.0
    sign_b = -1.0 if CONJ_B else 1.0
    acc_re = rr - (sign_a * sign_b) * ii
    acc_im = sign_b * ri + sign_a * ir
    out_re = alpha_re * acc_re - alpha_im * acc_im
    out_im = alpha_re * acc_im + alpha_im * acc_re
    c_off = batch * stride_c + rm[:, None] + rn[None, :] * ldc
    c_mask = m_mask[:, None] & n_mask[None, :]
    if not BETA_ZERO:
        c_re = tl.load(c_ptr + 2 * c_off, mask=c_mask, other=0.0)
        c_im = tl.load(c_ptr + 2 * c_off + 1, mask=c_mask, other=0.0)
        out_re += beta_re * c_re - beta_im * c_im
        out_im += beta_re * c_im + beta_im * c_re
    tl.store(c_ptr + 2 * c_off, out_re, mask=c_mask)
    tl.store(c_ptr + 2 * c_off + 1, out_im, mask=c_mask)


def _op(trans) -> int:
    if isinstance(trans, str):
        return {"N": 0, "T": 1, "C": 2}[trans.upper()]
    return int(trans)


def _launch(transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch):
    alpha, beta = complex(alpha), complex(beta)
    skip_product = alpha == 0 or k <= 0
    if m <= 0 or n <= 0 or batch <= 0 or (skip_product and beta == 1):
        return
    opa, opb = _op(transa), _op(transb)
    s_am, s_ak = (lda, 1) if opa else (1, lda)
    s_bk, s_bn = (ldb, 1) if opb else (1, ldb)
    if not C.is_cuda or m < 64 or n < 64:
        bm, bn, bk, warps, stages = 32, 32, 16, 4, 2
    else:
        bm, bn, bk, warps, stages = 64, 64, 32, 4, 3
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), batch)
    _cgemm_kernel[grid](A, B, C, m, n, k, s_am, s_ak, s_bk, s_bn, ldc, stride_a, stride_b, stride_c,
                        alpha.real, alpha.imag, beta.real, beta.imag, BM=bm, BN=bn, BK=bk, GROUP_M=8,
                        CONJ_A=opa == 2, CONJ_B=opb == 2, SKIP_PRODUCT=skip_product, BETA_ZERO=beta == 0,
                        num_warps=warps, num_stages=stages)


def cublasCgemmStridedBatched(transa, transb, m: int, n: int, k: int, alpha: complex, A: torch.Tensor, lda: int,
                              strideA: int, B: torch.Tensor, ldb: int, strideB: int, beta: complex, C: torch.Tensor,
                              ldc: int, strideC: int, batchCount: int) -> None:
    _launch(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount)
