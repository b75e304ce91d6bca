"""vllm::moe_sum~mean in Triton: the mean over the top-k experts, in float32."""

import torch
import triton
import triton.language as tl

BLOCK_H = 1024


@triton.jit
def _moe_sum_kernel(out_ptr, in_ptr, k, hidden, BLOCK_H: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ok = cols < hidden
    base = in_ptr + token * k * hidden + cols
    acc = tl.zeros([BLOCK_H], dtype=tl.float32)
    for j in range(k):
        acc += tl.load(base + j * hidden, mask=ok, other=0.0).to(tl.float32)
    tl.store(out_ptr + token * hidden + cols, (acc / k).to(out_ptr.dtype.element_ty), mask=ok)


def moe_sum(input: torch.Tensor, output: torch.Tensor) -> None:
    tokens, k, hidden = input.shape
    if output.numel() == 0:
        return
    block = min(BLOCK_H, triton.next_power_of_2(hidden))
    grid = (tokens, triton.cdiv(hidden, block))
    _moe_sum_kernel[grid](output, input, k, hidden, BLOCK_H=block, num_warps=4)
