"""vllm::swap_blocks in Triton: a 2-D grid of (block pair, chunk of the block).

Like vLLM, a block is the stride(0) elements that start at its index, copied verbatim; each
program copies one chunk of one pair, reading the pair from block_mapping on the device.
"""

import torch
import triton
import triton.language as tl

CHUNK = 4096


@triton.jit
def _swap_kernel(src_ptr, dst_ptr, map_ptr, block_elems, src_stride, dst_stride, BLOCK: tl.constexpr):
    pair = tl.program_id(0)
    src_block = tl.load(map_ptr + 2 * pair)
    dst_block = tl.load(map_ptr + 2 * pair + 1)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < block_elems
    vals = tl.load(src_ptr + src_block * src_stride + offs, mask=mask)
    tl.store(dst_ptr + dst_block * dst_stride + offs, vals, mask=mask)


def swap_blocks(src: torch.Tensor, dst: torch.Tensor, block_mapping: torch.Tensor) -> None:
    pairs = block_mapping.shape[0]
    block_elems = src.stride(0)
    block = min(CHUNK, triton.next_power_of_2(block_elems))
    grid = (pairs, triton.cdiv(block_elems, block))
    _swap_kernel[grid](src, dst, block_mapping, block_elems, src.stride(0), dst.stride(0), BLOCK=block, num_warps=4)
