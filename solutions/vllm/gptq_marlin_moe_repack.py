"""vllm::gptq_marlin_moe_repack in Triton: GPTQ words [E, K / pack, N] -> Marlin tile order.

Each program builds a block of output words of one expert. For every (word, slot) the kernel
derives, from the word's flat index alone, the tile, the tensor-core thread and warp that own it,
and from those the (k, n) of the code that goes there; it then reads that code out of its GPTQ word
(after the act-order row permutation when one is given) and ORs it into place.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _marlin_slot_source(w, s, BITS: tl.constexpr, A8: tl.constexpr):
    """(k, n) inside its tile of the code in slot s of tile word w."""
    if BITS == 4:
        th = w // 4
        warp = w % 4
        h = w * 0
        if A8:
            j = (s % 2) * 4 + s // 2
        else:
            j = 2 * (s % 4) + s // 4
    else:
        th = w // 8
        warp = (w // 2) % 4
        h = w % 2
        if A8:
            j = h * 4 + s
        else:
            j = h * 4 + (s % 2) * 2 + s // 2
    if A8:
        dk = (th % 4) * 4 + j % 4 + (j // 4) * 16
        dn = (warp // 2) * 16 + th // 4 + (warp % 2) * 8
    else:
        t = j % 4
        dk = (th % 4) * 2 + t % 2 + (t // 2) * 8
        dn = warp * 16 + th // 4 + (j // 4) * 8
    return dk, dn


@triton.jit
def _gptq_repack_kernel(src_ptr, perm_ptr, out_ptr, size_k, size_n, words_per_expert,
                        BITS: tl.constexpr, A8: tl.constexpr, HAS_PERM: tl.constexpr, BLOCK: tl.constexpr):
    PACK: tl.constexpr = 32 // BITS
    TILE_K: tl.constexpr = 32 if A8 else 16
    TILE_N: tl.constexpr = 32 if A8 else 64
    TILE_WORDS: tl.constexpr = TILE_K * TILE_N // PACK
    e = tl.program_id(1).to(tl.int64)
    o = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = o < words_per_expert
    tile = o // TILE_WORDS
    w = o % TILE_WORDS
    n_tiles = size_n // TILE_N
    kt = tile // n_tiles
    nt = tile % n_tiles
    s = tl.arange(0, PACK)
    dk, dn = _marlin_slot_source(w[:, None], s[None, :], BITS, A8)
    k = kt[:, None] * TILE_K + dk
    n = nt[:, None] * TILE_N + dn
    mask = live[:, None] & (s[None, :] < PACK)
    if HAS_PERM:
        k = tl.load(perm_ptr + e * size_k + k, mask=mask, other=0).to(tl.int64)
    word = tl.load(src_ptr + e * (size_k // PACK) * size_n + (k // PACK) * size_n + n, mask=mask, other=0)
    code = (word.to(tl.int64) >> ((k % PACK) * BITS)) & ((1 << BITS) - 1)
    packed = tl.sum(code << (s[None, :] * BITS).to(tl.int64), axis=1)
    tl.store(out_ptr + e * words_per_expert + o, packed.to(tl.uint32).to(tl.int32, bitcast=True), mask=live)


def gptq_marlin_moe_repack(b_q_weight, perm, size_k, size_n, num_bits, is_a_8bit=False):
    experts = b_q_weight.shape[0]
    out = torch.empty((experts, size_k // 16, size_n * num_bits // 2), dtype=torch.int32, device=b_q_weight.device)
    words = size_k * size_n * num_bits // 32
    if experts == 0 or words == 0:
        return out
    has_perm = perm.shape[-1] != 0
    block = 512
    grid = (triton.cdiv(words, block), experts)
    _gptq_repack_kernel[grid](b_q_weight, perm if has_perm else b_q_weight, out, size_k, size_n, words,
                              BITS=num_bits, A8=bool(is_a_8bit), HAS_PERM=has_perm, BLOCK=block, num_warps=4)
    return out
