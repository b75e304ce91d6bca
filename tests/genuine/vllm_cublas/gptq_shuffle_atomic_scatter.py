# op: vllm::gptq_shuffle
# idiom: scatter, not gather: one program per tile of source values reads each field once and ORs its bits into their exllama positions of a zero-filled buffer with tl.atomic_or, then a copy kernel writes the buffer back

"""gptq_shuffle by scattering bits: every source value knows where each of its bits goes."""

import torch
import triton
import triton.language as tl


@triton.jit
def zero_fill(buf, numel, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(buf + i, tl.zeros((BLOCK,), tl.int32), mask=i < numel)


@triton.jit
def copy_back(src, dst, numel, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + i, tl.load(src + i, mask=i < numel), mask=i < numel)


@triton.jit
def scatter_bits(qw, perm, out, K, N, B: tl.constexpr, HAS_PERM: tl.constexpr,
                 TK: tl.constexpr, TN: tl.constexpr):
    k = tl.program_id(0) * TK + tl.arange(0, TK)[:, None]   # destination (sequential) row
    n = tl.program_id(1) * TN + tl.arange(0, TN)[None, :]
    ok = (k < K) & (n < N)
    src = k
    if HAS_PERM:
        src = tl.load(perm + k, mask=k < K, other=0)
    # values per unit and words per unit: 32 values in 3 words for 3 bits, else one word
    UV: tl.constexpr = 32 if B == 3 else 32 // B
    UW: tl.constexpr = 3 if B == 3 else 1
    v_src = src % UV
    v = k % UV
    for b in tl.static_range(B):
        spos = v_src * B + b
        sword = tl.load(qw + ((src // UV) * UW + spos // 32) * N + n, mask=ok, other=0)
        bitval = (sword >> (spos % 32)) & 1
        if B == 8:
            dpos = v * 8 + b
        elif B == 3:
            r = v % 10
            dpos = tl.where(v < 30, (v // 10) * 32 + (r % 2) * 16 + (r // 2) * 3 + b, b * 32 + (v - 30) * 16 + 15)
        else:
            dpos = (v % 2) * 16 + (v // 2) * B + b
        dst = out + ((k // UV) * UW + dpos // 32) * N + n
        tl.atomic_or(dst, bitval << (dpos % 32), mask=ok)


def gptq_shuffle(q_weight, q_perm, bit):
    rows, N = q_weight.shape
    K = rows * 32 // bit
    numel = q_weight.numel()
    if numel == 0:
        return
    buf = torch.empty_like(q_weight)
    zero_fill[(triton.cdiv(numel, 1024),)](buf, numel, BLOCK=1024)
    has_perm = q_perm.numel() > 0
    scatter_bits[(triton.cdiv(K, 32), triton.cdiv(N, 32))](q_weight, q_perm if has_perm else q_weight, buf, K, N,
                                                          B=bit, HAS_PERM=has_perm, TK=32, TN=32)
    copy_back[(triton.cdiv(numel, 1024),)](buf, q_weight, numel, BLOCK=1024)
