"""vllm::cutlass_scaled_mm in Triton: one tiled GEMM for int8 and fp8 operands with the scales fused.

int8 tiles accumulate exactly in int32 (tl.dot's integer path) and fp8 tiles in float32; the scales,
per tensor, per token / channel, or per 128-wide block, are applied in float32 in the epilogue, or,
block-wise, to each K group's partial product before it joins the running sum (BLOCK_K = 128 keeps
one group per step). `b` is read column-major through its strides, so no copy of the weight is made.
"""

import torch
import triton
import triton.language as tl

GROUP = 128


@triton.jit
def _scaled_mm_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, bias_ptr, c_ptr, M, N, K,
                      stride_am, stride_bk, stride_bn, stride_sam, stride_sak, stride_sbk, stride_sbn,
                      A_PER_ROW: tl.constexpr, B_PER_COL: tl.constexpr, BLOCKWISE: tl.constexpr,
                      HAS_BIAS: tl.constexpr, IS_INT: tl.constexpr, ZERO: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    a_rows = a_ptr + rm.to(tl.int64)[:, None] * stride_am
    b_cols = b_ptr + rn.to(tl.int64)[None, :] * stride_bn
    if IS_INT:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        k_ok = ks < K
        a = tl.load(a_rows + ks[None, :], mask=m_ok[:, None] & k_ok[None, :], other=ZERO)
        b = tl.load(b_cols + ks[:, None] * stride_bk, mask=k_ok[:, None] & n_ok[None, :], other=ZERO)
        if BLOCKWISE:
            g = k0 // BLOCK_K
            part = tl.dot(a, b, out_dtype=tl.float32)
            sa = tl.load(sa_ptr + rm * stride_sam + g * stride_sak, mask=m_ok, other=0.0)
            sb = tl.load(sb_ptr + g * stride_sbk + (rn // BLOCK_K) * stride_sbn, mask=n_ok, other=0.0)
            acc += part * sa[:, None] * sb[None, :]
        elif IS_INT:
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        else:
            acc = tl.dot(a, b, acc)
    out = acc.to(tl.float32)
    if not BLOCKWISE:
        if A_PER_ROW:
            sa = tl.load(sa_ptr + rm, mask=m_ok, other=0.0)
        else:
            sa = tl.load(sa_ptr + tl.zeros_like(rm))
        if B_PER_COL:
            sb = tl.load(sb_ptr + rn, mask=n_ok, other=0.0)
        else:
            sb = tl.load(sb_ptr + tl.zeros_like(rn))
        out = out * sa[:, None] * sb[None, :]
    if HAS_BIAS:
        out += tl.load(bias_ptr + rn, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    c = c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c, out.to(c_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None):
    target = (*a.shape[:-1], b.shape[1])
    a2 = a.reshape(-1, a.shape[-1])
    M, K = a2.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=out_dtype, device=a.device)
    blockwise = not (scale_a.numel() in (1, M) and scale_b.numel() in (1, N))
    if M and N:
        if blockwise:
            block_m, block_n, block_k = 64, 128, GROUP
            sa_strides, sb_strides = scale_a.stride(), scale_b.stride()
        else:
            block_m = 16 if M <= 16 else (64 if M <= 64 else 128)
            block_n, block_k = 128, 64 if a.dtype == torch.int8 else 128
            sa_strides, sb_strides = (0, 0), (0, 0)
        grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
        _scaled_mm_kernel[grid](
            a2, b, scale_a, scale_b, bias if bias is not None else out, out, M, N, K,
            a2.stride(0), b.stride(0), b.stride(1), sa_strides[0], sa_strides[1], sb_strides[0], sb_strides[1],
            A_PER_ROW=scale_a.numel() == M and M > 1, B_PER_COL=scale_b.numel() == N and N > 1,
            BLOCKWISE=blockwise, HAS_BIAS=bias is not None, IS_INT=a.dtype == torch.int8,
            ZERO=0 if a.dtype == torch.int8 else 0.0,
            BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=8 if block_m >= 64 else 4,
        )
    return out.view(*target)
