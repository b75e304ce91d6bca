"""vllm::allspark_w8a16_gemm in Triton: fp16/bf16 activations times N32K16-ordered uint8 weights.

Each [BLOCK_K, BLOCK_N] weight tile is gathered straight from AllSpark's N32K16 byte order (the
offsets are computed per element, so no repacked copy is made) and biased by -128, which is exact in
fp16 and bf16; the dot accumulates in float32. The per-column zero point and scale are applied in
float32 after the sum: a @ ((q - 128 - z) * s) = s * (a @ (q - 128) - z * rowsum(a)). Triton 3.6's
CPU interpreter multiplies bfloat16 tiles as raw 16-bit integers, so there they are widened first.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _w8a16_kernel(a_ptr, q_ptr, s_ptr, z_ptr, c_ptr, M, N, K,
                  HAS_ZP: tl.constexpr, WIDEN: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = rm < M
    n_ok = rn < N
    t = rn % 32
    row_off = ((rn // 32) * 8 + rn % 8).to(tl.int64) * (4 * K)
    col_n = 8 * (t // 16) + 4 * ((t // 8) % 2)
    a_rows = a_ptr + rm.to(tl.int64)[:, None] * K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    rowsum = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_ok = ks < K
        a = tl.load(a_rows + ks[None, :], mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        s = ks % 16
        col_k = 64 * (ks // 16) + 16 * ((s % 8) // 2) + 2 * (s // 8) + s % 2
        q = tl.load(q_ptr + row_off[None, :] + (col_k[:, None] + col_n[None, :]),
                    mask=k_ok[:, None] & n_ok[None, :], other=128)
        w = (q.to(tl.float32) - 128.0).to(a_ptr.dtype.element_ty)
        if WIDEN:  # exact: the interpreter multiplies bfloat16 tiles as raw integers
            acc = tl.dot(a.to(tl.float32), w.to(tl.float32), acc, input_precision="ieee")
        else:
            acc = tl.dot(a, w, acc)
        if HAS_ZP:
            rowsum += tl.sum(a.to(tl.float32), axis=1)
    p = 32 * (rn // 32) + 4 * (rn % 8) + t // 8
    scale = tl.load(s_ptr + p, mask=n_ok, other=0.0).to(tl.float32)
    if HAS_ZP:
        zero = tl.load(z_ptr + p, mask=n_ok, other=0.0).to(tl.float32)
        acc -= rowsum[:, None] * zero[None, :]
    out = acc * scale[None, :]
    c = c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c, out.to(c_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def allspark_w8a16_gemm(a, b_qweight, b_scales, b_qzeros, n, group_size, sm_count, sm_version,
                        CUBLAS_M_THRESHOLD, has_zp, n32k16_reorder):  # noqa: N803
    M, K = a.shape
    out = torch.empty((M, n), dtype=a.dtype, device=a.device)
    if M and n:
        block_m = 16 if M <= 16 else (64 if M <= 64 else 128)
        block_n, block_k = 128, 64
        grid = (triton.cdiv(M, block_m), triton.cdiv(n, block_n))
        _w8a16_kernel[grid](a, b_qweight, b_scales, b_qzeros if has_zp else b_scales, out, M, n, K,
                            HAS_ZP=has_zp, WIDEN=a.device.type == "cpu" and a.dtype == torch.bfloat16,
                            BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                            num_warps=8 if block_m >= 64 else 4)
    return out
