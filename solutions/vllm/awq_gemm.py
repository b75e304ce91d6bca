"""vllm::awq_gemm in Triton: C = input @ W with the AWQ 4-bit weight dequantised inside the K loop.

AWQ packs eight output columns per int32 in the order (0, 2, 4, 6, 1, 3, 5, 7), so column c of a
word sits in nibble c // 2 + 4 * (c % 2); zero points are packed the same way and used as stored.
A K step never crosses a group (group sizes are multiples of 32), so each step reads one row of
scales and zeros per column. split_k_iters only says how vLLM's kernel splits K: one pass over K
gives the same sum.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _awq_nibbles(ptr, rows, cols, mask, NW):
    word = tl.load(ptr + rows * NW + cols // 8, mask=mask, other=0)
    c = cols % 8
    return (word >> (4 * (c // 2 + 4 * (c % 2)))) & 0xF


@triton.jit
def _awq_gemm_kernel(x_ptr, qw_ptr, s_ptr, qz_ptr, c_ptr, M, N, K, group_size,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = offs_m < M
    n_ok = offs_n[None, :] < N
    cols = offs_n[None, :]
    nw = N // 8
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :], mask=m_ok[:, None], other=0.0)
        q = _awq_nibbles(qw_ptr, offs_k[:, None], cols, n_ok, nw)
        g = k0 // group_size
        z = _awq_nibbles(qz_ptr, g, cols, n_ok, nw)
        s = tl.load(s_ptr + g * N + cols, mask=n_ok, other=0.0)
        w = ((q - z).to(tl.float32) * s.to(tl.float32)).to(tl.float16)
        acc += tl.dot(x, w)
    tl.store(c_ptr + offs_m[:, None].to(tl.int64) * N + cols, acc.to(tl.float16), mask=m_ok[:, None] & n_ok)


def awq_gemm(input, qweight, scales, qzeros, split_k_iters):
    m, k = input.shape
    n = qweight.shape[1] * 8
    c = torch.empty((m, n), dtype=input.dtype, device=input.device)
    if m == 0:
        return c
    group_size = k // scales.shape[0]
    block_k = 64 if group_size % 64 == 0 else 32
    block_m = 16 if m <= 16 else (32 if m <= 32 else 64)
    block_n = 32 if m <= 16 and n <= 8192 else (64 if m <= 64 else 128)
    grid = (triton.cdiv(n, block_n), triton.cdiv(m, block_m))
    _awq_gemm_kernel[grid](input, qweight, scales, qzeros, c, m, n, k, group_size,
                           BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=4)
    return c
