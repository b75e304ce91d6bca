"""vllm::batched_moe_align_block_size in Triton: one scan program, then a gather-style writer.

The scan turns the per-expert token counts into padded segment ends. Every slot of sorted_ids and
expert_ids then finds its owning expert by counting the segment ends at or below it, so each
slot is written exactly once (token id, sentinel or -1) and no separate fill pass is needed.
"""

import torch
import triton
import triton.language as tl

TILE = 256


@triton.jit
def _scan_kernel(counts_ptr, ends_ptr, total_ptr, n_experts, block_size, BLOCK_E: tl.constexpr):
    experts = tl.arange(0, BLOCK_E)
    ok = experts < n_experts
    counts = tl.load(counts_ptr + experts, mask=ok, other=0)
    padded = (counts + block_size - 1) // block_size * block_size
    ends = tl.cumsum(padded, axis=0)
    tl.store(ends_ptr + experts, ends, mask=ok)
    tl.store(total_ptr, tl.sum(padded, axis=0))


@triton.jit
def _write_kernel(counts_ptr, ends_ptr, total_ptr, sorted_ptr, blocks_ptr, n_sorted, n_blocks, n_experts,
                  max_tokens, block_size, TILE: tl.constexpr, BLOCK_E: tl.constexpr):
    experts = tl.arange(0, BLOCK_E)
    e_ok = experts < n_experts
    ends = tl.load(ends_ptr + experts, mask=e_ok, other=2147483647)
    total = tl.load(total_ptr)
    slots = tl.program_id(0) * TILE + tl.arange(0, TILE)
    owner = tl.sum((ends[None, :] <= slots[:, None]).to(tl.int32), axis=1)
    safe = tl.minimum(owner, n_experts - 1)
    end = tl.load(ends_ptr + safe)
    count = tl.load(counts_ptr + safe)
    padded = (count + block_size - 1) // block_size * block_size
    within = slots - (end - padded)
    live = (slots < total) & (within < count)
    token = tl.where(live, owner * max_tokens + within, n_experts * max_tokens)
    tl.store(sorted_ptr + slots, token, mask=slots < n_sorted)
    starts = slots * block_size
    block_owner = tl.sum((ends[None, :] <= starts[:, None]).to(tl.int32), axis=1)
    block_owner = tl.where(starts < total, block_owner, -1)
    tl.store(blocks_ptr + slots, block_owner, mask=slots < n_blocks)


def batched_moe_align_block_size(max_tokens_per_batch: int, block_size: int, expert_num_tokens: torch.Tensor,
                                 sorted_ids: torch.Tensor, expert_ids: torch.Tensor,
                                 num_tokens_post_pad: torch.Tensor) -> None:
    n_experts = expert_num_tokens.numel()
    block_e = triton.next_power_of_2(n_experts)
    ends = torch.empty(n_experts, dtype=torch.int32, device=expert_num_tokens.device)
    _scan_kernel[(1,)](expert_num_tokens, ends, num_tokens_post_pad, n_experts, block_size, BLOCK_E=block_e)
    n_sorted = sorted_ids.numel()
    tile = max(16, min(TILE, 16384 // block_e))
    _write_kernel[(triton.cdiv(n_sorted, tile),)](expert_num_tokens, ends, num_tokens_post_pad, sorted_ids,
                                                  expert_ids, n_sorted, expert_ids.numel(), n_experts,
                                                  max_tokens_per_batch, block_size, TILE=tile, BLOCK_E=block_e)
