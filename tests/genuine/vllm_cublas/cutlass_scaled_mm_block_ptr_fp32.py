# op: vllm::cutlass_scaled_mm
# idiom: 1-D grouped grid, block pointers, tiles widened to float32 before an ieee dot; scales as stride-0 views

"""Scaled int8/fp8 GEMM: every operand tile is widened to float32 inside the kernel and multiplied
exactly (ieee), so one code path serves int8, fp8 and the 128-group block-wise scales."""

import torch
import triton
import triton.language as tl


@triton.jit
def scaled_gemm(a, b, sa, sb, bias, c, M, N, K, s_am, s_bk, s_bn, s_sam, s_sak, s_sbk, s_sbn,
                GROUPED: tl.constexpr, HAS_BIAS: tl.constexpr,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    rows_here = tl.minimum(tiles_m - first_m, GROUP_M)
    tm = first_m + (pid % per_group) % rows_here
    tn = (pid % per_group) // rows_here
    a_blk = tl.make_block_ptr(a, (M, K), (s_am, 1), (tm * BM, 0), (BM, BK), (1, 0))
    b_blk = tl.make_block_ptr(b, (K, N), (s_bk, s_bn), (0, tn * BN), (BK, BN), (0, 1))
    m = tm * BM + tl.arange(0, BM)
    n = tn * BN + tl.arange(0, BN)
    total = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        x = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero").to(tl.float32)
        y = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero").to(tl.float32)
        part = tl.dot(x, y, input_precision="ieee")
        if GROUPED:
            g = k0 // 128
            ra = tl.load(sa + m * s_sam + g * s_sak, mask=m < M, other=0.0)
            rb = tl.load(sb + g * s_sbk + (n // 128) * s_sbn, mask=n < N, other=0.0)
            part = part * ra[:, None] * rb[None, :]
        total += part
        a_blk = tl.advance(a_blk, (0, BK))
        b_blk = tl.advance(b_blk, (BK, 0))
    if not GROUPED:
        total *= tl.load(sa + m * s_sam, mask=m < M, other=0.0)[:, None]
        total *= tl.load(sb + n * s_sbn, mask=n < N, other=0.0)[None, :]
    if HAS_BIAS:
        total += tl.load(bias + n, mask=n < N, other=0.0).to(tl.float32)[None, :]
    ptrs = c + m[:, None].to(tl.int64) * N + n[None, :]
    tl.store(ptrs, total.to(c.dtype.element_ty), mask=(m[:, None] < M) & (n[None, :] < N))


def cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None):
    lead = a.shape[:-1]
    a = a.reshape(-1, a.shape[-1])
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, device=a.device, dtype=out_dtype)
    grouped = scale_a.numel() not in (1, M) or scale_b.numel() not in (1, N)
    if grouped:
        sa, sb = scale_a, scale_b
        strides = (*sa.stride(), *sb.stride())
    else:  # one scale per row and per column, broadcast by zero strides
        sa = scale_a.reshape(-1).expand(M)
        sb = scale_b.reshape(-1).expand(N)
        strides = (sa.stride(0), 0, 0, sb.stride(0))
    if M and N:
        BM, BN, BK = 32, 64, 128 if grouped else 64
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        scaled_gemm[grid](a, b, sa, sb, c if bias is None else bias, c, M, N, K, a.stride(0), b.stride(0),
                          b.stride(1), *strides, GROUPED=grouped, HAS_BIAS=bias is not None,
                          BM=BM, BN=BN, BK=BK, GROUP_M=8)
    return c.reshape(*lead, N)
