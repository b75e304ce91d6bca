# op: vllm::marlin_int4_fp8_preprocess
# idiom: one word per lane, the 8 nibbles rewritten in an unrolled loop; 2-D grid (rows, column blocks)

"""int4 codes re-based for Marlin's fp8 path, row by row."""

import torch
import triton
import triton.language as tl


@triton.jit
def rebase(q, z, out, cols, group, HAS_Z: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = j < cols
    val = tl.load(q + r * cols + j, mask=ok, other=0).to(tl.uint32, bitcast=True)
    if HAS_Z:
        zero = tl.load(z + (r // group) * cols + j, mask=ok, other=0).to(tl.uint32, bitcast=True)
    res = tl.zeros((BLOCK,), tl.uint32)
    for i in tl.static_range(8):
        x = (val >> (4 * i)) & 15
        zz = (zero >> (4 * i)) & 15 if HAS_Z else 8
        res |= tl.where(x >= zz, x - zz, 15 - x) << (4 * i)
    tl.store(out + r * cols + j, res.to(tl.int32, bitcast=True), mask=ok)


def marlin_int4_fp8_preprocess(qweight, qzeros_or_none=None, inplace=False):
    out = qweight if inplace else torch.empty_like(qweight)
    rows, cols = qweight.shape
    group = rows // qzeros_or_none.shape[0] if qzeros_or_none is not None else 1
    zeros = qzeros_or_none if qzeros_or_none is not None else qweight
    rebase[(rows, triton.cdiv(cols, 256))](qweight, zeros, out, cols, group, HAS_Z=qzeros_or_none is not None,
                                           BLOCK=256)
    return out
