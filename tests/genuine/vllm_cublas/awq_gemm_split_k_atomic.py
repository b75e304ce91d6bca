# op: vllm::awq_gemm
# idiom: split-K as vLLM does it (split_k_iters programs per tile interleave the 32-row K steps), fp32 partial sums atomically added into a zeroed workspace, cast to fp16 on the host

"""AWQ GEMM with split-K: every (column tile, row tile, split) program adds its share of K."""

import torch
import triton
import triton.language as tl

SHIFTS = (0, 16, 4, 20, 8, 24, 12, 28)  # bit offset of AWQ column c within its word


@triton.jit
def awq_split_k(x, qw, scales, qz, acc_ptr, M, N, K, gsize, splits,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.program_id(1) * BM + tl.arange(0, BM)
    part = tl.program_id(2)
    col_in_word = rn % 8
    shift = (col_in_word % 2) * 16 + (col_in_word // 2) * 4
    total = tl.zeros((BM, BN), tl.float32)
    for step in range(part, K // BK, splits):
        rk = step * BK + tl.arange(0, BK)
        xa = tl.load(x + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.0)
        packed = tl.load(qw + rk[:, None] * (N // 8) + (rn // 8)[None, :])
        grp = (step * BK) // gsize
        zp = (tl.load(qz + grp * (N // 8) + rn // 8) >> shift) & 15
        sc = tl.load(scales + grp * N + rn).to(tl.float32)
        deq = ((((packed >> shift[None, :]) & 15) - zp[None, :]).to(tl.float32) * sc[None, :]).to(tl.float16)
        total += tl.dot(xa, deq)
    out = acc_ptr + rm[:, None] * N + rn[None, :]
    tl.atomic_add(out, total, mask=rm[:, None] < M)


def awq_gemm(input, qweight, scales, qzeros, split_k_iters):
    M, K = input.shape
    N = qweight.shape[1] * 8
    acc = torch.zeros((M, N), dtype=torch.float32, device=input.device)
    BK = 32
    splits = max(1, min(split_k_iters, K // BK))
    grid = (N // 64, triton.cdiv(M, 16), splits)
    awq_split_k[grid](input, qweight, scales, qzeros, acc, M, N, K, K // scales.shape[0], splits,
                      BM=16, BN=64, BK=BK)
    return acc.to(torch.float16)
