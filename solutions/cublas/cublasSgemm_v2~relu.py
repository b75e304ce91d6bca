"""cublasSgemm_v2~relu in Triton: C := max(alpha * op(A) @ op(B) + beta * C, 0), column-major, full float32.

One tiled kernel serves every transpose combination: op(A)[i, p] and op(B)[p, j] are addressed
through (row, column) strides chosen on the host, so a transpose is only a swap of strides.
The dot runs with input_precision="ieee" (Triton's float32 default is TF32, which rounds inputs
to 10 mantissa bits). Program ids are grouped along M so neighbouring tiles share B in L2.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, ldc, alpha, beta,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                 SKIP_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr):
    pid = tl.program_id(0)
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
    rk = tl.arange(0, BK)
    m_mask = rm < M
    n_mask = rn < N
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    if not SKIP_PRODUCT:
        a_ptrs = a_ptr + rm[:, None] * s_am + rk[None, :].to(tl.int64) * s_ak
        b_ptrs = b_ptr + rk[:, None].to(tl.int64) * s_bk + rn[None, :] * s_bn
        for k0 in range(0, K, BK):
            k_mask = (k0 + rk) < K
            a = tl.load(a_ptrs, mask=m_mask[:, None] & k_mask[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=k_mask[:, None] & n_mask[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BK * s_ak
            b_ptrs += BK * s_bk
    out = alpha * acc
    c_ptrs = c_ptr + rm[:, None] + rn[None, :] * ldc
    c_mask = m_mask[:, None] & n_mask[None, :]
    if not BETA_ZERO:
        out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, tl.maximum(out, 0.0), mask=c_mask)


def _transposed(trans) -> bool:
    if isinstance(trans, str):
        return {"N": False, "T": True, "C": True}[trans.upper()]
    return int(trans) != 0


def cublasSgemm_v2(transa, transb, m: int, n: int, k: int, alpha: float, A: torch.Tensor, lda: int,
                   B: torch.Tensor, ldb: int, beta: float, C: torch.Tensor, ldc: int) -> None:
    skip_product = alpha == 0 or k <= 0
    if m <= 0 or n <= 0:
        return
    s_am, s_ak = (lda, 1) if _transposed(transa) else (1, lda)
    s_bk, s_bn = (ldb, 1) if _transposed(transb) else (1, ldb)
    if not C.is_cuda or m < 128 or n < 64:
        bm, bn, bk, warps, stages = 32, 32, 32, 4, 2
    elif triton.cdiv(m, 128) * triton.cdiv(n, 128) >= 256:
        bm, bn, bk, warps, stages = 128, 128, 32, 8, 3
    else:
        bm, bn, bk, warps, stages = 128, 64, 32, 4, 3
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    _gemm_kernel[grid](A, B, C, m, n, k, s_am, s_ak, s_bk, s_bn, ldc, float(alpha), float(beta),
                       BM=bm, BN=bn, BK=bk, GROUP_M=8, SKIP_PRODUCT=skip_product, BETA_ZERO=beta == 0,
                       num_warps=warps, num_stages=stages)
