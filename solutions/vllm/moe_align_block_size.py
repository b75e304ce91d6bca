"""vllm::moe_align_block_size in Triton: a deterministic counting sort of the flat topk_ids.

The flat ids are cut into chunks. Per chunk, a one-hot reduction counts each expert; one
program scans those counts down the chunks (each chunk's offset inside every expert) and over
the experts (each expert's padded start); then every chunk places its tokens at
start[e] + offset[chunk, e] + (earlier equal ids in the chunk), so tokens of an expert keep
increasing order without atomics. With an expert_map, ids are mapped first and -1s dropped.
"""

import torch
import triton
import triton.language as tl

CHUNK = 128
BLOCK_C = 16
BLOCK_B = 128
FILL = 1024


@triton.jit
def _fill_kernel(ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.full([BLOCK], value, tl.int32), mask=offs < n)


@triton.jit
def _experts_of(ids_ptr, map_ptr, offs, numel, HAS_MAP: tl.constexpr):
    """Each entry's (local) expert, -1 past the end and for experts mapped to another rank."""
    ids = tl.load(ids_ptr + offs, mask=offs < numel, other=-1).to(tl.int32)
    if HAS_MAP:
        ids = tl.load(map_ptr + ids, mask=ids >= 0, other=-1)
    return ids


@triton.jit
def _chunk_counts_kernel(ids_ptr, map_ptr, counts_ptr, numel, n_experts, HAS_MAP: tl.constexpr,
                         CHUNK: tl.constexpr, BLOCK_E: tl.constexpr):
    c = tl.program_id(0)
    offs = c * CHUNK + tl.arange(0, CHUNK)
    ids = _experts_of(ids_ptr, map_ptr, offs, numel, HAS_MAP)
    experts = tl.arange(0, BLOCK_E)
    hits = (ids[:, None] == experts[None, :]).to(tl.int32)
    tl.store(counts_ptr + c * n_experts + experts, tl.sum(hits, axis=0), mask=experts < n_experts)


@triton.jit
def _scan_kernel(counts_ptr, offsets_ptr, starts_ptr, ends_ptr, total_ptr, n_chunks, n_experts, block_size,
                 BLOCK_C: tl.constexpr, BLOCK_E: tl.constexpr):
    experts = tl.arange(0, BLOCK_E)
    e_ok = experts < n_experts
    running = tl.zeros([BLOCK_E], dtype=tl.int32)
    for c0 in range(0, n_chunks, BLOCK_C):
        chunks = c0 + tl.arange(0, BLOCK_C)
        mask = (chunks < n_chunks)[:, None] & e_ok[None, :]
        offs = chunks[:, None] * n_experts + experts[None, :]
        tile = tl.load(counts_ptr + offs, mask=mask, other=0)
        inclusive = tl.cumsum(tile, axis=0) + running[None, :]
        tl.store(offsets_ptr + offs, inclusive - tile, mask=mask)
        running += tl.sum(tile, axis=0)
    padded = (running + block_size - 1) // block_size * block_size
    ends = tl.cumsum(padded, axis=0)
    tl.store(starts_ptr + experts, ends - padded, mask=e_ok)
    tl.store(ends_ptr + experts, ends, mask=e_ok)
    tl.store(total_ptr, tl.sum(padded, axis=0))


@triton.jit
def _place_kernel(ids_ptr, map_ptr, offsets_ptr, starts_ptr, sorted_ptr, numel, n_experts, HAS_MAP: tl.constexpr,
                  CHUNK: tl.constexpr):
    c = tl.program_id(0)
    lanes = tl.arange(0, CHUNK)
    offs = c * CHUNK + lanes
    ids = _experts_of(ids_ptr, map_ptr, offs, numel, HAS_MAP)
    ok = ids >= 0
    same = (ids[:, None] == ids[None, :]) & (lanes[None, :] < lanes[:, None])
    rank = tl.sum(same.to(tl.int32), axis=1)
    safe = tl.where(ok, ids, 0)
    base = tl.load(starts_ptr + safe, mask=ok, other=0) + tl.load(offsets_ptr + c * n_experts + safe, mask=ok,
                                                                   other=0)
    tl.store(sorted_ptr + base + rank, offs, mask=ok)


@triton.jit
def _experts_kernel(ends_ptr, total_ptr, experts_ptr, n_blocks, n_experts, block_size,
                    BLOCK_B: tl.constexpr, BLOCK_E: tl.constexpr):
    blocks = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    experts = tl.arange(0, BLOCK_E)
    ends = tl.load(ends_ptr + experts, mask=experts < n_experts, other=2147483647)
    total = tl.load(total_ptr)
    owner = tl.sum((ends[None, :] <= blocks[:, None] * block_size).to(tl.int32), axis=1)
    owner = tl.where(blocks * block_size < total, owner, 0)
    tl.store(experts_ptr + blocks, owner, mask=blocks < n_blocks)


def moe_align_block_size(topk_ids: torch.Tensor, num_experts: int, block_size: int, sorted_token_ids: torch.Tensor,
                         experts_ids: torch.Tensor, num_tokens_post_pad: torch.Tensor,
                         expert_map: torch.Tensor | None = None) -> None:
    ids = topk_ids.reshape(-1)
    numel = ids.numel()
    n_chunks = triton.cdiv(numel, CHUNK)
    block_e = triton.next_power_of_2(num_experts)
    dev = topk_ids.device
    counts = torch.empty((max(n_chunks, 1), num_experts), dtype=torch.int32, device=dev)
    offsets = torch.empty_like(counts)
    starts = torch.empty(num_experts, dtype=torch.int32, device=dev)
    ends = torch.empty_like(starts)
    has_map = expert_map is not None
    emap = expert_map if has_map else ids
    n_sorted = sorted_token_ids.numel()
    if n_sorted:
        _fill_kernel[(triton.cdiv(n_sorted, FILL),)](sorted_token_ids, n_sorted, numel, BLOCK=FILL)
    if n_chunks:
        _chunk_counts_kernel[(n_chunks,)](ids, emap, counts, numel, num_experts, HAS_MAP=has_map, CHUNK=CHUNK,
                                          BLOCK_E=block_e)
    _scan_kernel[(1,)](counts, offsets, starts, ends, num_tokens_post_pad, n_chunks, num_experts, block_size,
                       BLOCK_C=BLOCK_C, BLOCK_E=block_e, num_warps=8)
    if n_chunks:
        _place_kernel[(n_chunks,)](ids, emap, offsets, starts, sorted_token_ids, numel, num_experts,
                                   HAS_MAP=has_map, CHUNK=CHUNK)
    n_blocks = experts_ids.numel()
    if n_blocks:
        _experts_kernel[(triton.cdiv(n_blocks, BLOCK_B),)](ends, num_tokens_post_pad, experts_ids, n_blocks,
                                                           num_experts, block_size, BLOCK_B=BLOCK_B, BLOCK_E=block_e)
