"""vllm::gptq_gemm in Triton: C = A @ W with W dequantised tile by tile inside the GEMM loop.

Each program owns a [BLOCK_M, BLOCK_N] tile of C and walks K in BLOCK_K steps: it reads the packed
words that hold the tile's rows, extracts the fields (plain GPTQ packing, or the exllama layout
gptq_shuffle produces), subtracts the zero point (stored + 1 for GPTQ v1), scales to fp16 as vLLM's
dequantisation does, and feeds tl.dot with an fp32 accumulator. Sequential groups (exllama) let a
K step that lies inside one group read its scales and zeros once per column; the checkpoint layout
(use_exllama=False) reads each row's group through g_idx. 3-bit fields may straddle words, so
they are assembled bit by bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _field_position(v, i, BITS: tl.constexpr, SHUFFLED: tl.constexpr):
    """Bit position of bit i of value v inside its 3-word block (3-bit layouts only)."""
    if SHUFFLED:
        r = v % 10
        return tl.where(v < 30, 32 * (v // 10) + 16 * (r % 2) + 3 * (r // 2) + i, 32 * i + 16 * (v - 30) + 15)
    return 3 * v + i


@triton.jit
def _weight_fields(qw_ptr, rows, cols, mask, N, BITS: tl.constexpr, SHUFFLED: tl.constexpr):
    """Quantised values q[rows, cols] ([BK, 1] x [1, BN]) from the row-packed weight."""
    if BITS == 3:
        blk = rows // 32
        v = rows % 32
        q = tl.zeros(mask.shape, dtype=tl.int32)
        for i in tl.static_range(3):
            pos = _field_position(v, i, BITS, SHUFFLED)
            word = tl.load(qw_ptr + (blk * 3 + pos // 32) * N + cols, mask=mask, other=0)
            q |= ((word >> (pos % 32)) & 1) << i
        return q
    per: tl.constexpr = 32 // BITS
    p = rows % per
    if SHUFFLED and BITS != 8:
        shift = 16 * (p % 2) + BITS * (p // 2)
    else:
        shift = BITS * p
    word = tl.load(qw_ptr + (rows // per) * N + cols, mask=mask, other=0)
    return (word >> shift) & ((1 << BITS) - 1)


@triton.jit
def _zero_fields(qz_ptr, groups, cols, mask, ZW, BITS: tl.constexpr):
    """Zero points of `groups` (a scalar or [BK, 1]) for `cols` [1, BN], column-packed."""
    if BITS == 3:
        z = tl.zeros(mask.shape, dtype=tl.int32)
        for i in tl.static_range(3):
            pos = 3 * (cols % 32) + i
            word = tl.load(qz_ptr + groups * ZW + (cols // 32) * 3 + pos // 32, mask=mask, other=0)
            z |= ((word >> (pos % 32)) & 1) << i
        return z
    per: tl.constexpr = 32 // BITS
    word = tl.load(qz_ptr + groups * ZW + cols // per, mask=mask, other=0)
    return (word >> (BITS * (cols % per))) & ((1 << BITS) - 1)


@triton.jit
def _gptq_gemm_kernel(a_ptr, qw_ptr, qz_ptr, s_ptr, gidx_ptr, c_ptr, M, N, K, ZW, group_size, zero_offset,
                      BITS: tl.constexpr, SHUFFLED: tl.constexpr, PERM: tl.constexpr, ROW_GROUPS: tl.constexpr,
                      TILE_GROUP: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(1)
    pid_n = tl.program_id(0)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = offs_m < M
    n_ok = offs_n < N
    cols = offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        k_ok = offs_k < K
        if PERM:
            a_cols = tl.load(gidx_ptr + offs_k, mask=k_ok, other=0)
        else:
            a_cols = offs_k
        a = tl.load(a_ptr + offs_m[:, None].to(tl.int64) * K + a_cols[None, :],
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        w_mask = k_ok[:, None] & n_ok[None, :]
        q = _weight_fields(qw_ptr, offs_k[:, None], cols, w_mask, N, BITS, SHUFFLED)
        if TILE_GROUP:
            g = k0 // group_size
            g_mask = n_ok[None, :]
        elif ROW_GROUPS:
            g = tl.load(gidx_ptr + offs_k, mask=k_ok, other=0)[:, None]
            g_mask = w_mask
        else:
            g = (offs_k // group_size)[:, None]
            g_mask = w_mask
        z = _zero_fields(qz_ptr, g, cols, g_mask, ZW, BITS) + zero_offset
        s = tl.load(s_ptr + g * N + cols, mask=g_mask, other=0.0)
        w = ((q - z).to(tl.float32) * s.to(tl.float32)).to(tl.float16)
        acc += tl.dot(a, w)
    tl.store(c_ptr + offs_m[:, None].to(tl.int64) * N + cols, acc.to(tl.float16), mask=m_ok[:, None] & n_ok[None, :])


def gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama, use_v2_format, bit):
    m, k = a.shape
    n = b_q_weight.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    if m == 0 or n == 0:
        return c
    group_size = k // b_gptq_scales.shape[0]
    row_groups = not use_exllama
    block_k = 64 if group_size % 64 == 0 and not row_groups else 32
    block_m = 16 if m <= 16 else (32 if m <= 32 else 64)
    block_n = 32 if m <= 16 and n <= 8192 else (64 if m <= 64 else 128)
    grid = (triton.cdiv(n, block_n), triton.cdiv(m, block_m))
    g_idx = b_g_idx if b_g_idx.numel() else b_q_weight  # never read then; an empty tensor may have no address
    _gptq_gemm_kernel[grid](
        a, b_q_weight, b_gptq_qzeros, b_gptq_scales, g_idx, c, m, n, k, b_gptq_qzeros.shape[1], group_size,
        0 if use_v2_format else 1,
        BITS=bit, SHUFFLED=bool(use_exllama), PERM=bool(use_exllama) and b_g_idx.numel() > 0,
        ROW_GROUPS=row_groups, TILE_GROUP=not row_groups and group_size % block_k == 0,
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=4)
    return c
