"""cublasDgemmStridedBatched in Triton: C_i := alpha * op(A_i) @ op(B_i) + beta * C_i, float64.

A tiled matmul on a 2-D grid: axis 0 walks C's tiles (grouped along M so neighbouring tiles share
B in L2), axis 1 the batch; matrix i of each operand starts at i * stride of its buffer (stride 0
broadcasts one matrix), in 64-bit offsets. A transpose is a swap of (row, k) strides chosen on
the host. Accumulation is in float64.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bgemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, ldc, stride_a, stride_b, stride_c,
                  alpha: tl.float64, beta: tl.float64, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  GROUP_M: tl.constexpr,
                  SKIP_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr):
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_size = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_size
    pid_n = (pid % per_group) // group_size

    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK).to(tl.int64)
    m_mask, n_mask = rm < M, rn < N
    acc = tl.zeros([BM, BN], dtype=tl.float64)
    if not SKIP_PRODUCT:
        a_ptrs = a_ptr + batch * stride_a + rm[:, None] * s_am + rk[None, :] * s_ak
        b_ptrs = b_ptr + batch * stride_b + rk[:, None] * s_bk + rn[None, :] * s_bn
        for k0 in range(0, K, BK):
            k_mask = (k0 + rk) < K
            a = tl.load(a_ptrs, mask=m_mask[:, None] & k_mask[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=k_mask[:, None] & n_mask[None, :], other=0.0)
            acc = tl.dot(a, b, acc, out_dtype=tl.float64)
            a_ptrs += BK * s_ak
            b_ptrs += BK * s_bk
    out = alpha * acc
    c_ptrs = c_ptr + batch * stride_c + rm[:, None] + rn[None, :] * ldc
    c_mask = m_mask[:, None] & n_mask[None, :]
    if not BETA_ZERO:
        out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, out, mask=c_mask)


def _transposed(trans) -> bool:
    if isinstance(trans, str):
        return {"N": False, "T": True, "C": True}[trans.upper()]
    return int(trans) != 0


def cublasDgemmStridedBatched(transa, transb, m: int, n: int, k: int, alpha: float, A: torch.Tensor, lda: int,
                              strideA: int, B: torch.Tensor, ldb: int, strideB: int, beta: float, C: torch.Tensor,
                              ldc: int, strideC: int, batchCount: int) -> None:
    skip_product = alpha == 0 or k <= 0
    if batchCount <= 0 or m <= 0 or n <= 0 or (skip_product and beta == 1):
        return
    s_am, s_ak = (lda, 1) if _transposed(transa) else (1, lda)
    s_bk, s_bn = (ldb, 1) if _transposed(transb) else (1, ldb)
    if not C.is_cuda or m < 128 or n < 64:
        bm, bn, bk, warps, stages = 32, 32, 32, 4, 2
    else:
        bm, bn, bk, warps, stages = 64, 64, 32, 4, 3
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), batchCount)
    _bgemm_kernel[grid](A, B, C, m, n, k, s_am, s_ak, s_bk, s_bn, ldc, strideA, strideB, strideC, float(alpha),
                        float(beta), BM=bm, BN=bn, BK=bk, GROUP_M=8, SKIP_PRODUCT=skip_product,
                        BETA_ZERO=beta == 0, num_warps=warps, num_stages=stages)
