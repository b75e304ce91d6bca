# op: vllm::awq_marlin_moe_repack
# idiom: one program per (expert, k-tile) looping over the n-tiles; slots unrolled with static_range

"""AWQ -> Marlin: each program walks one row of tiles, building every word from its thread's
column and rows, one slot at a time."""

import torch
import triton
import triton.language as tl


@triton.jit
def awq_to_marlin(src, dst, size_k, size_n, k_tiles, BITS: tl.constexpr, A8: tl.constexpr):
    pid = tl.program_id(0)
    e = (pid // k_tiles).to(tl.int64)
    kt = pid % k_tiles
    PACK: tl.constexpr = 32 // BITS
    TK: tl.constexpr = 32 if A8 else 16
    TN: tl.constexpr = 32 if A8 else 64
    WORDS: tl.constexpr = TK * TN // PACK
    w = tl.arange(0, WORDS)
    if BITS == 4:
        th, warp, h = w // 4, w % 4, 0
    else:
        th, warp, h = w // 8, (w // 2) % 4, w % 2
    if A8:
        col = (warp // 2) * 16 + th // 4 + (warp % 2) * 8
    else:
        col = warp * 16 + th // 4
    stride = size_n // PACK
    n_tiles = size_n // TN
    for nt in range(0, n_tiles):
        acc = tl.zeros((WORDS,), tl.int64)
        for s in tl.static_range(PACK):
            if A8:
                v = s // 2 + (s % 2) * 4 if BITS == 4 else h * 4 + s
                row = (th % 4) * 4 + v % 4 + (v // 4) * 16
                c = col
            else:
                v = (s % 4) * 2 + s // 4 if BITS == 4 else h * 4 + (s % 2) * 2 + s // 2
                row = (th % 4) * 2 + (v % 4) % 2 + ((v % 4) // 2) * 8
                c = col + (v // 4) * 8
            n = nt * TN + c
            k = kt * TK + row
            word = tl.load(src + e * size_k * stride + k * stride + n // PACK).to(tl.int64)
            r = n % PACK
            slot = (r % 2) * (PACK // 2) + r // 2
            acc |= ((word >> (slot * BITS)) & ((1 << BITS) - 1)) << (s * BITS)
        base = e * size_k * size_n // PACK + (kt * n_tiles + nt) * WORDS
        tl.store(dst + base + w, acc.to(tl.uint32).to(tl.int32, bitcast=True))


def awq_marlin_moe_repack(b_q_weight, perm, size_k, size_n, num_bits, is_a_8bit=False):
    e = b_q_weight.shape[0]
    out = b_q_weight.new_empty((e, size_k // 16, size_n * num_bits // 2))
    k_tiles = size_k // (32 if is_a_8bit else 16)
    if e * k_tiles:
        awq_to_marlin[(e * k_tiles,)](b_q_weight, out, size_k, size_n, k_tiles, BITS=num_bits, A8=is_a_8bit)
    return out
