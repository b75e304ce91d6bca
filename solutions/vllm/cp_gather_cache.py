"""vllm::cp_gather_cache in Triton: one program per tile of dst rows and entry columns.

Each dst row finds its request by a binary search of cu_seq_lens (so no program idles on a short
request and host code never reads the offsets), then copies its token's entry from the paged cache.
Rows outside [cu_seq_lens[0], cu_seq_lens[batch_size]) are left untouched.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(src_ptr, dst_ptr, table_ptr, cu_ptr, starts_ptr, rows, entry, block_size,
                   src_block_stride, src_token_stride, dst_row_stride, table_stride, batch_size,
                   HAS_STARTS: tl.constexpr, SEARCH_STEPS: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr):
    row = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    col = tl.program_id(1) * COLS + tl.arange(0, COLS)
    first = tl.load(cu_ptr)
    end = tl.load(cu_ptr + batch_size)
    live = (row < rows) & (row >= first) & (row < end)
    # The last request b < batch_size with cu_seq_lens[b] <= row: the one the row belongs to,
    # also past empty requests, whose offsets equal the next one's.
    lo = tl.zeros([ROWS], dtype=tl.int32)
    hi = tl.zeros([ROWS], dtype=tl.int32) + batch_size
    for _ in tl.static_range(SEARCH_STEPS):
        mid = (lo + hi) // 2
        go_right = tl.load(cu_ptr + mid, mask=live, other=0) <= row
        lo = tl.where(go_right, mid, lo)
        hi = tl.where(go_right, hi, mid)
    pos = row - tl.load(cu_ptr + lo, mask=live, other=0)
    if HAS_STARTS:
        pos += tl.load(starts_ptr + lo, mask=live, other=0)
    block = tl.load(table_ptr + lo.to(tl.int64) * table_stride + pos // block_size, mask=live, other=0)
    src_row = block.to(tl.int64) * src_block_stride + (pos % block_size).to(tl.int64) * src_token_stride
    mask = live[:, None] & (col < entry)[None, :]
    values = tl.load(src_ptr + src_row[:, None] + col[None, :], mask=mask)
    tl.store(dst_ptr + row.to(tl.int64)[:, None] * dst_row_stride + col[None, :], values, mask=mask)


def cp_gather_cache(src_cache: torch.Tensor, dst: torch.Tensor, block_table: torch.Tensor,
                    cu_seq_lens: torch.Tensor, batch_size: int, seq_starts: torch.Tensor | None = None) -> None:
    entry = src_cache[0, 0].numel()
    rows = dst.shape[0]
    if rows == 0 or entry == 0:
        return
    cols = min(128, triton.next_power_of_2(entry))
    tile_rows = max(1, 4096 // cols)
    grid = (triton.cdiv(rows, tile_rows), triton.cdiv(entry, cols))
    _gather_kernel[grid](
        src_cache, dst, block_table, cu_seq_lens, cu_seq_lens if seq_starts is None else seq_starts,
        rows, entry, src_cache.shape[1], src_cache.stride(0), src_cache.stride(1), dst.stride(0),
        block_table.stride(0), batch_size,
        HAS_STARTS=seq_starts is not None, SEARCH_STEPS=max(1, batch_size.bit_length()),
        ROWS=tile_rows, COLS=cols, num_warps=4)
