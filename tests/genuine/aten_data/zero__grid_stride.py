# op: aten::zero_
# idiom: a persistent grid-stride loop (tl.num_programs(0)) writing zeros through self's strides, any of up to 5 dims unravelled from the logical index; the grid is capped at a fixed number of programs

import torch
import triton
import triton.language as tl

BLOCK = 256
MAX_PROGRAMS = 8


@triton.jit
def zero_kernel(ptr, numel, n1, n2, n3, n4, s0, s1, s2, s3, s4, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    zeros = tl.zeros([BLOCK], dtype=ptr.dtype.element_ty)
    for start in range(pid * BLOCK, numel, nprog * BLOCK):
        idx = start + tl.arange(0, BLOCK).to(tl.int64)
        m = idx < numel
        r = idx
        c4 = r % n4
        r = r // n4
        c3 = r % n3
        r = r // n3
        c2 = r % n2
        r = r // n2
        c1 = r % n1
        c0 = r // n1
        tl.store(ptr + c0 * s0 + c1 * s1 + c2 * s2 + c3 * s3 + c4 * s4, zeros, mask=m)


def zero_(self):
    numel = self.numel()
    if numel == 0:
        return self
    if self.dim() > 5:
        raise NotImplementedError("zero_: at most 5 dims")
    lead = 5 - self.dim()
    sizes = [1] * lead + list(self.shape)
    strides = [0] * lead + list(self.stride())
    programs = min(MAX_PROGRAMS, triton.cdiv(numel, BLOCK))
    zero_kernel[(programs,)](self, numel, *sizes[1:], *strides, BLOCK=BLOCK)
    return self
