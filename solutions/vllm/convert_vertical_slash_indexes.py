"""vllm::convert_vertical_slash_indexes in Triton: every lane of a program walks one block row.

The walk is sequential per row (verticals and slashes are merged like two sorted lists), so, as in
vLLM's kernel, rows run side by side: each loop step advances every unfinished lane by one event
(a vertical, a slash, or the end), with masked gathers and scatters. Blocks of a closed range are
written by a short inner loop, one N-step per lane per iteration.
"""

import torch
import triton
import triton.language as tl

LANES = 64


@triton.jit
def _save(bo_ptr, row, blk, go, lo, hi, kv, block_n, NNZ_S):
    """Append the N-steps of [lo, min(hi, kv)) for the lanes in `go`; returns the new counts."""
    hi = tl.minimum(hi, kv)
    cur = lo
    todo = go & (lo < kv) & (cur < hi)
    while tl.max(todo.to(tl.int32), axis=0) > 0:
        tl.store(bo_ptr + row * NNZ_S + blk, cur, mask=todo)
        blk += todo.to(tl.int32)
        cur += block_n
        todo = todo & (cur < hi)
    return blk


@triton.jit
def _walk_kernel(q_ptr, kv_ptr, v_ptr, s_ptr, bc_ptr, bo_ptr, cc_ptr, ci_ptr, H, N_ROWS, NNZ_V, NNZ_S,
                 block_m, block_n, CAUSAL: tl.constexpr, LANES: tl.constexpr):
    bh = tl.program_id(0)
    m = tl.program_id(1) * LANES + tl.arange(0, LANES)
    q = tl.load(q_ptr + bh // H)
    kv = tl.load(kv_ptr + bh // H)
    start = m * block_m
    end = start + block_m
    live = (m < N_ROWS) & (start < q)
    if CAUSAL:
        base = kv - q
        none_lo = base + end
    else:
        base = kv + tl.zeros_like(m)
        none_lo = kv + tl.zeros_like(m)
    row = (bh * N_ROWS + m).to(tl.int64)
    vrow = v_ptr + bh.to(tl.int64) * NNZ_V
    srow = s_ptr + bh.to(tl.int64) * NNZ_S

    s = tl.full([LANES], 1, tl.int32)
    s_idx = tl.load(srow + tl.zeros_like(m))
    skip = live & (s_idx >= end + base) & (s < NNZ_S)
    while tl.max(skip.to(tl.int32), axis=0) > 0:
        s_idx = tl.where(skip, tl.load(srow + s, mask=skip, other=0), s_idx)
        s += skip.to(tl.int32)
        skip = skip & (s_idx >= end + base) & (s < NNZ_S)
    has = s_idx <= end + base
    s_idx = tl.maximum(base + end - s_idx, block_m)
    lo = tl.where(has, s_idx - block_m, none_lo)
    hi = tl.where(has, s_idx, none_lo + block_n)

    v = tl.full([LANES], 1, tl.int32)
    v_idx = tl.load(vrow + tl.zeros_like(m))
    cols = tl.zeros([LANES], tl.int32)
    blk = tl.zeros([LANES], tl.int32)
    finished = m < 0
    run = live
    while tl.max(run.to(tl.int32), axis=0) > 0:
        col_step = run & (v_idx < hi)
        emit = col_step & (v_idx < lo)
        tl.store(ci_ptr + row * NNZ_V + cols, v_idx, mask=emit)
        cols += emit.to(tl.int32)
        more = v < NNZ_V
        nxt = tl.load(vrow + v, mask=col_step & more, other=0)
        v += (col_step & more).to(tl.int32)

        slash_step = run & (v_idx >= hi)
        s_ok = s < NNZ_S
        d = tl.load(srow + s, mask=slash_step & s_ok, other=0)
        if CAUSAL:
            take = slash_step & s_ok
        else:
            take = slash_step & s_ok & (d >= start)
        s_idx = tl.where(take, tl.maximum(base + end - d, block_m), s_idx)
        s += take.to(tl.int32)
        out = slash_step & ~take
        if CAUSAL:
            stop = out & ((v == NNZ_V) | (v_idx > lo))
        else:
            stop = out & (v == NNZ_V)
            last = stop & (v_idx < kv)
            tl.store(ci_ptr + row * NNZ_V + cols, v_idx, mask=last)
            cols += last.to(tl.int32)
        blk = _save(bo_ptr, row, blk, stop, lo, hi, kv, block_n, NNZ_S)
        run = run & ~stop
        reset = out & ~stop
        if not CAUSAL:
            blk = _save(bo_ptr, row, blk, reset, lo, hi, kv, block_n, NNZ_S)
        lo = tl.where(reset, none_lo, lo)
        hi = tl.where(reset, none_lo + block_n, hi)
        finished = finished | reset

        merge = slash_step & ~stop & ~finished
        opens = merge & (s_idx > hi + block_m)
        blk = _save(bo_ptr, row, blk, opens, lo, hi, kv, block_n, NNZ_S)
        lo = tl.where(opens, s_idx - block_m, lo)
        hi = tl.where(opens, s_idx, tl.where(merge & (s_idx > hi), hi + block_m, hi))
        v_idx = tl.where(col_step, tl.where(more, nxt, end + block_n + base), v_idx)
    tl.store(bc_ptr + row, blk, mask=live)
    tl.store(cc_ptr + row, cols, mask=live)


def convert_vertical_slash_indexes(q_seqlens, kv_seqlens, vertical_indexes, slash_indexes, context_size,
                                   block_size_M, block_size_N, causal=True):
    b, h, nnz_s = slash_indexes.shape
    nnz_v = vertical_indexes.shape[2]
    rows = triton.cdiv(context_size, block_size_M)
    opts = dict(dtype=q_seqlens.dtype, device=q_seqlens.device)
    block_count = torch.zeros((b, h, rows), **opts)
    block_offset = torch.zeros((b, h, rows, nnz_s), **opts)
    column_count = torch.zeros((b, h, rows), **opts)
    column_index = torch.zeros((b, h, rows, nnz_v), **opts)
    if b * h * rows:
        grid = (b * h, triton.cdiv(rows, LANES))
        _walk_kernel[grid](q_seqlens, kv_seqlens, vertical_indexes.contiguous(), slash_indexes.contiguous(),
                           block_count, block_offset, column_count, column_index, h, rows, nnz_v, nnz_s,
                           block_size_M, block_size_N, CAUSAL=bool(causal), LANES=LANES)
    return block_count, block_offset, column_count, column_index
