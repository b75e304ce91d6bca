"""vllm::cutlass_scaled_mm_azp in Triton: an int8 GEMM whose epilogue removes the zero-point term.

The int32 accumulator is exact; the zero-point correction (azp_adj per column, times the per-token
azp when there is one) is subtracted in int32 as well, so only the final scaling and bias are float32.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _azp_mm_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, adj_ptr, azp_ptr, bias_ptr, c_ptr, M, N, K,
                   stride_am, stride_bk, stride_bn,
                   A_PER_ROW: tl.constexpr, B_PER_COL: tl.constexpr, PER_TOKEN_AZP: tl.constexpr,
                   HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    a_rows = a_ptr + rm.to(tl.int64)[:, None] * stride_am
    b_cols = b_ptr + rn.to(tl.int64)[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        k_ok = ks < K
        a = tl.load(a_rows + ks[None, :], mask=m_ok[:, None] & k_ok[None, :], other=0)
        b = tl.load(b_cols + ks[:, None] * stride_bk, mask=k_ok[:, None] & n_ok[None, :], other=0)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    adj = tl.load(adj_ptr + rn, mask=n_ok, other=0)
    if PER_TOKEN_AZP:
        azp = tl.load(azp_ptr + rm, mask=m_ok, other=0)
        acc -= azp[:, None] * adj[None, :]
    else:
        acc -= adj[None, :]
    if A_PER_ROW:
        sa = tl.load(sa_ptr + rm, mask=m_ok, other=0.0)
    else:
        sa = tl.load(sa_ptr + tl.zeros_like(rm))
    if B_PER_COL:
        sb = tl.load(sb_ptr + rn, mask=n_ok, other=0.0)
    else:
        sb = tl.load(sb_ptr + tl.zeros_like(rn))
    out = acc.to(tl.float32) * sa[:, None] * sb[None, :]
    if HAS_BIAS:
        out += tl.load(bias_ptr + rn, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    c = c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c, out.to(c_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def cutlass_scaled_mm_azp(a, b, scale_a, scale_b, out_dtype, azp_adj, azp=None, bias=None):
    target = (*a.shape[:-1], b.shape[1])
    a2 = a.reshape(-1, a.shape[-1])
    M, K = a2.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=out_dtype, device=a.device)
    if M and N:
        block_m = 16 if M <= 16 else (64 if M <= 64 else 128)
        block_n, block_k = 128, 64
        grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
        _azp_mm_kernel[grid](
            a2, b, scale_a, scale_b, azp_adj, azp if azp is not None else azp_adj,
            bias if bias is not None else out, out, M, N, K, a2.stride(0), b.stride(0), b.stride(1),
            A_PER_ROW=scale_a.numel() == M and M > 1, B_PER_COL=scale_b.numel() == N and N > 1,
            PER_TOKEN_AZP=azp is not None, HAS_BIAS=bias is not None,
            BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=8 if block_m >= 64 else 4,
        )
    return out.view(*target)
