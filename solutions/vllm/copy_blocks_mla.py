"""vllm::copy_blocks_mla in Triton: one launch per layer copies that layer's blocks.

Each program copies one chunk of one (src, dst) pair. vLLM copies kv_caches[0].stride(0)
elements per block of every layer (a block with its padding), which is what is copied here.
"""

import torch
import triton
import triton.language as tl

CHUNK = 4096


@triton.jit
def _copy_kernel(cache_ptr, map_ptr, block_elems, BLOCK: tl.constexpr):
    pair = tl.program_id(0)
    src = tl.load(map_ptr + 2 * pair) * block_elems
    dst = tl.load(map_ptr + 2 * pair + 1) * block_elems
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < block_elems
    tl.store(cache_ptr + dst + offs, tl.load(cache_ptr + src + offs, mask=mask), mask=mask)


def copy_blocks_mla(kv_caches: list[torch.Tensor], block_mapping: torch.Tensor) -> None:
    pairs = block_mapping.shape[0]
    block_elems = kv_caches[0].stride(0)
    block = min(CHUNK, triton.next_power_of_2(block_elems))
    grid = (pairs, triton.cdiv(block_elems, block))
    for cache in kv_caches:
        _copy_kernel[grid](cache, block_mapping, block_elems, BLOCK=block, num_warps=4)
