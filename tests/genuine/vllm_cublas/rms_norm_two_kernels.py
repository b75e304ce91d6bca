# op: vllm::rms_norm
# idiom: statistics kernel into a float32 rstd buffer, then a 2-D normalising kernel; input.contiguous().reshape(-1, hidden)

"""RMSNorm as two launches.

Pass 1 (`_rstd_kernel`) reduces each row to r = rsqrt(mean(x^2) + eps) and stores it in a small
float32 buffer. Pass 2 (`_normalise_kernel`) is a 2-D grid (rows x column blocks) that scales
x by its row's r, rounds to the input dtype like vLLM does, then multiplies by the weight.
"""

from typing import Tuple

import torch
import triton
import triton.language as tl

STATS_BLOCK = 1024  # columns reduced per loop step in the statistics pass
NORM_BLOCK = 1024   # columns written per program in the normalising pass


@triton.jit
def _rstd_kernel(x_ptr, rstd_ptr, hidden, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row.to(tl.int64) * hidden
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, hidden, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(base + cols, mask=cols < hidden, other=0.0).to(tl.float32)
        acc += v * v
    ms = tl.sum(acc, axis=0) / hidden
    tl.store(rstd_ptr + row, tl.rsqrt(ms + eps))


@triton.jit
def _normalise_kernel(x_ptr, w_ptr, rstd_ptr, out_ptr, hidden, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < hidden
    offs = row.to(tl.int64) * hidden + cols
    r = tl.load(rstd_ptr + row)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    normed = (x * r).to(x_ptr.dtype.element_ty).to(tl.float32)
    tl.store(out_ptr + offs, (normed * w).to(out_ptr.dtype.element_ty), mask=mask)


def _block_sizes(hidden: int) -> Tuple[int, int]:
    stats = min(STATS_BLOCK, triton.next_power_of_2(hidden))
    norm = min(NORM_BLOCK, triton.next_power_of_2(hidden))
    return stats, norm


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    hidden = input.shape[-1]
    if input.numel() == 0:
        return
    x2d = input.contiguous().reshape(-1, hidden)
    out2d = out.view(-1, hidden)
    w = weight.contiguous()
    n_rows = x2d.shape[0]

    rstd = torch.empty(n_rows, dtype=torch.float32, device=input.device)
    stats_block, norm_block = _block_sizes(hidden)
    _rstd_kernel[(n_rows,)](x2d, rstd, hidden, epsilon, BLOCK=stats_block, num_warps=4)
    grid = (n_rows, triton.cdiv(hidden, norm_block))
    _normalise_kernel[grid](x2d, w, rstd, out2d, hidden, BLOCK=norm_block, num_warps=4)
