# op: vllm::moe_sum
# idiom: persistent grid-stride kernel over the flat [tokens * hidden] output, float64 accumulator for fp32, empty_like scratch then out.copy_

"""Top-k reduction of MoE expert outputs with a fixed number of persistent programs.

Each program strides over the flattened output; element o = t * hidden + h sums input[t, j, h]
over j. Sums run in float64 for float32 inputs and float32 otherwise, into a scratch tensor
that is copied into the caller's output.
"""

from typing import Tuple

import torch
import triton
import triton.language as tl

TILE = 512
MAX_PROGRAMS = 264


@triton.jit
def moe_sum_persistent(src, dst, total, hidden, topk, TILE: tl.constexpr, WIDE: tl.constexpr):
    n_prog = tl.num_programs(0)
    for start in range(tl.program_id(0) * TILE, total, n_prog * TILE):
        o = start + tl.arange(0, TILE)
        live = o < total
        t = o // hidden
        h = o - t * hidden
        row = t.to(tl.int64) * topk * hidden + h
        if WIDE:
            s = tl.zeros([TILE], dtype=tl.float64)
        else:
            s = tl.zeros([TILE], dtype=tl.float32)
        for j in range(topk):
            v = tl.load(src + row + j * hidden, mask=live, other=0.0)
            s += v.to(s.dtype)
        tl.store(dst + o, s.to(dst.dtype.element_ty), mask=live)


def _launch_shape(total: int) -> Tuple[int]:
    return (max(1, min(MAX_PROGRAMS, triton.cdiv(total, TILE))),)


def moe_sum(input: torch.Tensor, output: torch.Tensor) -> None:
    topk, hidden = input.shape[1], input.shape[2]
    total = output.numel()
    if total == 0:
        return
    out = torch.empty_like(output)
    moe_sum_persistent[_launch_shape(total)](input, out, total, hidden, topk, TILE=TILE,
                                             WIDE=input.dtype == torch.float32)
    output.copy_(out)


if __name__ == "__main__":
    x = torch.randn(5, 3, 70)
    y = torch.empty(5, 70)
    moe_sum(x, y)
    print((y - x.sum(1)).abs().max().item())
