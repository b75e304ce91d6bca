"""vllm::marlin_int4_fp8_preprocess in Triton: every 4-bit code q of a packed int32 word becomes
q - z if q >= z else 15 - q (z = 8, or the AWQ zero point in the same slot of the group's word).

One program per block of words; the 8 nibbles of each word are unpacked along a second axis,
rewritten and packed back with a sum of disjoint shifted fields. In place the result is stored over
qweight (each word is read before it is written by the same program).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _preprocess_kernel(q_ptr, z_ptr, out_ptr, numel, cols, group, HAS_ZEROS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = offs < numel
    shifts = (tl.arange(0, 8) * 4).to(tl.int64)
    word = tl.load(q_ptr + offs, mask=live, other=0).to(tl.int64)
    q = (word[:, None] >> shifts[None, :]) & 15
    if HAS_ZEROS:
        row = offs // cols
        zero = tl.load(z_ptr + (row // group) * cols + offs % cols, mask=live, other=0).to(tl.int64)
        z = (zero[:, None] >> shifts[None, :]) & 15
    else:
        z = tl.full((BLOCK, 8), 8, tl.int64)
    new = tl.where(q >= z, q - z, 15 - q)
    packed = tl.sum(new << shifts[None, :], axis=1)
    tl.store(out_ptr + offs, packed.to(tl.uint32).to(tl.int32, bitcast=True), mask=live)


def marlin_int4_fp8_preprocess(qweight, qzeros_or_none=None, inplace=False):
    out = qweight if inplace else torch.empty_like(qweight)
    numel = qweight.numel()
    if numel == 0:
        return out
    rows, cols = qweight.shape
    has_zeros = qzeros_or_none is not None
    group = rows // qzeros_or_none.shape[0] if has_zeros else 1
    block = 1024
    _preprocess_kernel[(triton.cdiv(numel, block),)](
        qweight, qzeros_or_none if has_zeros else qweight, out, numel, cols, group,
        HAS_ZEROS=has_zeros, BLOCK=block, num_warps=4)
    return out
