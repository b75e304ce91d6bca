"""vllm::gather_and_maybe_dequant_cache in Triton: one program per tile of dst rows and entry columns.

Each row reads its request from token_to_seq (as vLLM does), finds its cache entry through the block
table and copies it, or, for an fp8 cache, decodes the e4m3fn bits exactly and scales them in float32.
Rows at or past num_tokens are left untouched.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _e4m3_to_f32(code):
    """The exact float32 value of e4m3fn codes (NaN codes included), decoded on their bits."""
    code = code.to(tl.int32)
    exp = (code >> 3) & 0xF
    mant = code & 0x7
    normal = ((exp + 120) << 23 | mant << 20).to(tl.float32, bitcast=True)
    q = tl.where(exp == 0, mant.to(tl.float32) * 0.001953125, normal)
    q = tl.where((code & 0x7F) == 0x7F, float("nan"), q)
    return tl.where((code & 0x80) != 0, -q, q)


@triton.jit
def _gather_kernel(src_ptr, dst_ptr, table_ptr, cu_ptr, seq_ptr, starts_ptr, scale_ptr, num_tokens, entry,
                   block_size, src_block_stride, src_token_stride, dst_row_stride, table_stride,
                   HAS_STARTS: tl.constexpr, DEQUANT: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr):
    row = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    col = tl.program_id(1) * COLS + tl.arange(0, COLS)
    live = row < num_tokens
    b = tl.load(seq_ptr + row, mask=live, other=0)
    pos = row - tl.load(cu_ptr + b, mask=live, other=0)
    if HAS_STARTS:
        pos += tl.load(starts_ptr + b, mask=live, other=0)
    block = tl.load(table_ptr + b.to(tl.int64) * table_stride + pos // block_size, mask=live, other=0)
    src_row = block.to(tl.int64) * src_block_stride + (pos % block_size).to(tl.int64) * src_token_stride
    mask = live[:, None] & (col < entry)[None, :]
    values = tl.load(src_ptr + src_row[:, None] + col[None, :], mask=mask, other=0)
    if DEQUANT:
        values = _e4m3_to_f32(values) * tl.load(scale_ptr)
        if dst_ptr.dtype.element_ty == tl.bfloat16:  # rounded to nearest even on the bits; a NaN as it is
            bits = values.to(tl.int32, bitcast=True)  # (the GPU's NaN, 0x7FFFFFFF, would carry into -0.0)
            rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & -65536).to(tl.float32, bitcast=True)
            values = tl.where(values != values, values, rounded)
    tl.store(dst_ptr + row.to(tl.int64)[:, None] * dst_row_stride + col[None, :],
             values.to(dst_ptr.dtype.element_ty), mask=mask)


def gather_and_maybe_dequant_cache(src_cache: torch.Tensor, dst: torch.Tensor, block_table: torch.Tensor,
                                   cu_seq_lens: torch.Tensor, token_to_seq: torch.Tensor, num_tokens: int,
                                   kv_cache_dtype: str, scale: torch.Tensor,
                                   seq_starts: torch.Tensor | None = None) -> None:
    entry = src_cache[0, 0].numel()
    if num_tokens == 0 or entry == 0:
        return
    cols = min(256, triton.next_power_of_2(entry))
    rows = max(1, 4096 // cols)
    grid = (triton.cdiv(num_tokens, rows), triton.cdiv(entry, cols))
    _gather_kernel[grid](
        src_cache, dst, block_table, cu_seq_lens, token_to_seq,
        cu_seq_lens if seq_starts is None else seq_starts, scale, num_tokens, entry, src_cache.shape[1],
        src_cache.stride(0), src_cache.stride(1), dst.stride(0), block_table.stride(0),
        HAS_STARTS=seq_starts is not None, DEQUANT=kv_cache_dtype != "auto", ROWS=rows, COLS=cols, num_warps=4)
