# op: vllm::gather_and_maybe_dequant_cache
# idiom: one program per token looping over the entry in chunks, fp8 decoded by Triton's own float8e4nv bitcast

"""MLA context gather with one program per gathered token.

The program reads its request from token_to_seq, looks its block up, and copies the 576-wide
entry chunk by chunk; an fp8 cache is reinterpreted as float8e4nv, widened and scaled.
"""

import torch
import triton
import triton.language as tl

CHUNK = 128


@triton.jit
def _bf16_nearest(x):
    bits = x.to(tl.int32, bitcast=True)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & -65536).to(tl.float32, bitcast=True)
    return tl.where(x != x, x, rounded)  # NaN kept: 0x7FFFFFFF + 0x8000 would wrap to -0.0


@triton.jit
def _token_kernel(src, dst, table, cu, seq, starts, scale, entry, block_size, s_block, s_tok, d_row, t_row,
                  HAS_STARTS: tl.constexpr, FP8: tl.constexpr, BF16: tl.constexpr, CHUNK: tl.constexpr):
    tok = tl.program_id(0)
    req = tl.load(seq + tok)
    p = tok - tl.load(cu + req)
    if HAS_STARTS:
        p = p + tl.load(starts + req)
    blk = tl.load(table + req.to(tl.int64) * t_row + p // block_size).to(tl.int64)
    src_row = src + blk * s_block + (p % block_size).to(tl.int64) * s_tok
    dst_row = dst + tok.to(tl.int64) * d_row
    for c in range(0, entry, CHUNK):
        offs = c + tl.arange(0, CHUNK)
        ok = offs < entry
        x = tl.load(src_row + offs, mask=ok, other=0)
        if FP8:
            y = x.to(tl.float8e4nv, bitcast=True).to(tl.float32) * tl.load(scale)
            y = tl.where((x & 0x7F) == 0x7F, float("nan"), y)  # e4m3fn's NaN codes, whatever the backend
            if BF16:
                y = _bf16_nearest(y)
            tl.store(dst_row + offs, y.to(dst.dtype.element_ty), mask=ok)
        else:
            tl.store(dst_row + offs, x, mask=ok)


def gather_and_maybe_dequant_cache(src_cache, dst, block_table, cu_seq_lens, token_to_seq, num_tokens,
                                   kv_cache_dtype, scale, seq_starts=None):
    if num_tokens == 0:
        return
    _token_kernel[(num_tokens,)](
        src_cache, dst, block_table, cu_seq_lens, token_to_seq,
        seq_starts if seq_starts is not None else cu_seq_lens, scale,
        src_cache.shape[2], src_cache.shape[1], src_cache.stride(0), src_cache.stride(1), dst.stride(0),
        block_table.stride(0), HAS_STARTS=seq_starts is not None, FP8=kv_cache_dtype != "auto",
        BF16=dst.dtype == torch.bfloat16, CHUNK=CHUNK)
