"""vllm::gptq_marlin_gemm in Triton: out = a @ W with W dequantised in-kernel from Marlin words.

Each program owns a BLOCK_M x BLOCK_N tile of out and walks k in steps of BLOCK_K. For every
(k, n) of a step it finds the Marlin word and slot holding the code (the inverse of the repack's
tile order), reads the scale of k's group from its permuted place, dequantises
(code - bias) * scale in float32, rounds it to a's dtype and accumulates a @ W in float32.
"""

import torch
import triton
import triton.language as tl

UINT4B8 = 4 << 8 | 8 << 17 | 1 << 50
UINT8B128 = 8 << 8 | 128 << 17 | 1 << 50
TYPES = {UINT4B8: (4, 8), UINT8B128: (8, 128)}


@triton.jit
def _marlin_word_of(k, n, size_n, BITS: tl.constexpr):
    """(flat word, bit shift) of code (k, n) in Marlin's order (16 x 64 tiles)."""
    PACK: tl.constexpr = 32 // BITS
    TILE_WORDS: tl.constexpr = 16 * 64 // PACK
    dk = k % 16
    dn = n % 64
    warp = dn // 16
    half = (dn % 16) // 8
    th = (dn % 8) * 4 + (dk % 8) // 2
    t = (dk // 8) * 2 + dk % 2
    if BITS == 4:
        j = half * 4 + t
        word = th * 4 + warp
        slot = (j % 2) * 4 + j // 2
    else:
        word = th * 8 + warp * 2 + half
        slot = (t % 2) * 2 + t // 2
    tile = (k // 16) * (size_n // 64) + n // 64
    return tile.to(tl.int64) * TILE_WORDS + word, slot * BITS


@triton.jit
def _scale_index(g, n, size_n, GROUPED: tl.constexpr):
    """Flat position in Marlin's permuted scales of the scale of group g, column n."""
    p = g.to(tl.int64) * size_n + n
    if GROUPED:
        lane = p % 64
        return p - lane + (lane % 8) * 8 + lane // 8
    lane = p % 32
    return p - lane + ((lane % 8) // 2) * 8 + (lane // 8) * 2 + lane % 2


@triton.jit
def _gemm_kernel(a_ptr, w_ptr, s_ptr, out_ptr, m, n_size, k_size, group, bias,
                 BITS: tl.constexpr, GROUPED: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < m
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k0 in range(0, k_size, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows.to(tl.int64)[:, None] * k_size + ks[None, :], mask=row_ok[:, None], other=0.0)
        word_idx, shift = _marlin_word_of(ks[:, None], cols[None, :], n_size, BITS)
        words = tl.load(w_ptr + word_idx)
        codes = (words.to(tl.uint32, bitcast=True) >> shift.to(tl.uint32)) & ((1 << BITS) - 1)
        scales = tl.load(s_ptr + _scale_index(ks[:, None] // group, cols[None, :], n_size, GROUPED))
        w = ((codes.to(tl.int32) - bias).to(tl.float32) * scales.to(tl.float32)).to(a.dtype)
        acc += tl.dot(a.to(tl.float32), w.to(tl.float32), input_precision="ieee")
    out = out_ptr + rows.to(tl.int64)[:, None] * n_size + cols[None, :]
    tl.store(out, acc.to(out_ptr.dtype.element_ty), mask=row_ok[:, None])


def gptq_marlin_gemm(a, c, b_q_weight, b_bias, b_scales, a_scales, global_scale, b_zeros, g_idx, perm, workspace,
                     b_q_type, size_m, size_n, size_k, is_k_full=True, use_atomic_add=False, use_fp32_reduce=False,
                     is_zp_float=False):
    bits, bias = TYPES[b_q_type]
    out = torch.empty((size_m, size_n), dtype=a.dtype, device=a.device)
    if size_m == 0:
        return out
    groups = b_scales.shape[0]
    block_m = 16 if size_m <= 16 else 64
    block_n, block_k = 64, 32
    grid = (triton.cdiv(size_m, block_m), size_n // block_n)
    _gemm_kernel[grid](a, b_q_weight, b_scales, out, size_m, size_n, size_k, size_k // groups, bias,
                       BITS=bits, GROUPED=groups > 1, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                       num_warps=4)
    return out
