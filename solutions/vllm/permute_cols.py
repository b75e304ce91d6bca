"""vllm::permute_cols in Triton: out[:, j] = a[:, perm[j]].

A 2-D grid of (row block, column block) tiles: each program loads its slice of perm once and
gathers those columns for a block of rows, storing contiguously.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _permute_cols_kernel(a_ptr, perm_ptr, out_ptr, m, k, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    col_ok = cols < k
    src = tl.load(perm_ptr + cols, mask=col_ok, other=0).to(tl.int64)
    mask = (rows < m)[:, None] & col_ok[None, :]
    base = rows.to(tl.int64)[:, None] * k
    vals = tl.load(a_ptr + base + src[None, :], mask=mask)
    tl.store(out_ptr + base + cols[None, :], vals, mask=mask)


def permute_cols(a, perm):
    m, k = a.shape
    out = torch.empty((m, k), dtype=a.dtype, device=a.device)
    if m == 0 or k == 0:
        return out
    block_k = min(triton.next_power_of_2(k), 512)
    block_m = min(triton.next_power_of_2(m), max(1, 4096 // block_k))
    grid = (triton.cdiv(m, block_m), triton.cdiv(k, block_k))
    _permute_cols_kernel[grid](a, perm, out, m, k, BLOCK_M=block_m, BLOCK_K=block_k, num_warps=4)
    return out
