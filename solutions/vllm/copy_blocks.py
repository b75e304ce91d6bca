"""vllm::copy_blocks in Triton: one launch per layer copies that layer's key and value blocks.

Each program copies one chunk of one (src, dst) pair in both caches of the layer. vLLM copies
key_caches[0][0].numel() elements per block of every cache, which is what is copied here.
"""

import torch
import triton
import triton.language as tl

CHUNK = 4096


@triton.jit
def _copy_kernel(key_ptr, value_ptr, map_ptr, block_elems, BLOCK: tl.constexpr):
    pair = tl.program_id(0)
    src = tl.load(map_ptr + 2 * pair) * block_elems
    dst = tl.load(map_ptr + 2 * pair + 1) * block_elems
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < block_elems
    tl.store(key_ptr + dst + offs, tl.load(key_ptr + src + offs, mask=mask), mask=mask)
    tl.store(value_ptr + dst + offs, tl.load(value_ptr + src + offs, mask=mask), mask=mask)


def copy_blocks(key_caches: list[torch.Tensor], value_caches: list[torch.Tensor], block_mapping: torch.Tensor) -> None:
    pairs = block_mapping.shape[0]
    block_elems = key_caches[0][0].numel()
    block = min(CHUNK, triton.next_power_of_2(block_elems))
    grid = (pairs, triton.cdiv(block_elems, block))
    for key_cache, value_cache in zip(key_caches, value_caches):
        _copy_kernel[grid](key_cache, value_cache, block_mapping, block_elems, BLOCK=block, num_warps=4)
