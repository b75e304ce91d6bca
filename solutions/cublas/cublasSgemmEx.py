"""cublasSgemmEx in Triton: C := alpha * op(A) @ op(B) + beta * C computed in float32, with A and B
stored as float32, float16, bfloat16 or int8 and C as float32, float16 or bfloat16.

One tiled kernel for every storage type: the element types come with the tensors, a transpose is
a swap of strides. float32 tiles use input_precision="ieee" (no TF32); 16-bit tiles go through the
tensor cores with a float32 accumulator (their products are exact in float32); int8 tiles are
multiplied in int32 (exact) and widened once. The result is rounded to C's type at the store.
In the CPU interpreter bfloat16 tiles are widened to float32 first: its bfloat16 dot is wrong.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_ex_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, ldc, alpha, beta,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                    SKIP_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr, INT8: tl.constexpr, WIDEN: tl.constexpr):
    pid = tl.program_id(0)
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
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    if not SKIP_PRODUCT:
        a_ptrs = a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak
        b_ptrs = b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn
        iacc = tl.zeros([BM, BN], dtype=tl.int32)
        for k0 in range(0, K, BK):
            k_mask = (k0 + rk) < K
            a = tl.load(a_ptrs, mask=m_mask[:, None] & k_mask[None, :], other=0)
            b = tl.load(b_ptrs, mask=k_mask[:, None] & n_mask[None, :], other=0)
            if INT8:
                iacc = tl.dot(a, b, iacc, out_dtype=tl.int32)
            elif WIDEN:
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BK * s_ak
            b_ptrs += BK * s_bk
        if INT8:
            acc = iacc.to(tl.float32)
    out = alpha * acc
    c_ptrs = c_ptr + rm[:, None] + rn[None, :] * ldc
    c_mask = m_mask[:, None] & n_mask[None, :]
    if not BETA_ZERO:
        out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0).to(tl.float32)
    tl.store(c_ptrs, out.to(c_ptr.dtype.element_ty), mask=c_mask)


def _transposed(trans) -> bool:
    if isinstance(trans, str):
        return {"N": False, "T": True, "C": True}[trans.upper()]
    return int(trans) != 0


def cublasSgemmEx(transa, transb, m: int, n: int, k: int, alpha: float, A: torch.Tensor, Atype: int, lda: int,
                  B: torch.Tensor, Btype: int, ldb: int, beta: float, C: torch.Tensor, Ctype: int,
                  ldc: int) -> None:
    skip_product = alpha == 0 or k <= 0
    if m <= 0 or n <= 0 or (skip_product and beta == 1):
        return
    s_am, s_ak = (lda, 1) if _transposed(transa) else (1, lda)
    s_bk, s_bn = (ldb, 1) if _transposed(transb) else (1, ldb)
    narrow = A.dtype != torch.float32
    if not C.is_cuda or m < 128 or n < 64:
        bm, bn, bk, warps, stages = 32, 32, 32, 4, 2
    elif narrow:
        bm, bn, bk, warps, stages = 128, 128, 64, 8, 3
    else:
        bm, bn, bk, warps, stages = 128, 128, 32, 8, 3
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    _gemm_ex_kernel[grid](A, B, C, m, n, k, s_am, s_ak, s_bk, s_bn, ldc, float(alpha), float(beta),
                          BM=bm, BN=bn, BK=bk, GROUP_M=8, SKIP_PRODUCT=skip_product, BETA_ZERO=beta == 0,
                          INT8=A.dtype == torch.int8, WIDEN=A.dtype == torch.bfloat16 and not A.is_cuda,
                          num_warps=warps, num_stages=stages)
