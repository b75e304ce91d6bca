"""vllm::gptq_marlin_24_gemm in Triton: out = a @ W, W decompressed from 2:4-sparse Marlin words
and CUTLASS-ordered metadata in-kernel.

Each program owns a BLOCK_M x BLOCK_N tile of out and walks the dense k in steps of BLOCK_K. For
every (k, n) of a step it reads the metadata nibble of k's group of 4: if k's position in the group
is one of the two kept ones, the code is the group's first or second kept entry (compressed row
2 * (k // 4) + which), found in its Marlin word; otherwise the weight is 0. Dequantised in float32,
rounded to fp16 as Marlin does, accumulated in float32.
"""

import torch
import triton
import triton.language as tl

UINT4B8 = 4 << 8 | 8 << 17 | 1 << 50
UINT8B128 = 8 << 8 | 128 << 17 | 1 << 50
TYPES = {UINT4B8: (4, 8), UINT8B128: (8, 128)}


@triton.jit
def _kept_word_of(j, n, size_n, BITS: tl.constexpr):
    """(flat word, bit shift) of compressed code (j, n) in the 2:4 Marlin order (16 x 64 tiles)."""
    PACK: tl.constexpr = 32 // BITS
    dj = j % 16
    dn = n % 64
    th = (dn // 8) * 4 + (dj % 8) // 2
    r = (dj // 8) * 2 + dj % 2
    half = (dn % 8) // 4
    lane = dn % 4
    if BITS == 4:
        v = half * 4 + r
        word = th * 4 + lane
        slot = (v % 2) * 4 + v // 2
    else:
        word = th * 8 + lane * 2 + half
        slot = (r % 2) * 2 + r // 2
    tile = (j // 16) * (size_n // 64) + n // 64
    return tile.to(tl.int64) * (1024 // PACK) + word, slot * BITS


@triton.jit
def _meta_index(k, n, size_n):
    """Flat b_meta position of the 16-bit metadata of (dense k // 16, column n)."""
    c = k // 16
    row = (n // 64) * 64 + (n % 2) * 2 + ((n // 2) % 2) * 32 + (n // 4) % 2 + ((n // 8) % 8) * 4
    return (c // 2).to(tl.int64) * 2 * size_n + (row - row % 2 + c % 2) * 2 + row % 2


@triton.jit
def _scale_index(g, n, size_n, GROUPED: tl.constexpr):
    if GROUPED:
        p = g.to(tl.int64) * size_n + n
        x = p % 8
        index = p - x + (x % 4) * 2 + x // 4
    else:
        index = (n + 0 * g).to(tl.int64)
    return index  # one return: the GPU compiler types every return, the constexpr-dead one too


@triton.jit
def _gemm24_kernel(a_ptr, w_ptr, meta_ptr, s_ptr, out_ptr, m, n_size, k_size, group, bias,
                   BITS: tl.constexpr, GROUPED: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < m
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k0 in range(0, k_size, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows.to(tl.int64)[:, None] * k_size + ks[None, :], mask=row_ok[:, None], other=0.0)
        kk = ks[:, None]
        nn = cols[None, :]
        meta = tl.load(meta_ptr + _meta_index(kk, nn, n_size)).to(tl.int32) & 0xFFFF
        nibble = (meta >> (((kk // 4) % 4) * 4)) & 0xF
        pos = kk % 4
        first = pos == (nibble & 3)
        kept = first | (pos == (nibble >> 2))
        j = (kk // 4) * 2 + tl.where(first, 0, 1)
        word_idx, shift = _kept_word_of(j, nn, n_size, BITS)
        words = tl.load(w_ptr + word_idx, mask=kept, other=0)
        codes = (words.to(tl.uint32, bitcast=True) >> shift.to(tl.uint32)) & ((1 << BITS) - 1)
        scales = tl.load(s_ptr + _scale_index(kk // group, nn, n_size, GROUPED))
        w = ((codes.to(tl.int32) - bias).to(tl.float32) * scales.to(tl.float32)).to(tl.float16)
        w = tl.where(kept, w, 0.0)
        acc += tl.dot(a.to(tl.float32), w.to(tl.float32), input_precision="ieee")
    out = out_ptr + rows.to(tl.int64)[:, None] * n_size + cols[None, :]
    tl.store(out, acc.to(out_ptr.dtype.element_ty), mask=row_ok[:, None])


def gptq_marlin_24_gemm(a, b_q_weight, b_meta, b_scales, workspace, b_q_type, size_m, size_n, size_k):
    bits, bias = TYPES[b_q_type]
    out = torch.empty((size_m, size_n), dtype=a.dtype, device=a.device)
    groups = b_scales.shape[0]
    block_m = 16 if size_m <= 16 else 64
    block_n, block_k = 64, 32
    grid = (triton.cdiv(size_m, block_m), size_n // block_n)
    _gemm24_kernel[grid](a, b_q_weight, b_meta, b_scales, out, size_m, size_n, size_k, size_k // groups, bias,
                         BITS=bits, GROUPED=groups > 1, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                         num_warps=4)
    return out
