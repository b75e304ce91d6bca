"""vllm::moe_lora_align_block_size in Triton: one deterministic counting sort per adapter slot.

Every kernel has a slot axis (grid dim 0): slot i reads its adapter L = lora_ids[i] and whether
it is on, and masks all its stores by that, so rows of adapters no slot handles are never touched.
Per slot, the flat ids are cut into chunks; each chunk counts its adapter's entries per expert, one
program scans those counts (each chunk's offset inside every expert, each expert's padded start),
and every chunk then places its entries at start + offset + earlier equal ids in the chunk, so
positions come out in increasing order without atomics.
"""

import torch
import triton
import triton.language as tl

CHUNK = 128
BLOCK_C = 16
BLOCK_B = 128
FILL = 1024


@triton.jit
def _slot(lora_ids_ptr, enabled_ptr):
    """The slot's adapter (0 when none) and whether the slot handles it."""
    lora = tl.load(lora_ids_ptr + tl.program_id(0))
    safe = tl.maximum(lora, 0)
    on = (lora >= 0) & (tl.load(enabled_ptr + safe) != 0)
    return safe, on


@triton.jit
def _entries(ids_ptr, owner_ptr, map_ptr, offs, numel, topk, lora, HAS_MAP: tl.constexpr):
    """Each entry's (local) expert for this adapter; -1 past the end, for other adapters' tokens
    and for experts mapped away."""
    inside = offs < numel
    mine = inside & (tl.load(owner_ptr + offs // topk, mask=inside, other=-1) == lora)
    ids = tl.load(ids_ptr + offs, mask=mine, other=-1).to(tl.int32)
    if HAS_MAP:
        ids = tl.load(map_ptr + ids, mask=ids >= 0, other=-1)
    return ids


@triton.jit
def _fill_kernel(lora_ids_ptr, enabled_ptr, sorted_ptr, n, value, BLOCK: tl.constexpr):
    lora, on = _slot(lora_ids_ptr, enabled_ptr)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    tl.store(sorted_ptr + lora * n + offs, tl.full([BLOCK], value, tl.int32), mask=(offs < n) & on)


@triton.jit
def _count_kernel(ids_ptr, owner_ptr, map_ptr, lora_ids_ptr, enabled_ptr, counts_ptr, numel, topk, n_chunks,
                  n_experts, HAS_MAP: tl.constexpr, CHUNK: tl.constexpr, BLOCK_E: tl.constexpr):
    lora, on = _slot(lora_ids_ptr, enabled_ptr)
    c = tl.program_id(1)
    ids = _entries(ids_ptr, owner_ptr, map_ptr, c * CHUNK + tl.arange(0, CHUNK), numel, topk, lora, HAS_MAP)
    experts = tl.arange(0, BLOCK_E)
    hits = tl.sum((ids[:, None] == experts[None, :]).to(tl.int32), axis=0)
    row = (tl.program_id(0) * n_chunks + c) * n_experts
    tl.store(counts_ptr + row + experts, hits, mask=(experts < n_experts) & on)


@triton.jit
def _scan_kernel(lora_ids_ptr, enabled_ptr, counts_ptr, offsets_ptr, starts_ptr, ends_ptr, post_pad_ptr,
                 n_chunks, n_experts, block_size, BLOCK_C: tl.constexpr, BLOCK_E: tl.constexpr):
    lora, on = _slot(lora_ids_ptr, enabled_ptr)
    slot = tl.program_id(0)
    experts = tl.arange(0, BLOCK_E)
    e_ok = (experts < n_experts) & on
    running = tl.zeros([BLOCK_E], dtype=tl.int32)
    for c0 in range(0, n_chunks, BLOCK_C):
        chunks = c0 + tl.arange(0, BLOCK_C)
        mask = (chunks < n_chunks)[:, None] & e_ok[None, :]
        offs = (slot * n_chunks + chunks[:, None]) * n_experts + experts[None, :]
        tile = tl.load(counts_ptr + offs, mask=mask, other=0)
        tl.store(offsets_ptr + offs, tl.cumsum(tile, axis=0) + running[None, :] - tile, mask=mask)
        running += tl.sum(tile, axis=0)
    padded = (running + block_size - 1) // block_size * block_size
    ends = tl.cumsum(padded, axis=0)
    tl.store(starts_ptr + slot * n_experts + experts, ends - padded, mask=e_ok)
    tl.store(ends_ptr + slot * n_experts + experts, ends, mask=e_ok)
    tl.store(post_pad_ptr + lora, tl.sum(padded, axis=0), mask=on)


@triton.jit
def _place_kernel(ids_ptr, owner_ptr, map_ptr, lora_ids_ptr, enabled_ptr, offsets_ptr, starts_ptr, sorted_ptr,
                  numel, topk, n_chunks, n_experts, n_padded, HAS_MAP: tl.constexpr, CHUNK: tl.constexpr):
    lora, on = _slot(lora_ids_ptr, enabled_ptr)
    slot = tl.program_id(0)
    c = tl.program_id(1)
    lanes = tl.arange(0, CHUNK)
    offs = c * CHUNK + lanes
    ids = _entries(ids_ptr, owner_ptr, map_ptr, offs, numel, topk, lora, HAS_MAP)
    ok = (ids >= 0) & on
    rank = tl.sum(((ids[:, None] == ids[None, :]) & (lanes[None, :] < lanes[:, None])).to(tl.int32), axis=1)
    safe = tl.where(ok, ids, 0)
    start = tl.load(starts_ptr + slot * n_experts + safe, mask=ok, other=0)
    offset = tl.load(offsets_ptr + (slot * n_chunks + c) * n_experts + safe, mask=ok, other=0)
    tl.store(sorted_ptr + lora * n_padded + start + offset + rank, offs, mask=ok)


@triton.jit
def _experts_kernel(lora_ids_ptr, enabled_ptr, ends_ptr, post_pad_ptr, experts_ptr, n_blocks, n_experts,
                    block_size, BLOCK_B: tl.constexpr, BLOCK_E: tl.constexpr):
    lora, on = _slot(lora_ids_ptr, enabled_ptr)
    blocks = tl.program_id(1) * BLOCK_B + tl.arange(0, BLOCK_B)
    experts = tl.arange(0, BLOCK_E)
    ends = tl.load(ends_ptr + tl.program_id(0) * n_experts + experts, mask=(experts < n_experts) & on,
                   other=2147483647)
    total = tl.load(post_pad_ptr + lora, mask=on, other=0)
    owner = tl.sum((ends[None, :] <= blocks[:, None] * block_size).to(tl.int32), axis=1)
    owner = tl.where(blocks * block_size < total, owner, -1)
    tl.store(experts_ptr + lora * n_blocks + blocks, owner, mask=(blocks < n_blocks) & on)


def moe_lora_align_block_size(topk_ids, token_lora_mapping, num_experts, block_size, max_loras,
                              max_num_tokens_padded, max_num_m_blocks, sorted_token_ids, experts_ids,
                              num_tokens_post_pad, adapter_enabled, lora_ids, expert_map=None):
    if max_loras == 0:
        return
    ids = topk_ids.reshape(-1)
    numel = ids.numel()
    topk = topk_ids.shape[1]
    n_chunks = max(triton.cdiv(numel, CHUNK), 1)
    block_e = triton.next_power_of_2(num_experts)
    dev = topk_ids.device
    counts = torch.empty((max_loras, n_chunks, num_experts), dtype=torch.int32, device=dev)
    offsets = torch.empty_like(counts)
    starts = torch.empty((max_loras, num_experts), dtype=torch.int32, device=dev)
    ends = torch.empty_like(starts)
    has_map = expert_map is not None
    emap = expert_map if has_map else ids
    slot_args = (lora_ids, adapter_enabled)
    if max_num_tokens_padded:
        _fill_kernel[(max_loras, triton.cdiv(max_num_tokens_padded, FILL))](
            *slot_args, sorted_token_ids, max_num_tokens_padded, numel, BLOCK=FILL)
    _count_kernel[(max_loras, n_chunks)](ids, token_lora_mapping, emap, *slot_args, counts, numel, topk, n_chunks,
                                         num_experts, HAS_MAP=has_map, CHUNK=CHUNK, BLOCK_E=block_e)
    _scan_kernel[(max_loras,)](*slot_args, counts, offsets, starts, ends, num_tokens_post_pad, n_chunks,
                               num_experts, block_size, BLOCK_C=BLOCK_C, BLOCK_E=block_e, num_warps=8)
    _place_kernel[(max_loras, n_chunks)](ids, token_lora_mapping, emap, *slot_args, offsets, starts,
                                         sorted_token_ids, numel, topk, n_chunks, num_experts,
                                         max_num_tokens_padded, HAS_MAP=has_map, CHUNK=CHUNK)
    if max_num_m_blocks:
        _experts_kernel[(max_loras, triton.cdiv(max_num_m_blocks, BLOCK_B))](
            *slot_args, ends, num_tokens_post_pad, experts_ids, max_num_m_blocks, num_experts, block_size,
            BLOCK_B=BLOCK_B, BLOCK_E=block_e)
