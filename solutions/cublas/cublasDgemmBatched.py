"""cublasDgemmBatched in Triton: C[b] := alpha * op(A[b]) @ op(B[b]) + beta * C[b] through pointer arrays.

Grid (output tile, batch entry): each program loads its entry's three addresses from the pointer
arrays and casts them to float64 pointers, then accumulates tiles of products. op(A)[i, p] and op(B)[p, j] are
addressed through (row, column) strides chosen on the host, so a transpose is a swap of strides.
The accumulator is float64, as dgemm computes; the tile product is an explicit multiply-and-reduce
(fp64 FMAs), which every backend and the interpreter take, unlike a float64 tl.dot.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_batched_kernel(a_arr, b_arr, c_arr, M, N, K, s_am, s_ak, s_bk, s_bn, ldc,
                         alpha: tl.float64, beta: tl.float64,
                         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                         SKIP_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr):
    pid = tl.program_id(0)
    batch = tl.program_id(1)
    num_n = tl.cdiv(N, BN)
    pid_m = pid // num_n
    pid_n = pid % num_n
    a_ptr = tl.load(a_arr + batch).to(tl.pointer_type(tl.float64))
    b_ptr = tl.load(b_arr + batch).to(tl.pointer_type(tl.float64))
    c_ptr = tl.load(c_arr + batch).to(tl.pointer_type(tl.float64))

    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK).to(tl.int64)
    m_mask = rm < M
    n_mask = rn < N
    acc = tl.zeros([BM, BN], dtype=tl.float64)
    if not SKIP_PRODUCT:
        for k0 in range(0, K, BK):
            kk = k0 + rk
            k_mask = kk < K
            a = tl.load(a_ptr + rm[:, None] * s_am + kk[None, :] * s_ak,
                        mask=m_mask[:, None] & k_mask[None, :], other=0.0)
            b = tl.load(b_ptr + kk[:, None] * s_bk + rn[None, :] * s_bn,
                        mask=k_mask[:, None] & n_mask[None, :], other=0.0)
            acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    out = alpha * acc
    c_ptrs = c_ptr + rm[:, None] + rn[None, :] * ldc
    c_mask = m_mask[:, None] & n_mask[None, :]
    if not BETA_ZERO:
        out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, out, mask=c_mask)


def _transposed(trans) -> bool:
    if isinstance(trans, str):
        return {"N": False, "T": True, "C": True}[trans.upper()]
    return int(trans) != 0


def cublasDgemmBatched(transa, transb, m: int, n: int, k: int, alpha: float, Aarray: torch.Tensor, lda: int,
                       Barray: torch.Tensor, ldb: int, beta: float, Carray: torch.Tensor, ldc: int,
                       batchCount: int) -> None:
    skip_product = alpha == 0 or k <= 0
    if m <= 0 or n <= 0 or batchCount <= 0 or (skip_product and beta == 1):
        return
    s_am, s_ak = (lda, 1) if _transposed(transa) else (1, lda)
    s_bk, s_bn = (ldb, 1) if _transposed(transb) else (1, ldb)
    bm, bn, bk, warps, stages = 32, 32, 8, 4, 2
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), batchCount)
    _gemm_batched_kernel[grid](Aarray, Barray, Carray, m, n, k, s_am, s_ak, s_bk, s_bn, ldc, float(alpha),
                               float(beta), BM=bm, BN=bn, BK=bk, SKIP_PRODUCT=skip_product, BETA_ZERO=beta == 0,
                               num_warps=warps, num_stages=stages)
