"""vllm::gptq_shuffle in Triton: the exllama reordering of a GPTQ packed weight, in place.

Output words depend on other rows once an act-order permutation gathers them, so a first kernel
snapshots q_weight and a second one rebuilds every output word from the snapshot: each value slot
of the word finds its logical row (through q_perm when given), reads that row's field in the plain
packing and ORs it in at the slot's exllama position. 3-bit fields straddle words and the last two
values of a 3-word block are spread one bit per word, so those are moved bit by bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


@triton.jit
def _source_value(src_ptr, k, cols, mask, perm_ptr, N, BITS: tl.constexpr, PERM: tl.constexpr):
    """The plain-packing value of logical row k (row perm[k] of the source with a permutation)."""
    if PERM:
        k = tl.load(perm_ptr + k, mask=mask, other=0)
    if BITS == 3:
        v = k % 32
        val = tl.zeros(mask.shape, dtype=tl.int32)
        for i in tl.static_range(3):
            pos = 3 * v + i
            word = tl.load(src_ptr + ((k // 32) * 3 + pos // 32) * N + cols, mask=mask, other=0)
            val |= ((word >> (pos % 32)) & 1) << i
        return val
    per: tl.constexpr = 32 // BITS
    word = tl.load(src_ptr + (k // per) * N + cols, mask=mask, other=0)
    return (word >> (BITS * (k % per))) & ((1 << BITS) - 1)


@triton.jit
def _shuffle_kernel(src_ptr, dst_ptr, perm_ptr, R, N, BITS: tl.constexpr, PERM: tl.constexpr,
                    BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < R) & (cols < N)
    out = tl.zeros((BLOCK_R, BLOCK_N), dtype=tl.int32)
    if BITS == 3:
        base = (rows // 3) * 32
        j = rows % 3
        for slot in tl.static_range(10):
            val = _source_value(src_ptr, base + 10 * j + slot, cols, mask, perm_ptr, N, BITS, PERM)
            out |= val << (16 * (slot % 2) + 3 * (slot // 2))
        for h in tl.static_range(2):
            val = _source_value(src_ptr, base + 30 + h, cols, mask, perm_ptr, N, BITS, PERM)
            out |= ((val >> j) & 1) << (16 * h + 15)
    else:
        per: tl.constexpr = 32 // BITS
        for p in tl.static_range(per):
            val = _source_value(src_ptr, rows * per + p, cols, mask, perm_ptr, N, BITS, PERM)
            if BITS == 8:
                out |= val << (8 * p)
            else:
                out |= val << (16 * (p % 2) + BITS * (p // 2))
    tl.store(dst_ptr + rows * N + cols, out, mask=mask)


def gptq_shuffle(q_weight, q_perm, bit):
    r, n = q_weight.shape
    if r == 0 or n == 0:
        return
    snapshot = torch.empty_like(q_weight)
    numel = q_weight.numel()
    _copy_kernel[(triton.cdiv(numel, 4096),)](q_weight, snapshot, numel, BLOCK=4096)
    perm = q_perm.numel() > 0
    block_n = min(triton.next_power_of_2(n), 128)
    block_r = 8
    grid = (triton.cdiv(r, block_r), triton.cdiv(n, block_n))
    _shuffle_kernel[grid](snapshot, q_weight, q_perm if perm else snapshot, r, n, BITS=bit, PERM=perm,
                          BLOCK_R=block_r, BLOCK_N=block_n, num_warps=4)
