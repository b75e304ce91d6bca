"""vllm::cp_gather_indexer_k_quant_cache in Triton: one program per tile of tokens.

Each token finds its request by a binary search of cu_seq_lens, then copies its key bytes and its
scale bytes from the flat byte block (keys of every row first, then the scales of every row).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(cache_ptr, k_ptr, scale_ptr, table_ptr, cu_ptr, tokens, requests, head_dim, scale_bytes,
                   block_size, block_stride, table_stride,
                   SEARCH_STEPS: tl.constexpr, ROWS: tl.constexpr, K_COLS: tl.constexpr, S_COLS: tl.constexpr):
    t = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    live = t < tokens
    # the last request b with cu_seq_lens[b] <= t, also past empty requests
    lo = tl.zeros([ROWS], dtype=tl.int32)
    hi = tl.zeros([ROWS], dtype=tl.int32) + requests
    for _ in tl.static_range(SEARCH_STEPS):
        mid = (lo + hi) // 2
        right = tl.load(cu_ptr + mid, mask=live, other=0) <= t
        lo = tl.where(right, mid, lo)
        hi = tl.where(right, hi, mid)
    pos = t - tl.load(cu_ptr + lo, mask=live, other=0)
    block = tl.load(table_ptr + lo.to(tl.int64) * table_stride + pos // block_size, mask=live, other=0)
    base = block.to(tl.int64) * block_stride
    r = (pos % block_size).to(tl.int64)

    kc = tl.arange(0, K_COLS)
    for c0 in range(0, head_dim, K_COLS):
        col = c0 + kc
        m = live[:, None] & (col < head_dim)[None, :]
        v = tl.load(cache_ptr + (base + r * head_dim)[:, None] + col[None, :], mask=m)
        tl.store(k_ptr + t.to(tl.int64)[:, None] * head_dim + col[None, :], v, mask=m)

    sc = tl.arange(0, S_COLS)
    m = live[:, None] & (sc < scale_bytes)[None, :]
    s_at = base + block_size * head_dim + r * scale_bytes
    v = tl.load(cache_ptr + s_at[:, None] + sc[None, :], mask=m)
    tl.store(scale_ptr + t.to(tl.int64)[:, None] * scale_bytes + sc[None, :], v, mask=m)


def cp_gather_indexer_k_quant_cache(kv_cache: torch.Tensor, dst_k: torch.Tensor, dst_scale: torch.Tensor,
                                    block_table: torch.Tensor, cu_seq_lens: torch.Tensor) -> None:
    tokens, head_dim = dst_k.shape
    if tokens == 0:
        return
    requests = block_table.shape[0]
    k_cols = min(256, triton.next_power_of_2(head_dim))
    rows = max(1, 4096 // k_cols)
    _gather_kernel[(triton.cdiv(tokens, rows),)](
        kv_cache, dst_k.view(torch.uint8), dst_scale, block_table, cu_seq_lens, tokens, requests, head_dim,
        dst_scale.shape[1], kv_cache.shape[1], kv_cache.stride(0), block_table.stride(0),
        SEARCH_STEPS=max(1, requests.bit_length()), ROWS=rows, K_COLS=k_cols,
        S_COLS=triton.next_power_of_2(dst_scale.shape[1]), num_warps=4)
