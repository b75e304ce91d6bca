# op: vllm::paged_attention_v2
# idiom: one program per (sequence, query head), two passes over the cache blocks (max, then exp-weighted sum) with elementwise products and no tl.dot; the partition workspaces are left untouched

"""Paged decode attention without partitions.

The workspaces vLLM hands to v2 are optional: this program computes each head's whole softmax
itself. Pass one walks the sequence's blocks for the largest logit, pass two walks them again
accumulating exp(logit - max) and the weighted values, so no rescaling is needed.
"""

import triton
import triton.language as tl


@triton.jit
def _head_attention(out_ptr, q_ptr, k_ptr, v_ptr, table_ptr, len_ptr, slope_ptr, scale, group, max_blocks,
                    num_heads, kv_heads, HEAD: tl.constexpr, X: tl.constexpr, BS: tl.constexpr,
                    DP: tl.constexpr, ALIBI: tl.constexpr):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    kv = head // group
    n = tl.load(len_ptr + seq)
    dim = tl.arange(0, DP)
    in_head = dim < HEAD
    slot = tl.arange(0, BS)
    q = tl.load(q_ptr + (seq * num_heads + head) * HEAD + dim, mask=in_head, other=0.0).to(tl.float32)
    slope = 0.0
    if ALIBI:
        slope = tl.load(slope_ptr + head)
    k_off = kv * (HEAD * BS) + (dim // X)[None, :] * (BS * X) + slot[:, None] * X + (dim % X)[None, :]
    v_off = kv * (HEAD * BS) + dim[None, :] * BS + slot[:, None]
    n_blocks = (n + BS - 1) // BS

    biggest = float("-inf")
    for b in range(0, n_blocks):
        page = tl.load(table_ptr + seq * max_blocks + b).to(tl.int64)
        pos = b * BS + slot
        keys = tl.load(k_ptr + page * (kv_heads * HEAD * BS) + k_off, mask=(pos < n)[:, None] & in_head[None, :],
                       other=0.0).to(tl.float32)
        logit = tl.sum(keys * q[None, :], axis=1) * scale + slope * (pos - n + 1).to(tl.float32)
        biggest = tl.maximum(biggest, tl.max(tl.where(pos < n, logit, float("-inf")), axis=0))

    total = 0.0
    weighted = tl.zeros([DP], tl.float32)
    for b in range(0, n_blocks):
        page = tl.load(table_ptr + seq * max_blocks + b).to(tl.int64)
        pos = b * BS + slot
        live = (pos < n)[:, None] & in_head[None, :]
        keys = tl.load(k_ptr + page * (kv_heads * HEAD * BS) + k_off, mask=live, other=0.0).to(tl.float32)
        logit = tl.sum(keys * q[None, :], axis=1) * scale + slope * (pos - n + 1).to(tl.float32)
        e = tl.where(pos < n, tl.exp(logit - biggest), 0.0)
        vals = tl.load(v_ptr + page * (kv_heads * HEAD * BS) + v_off, mask=live, other=0.0).to(tl.float32)
        total += tl.sum(e, axis=0)
        weighted += tl.sum(e[:, None] * vals, axis=0)
    result = weighted / total
    tl.store(out_ptr + (seq * num_heads + head) * HEAD + dim, result.to(out_ptr.dtype.element_ty), mask=in_head)


def paged_attention_v2(out, exp_sum, max_logits, tmp_out, query, key_cache, value_cache, num_kv_heads, scale,
                       block_tables, seq_lens, block_size, max_seq_len, alibi_slopes, kv_cache_dtype, k_scale,
                       v_scale, tp_rank=0, blocksparse_local_blocks=0, blocksparse_vert_stride=0,
                       blocksparse_block_size=64, blocksparse_head_sliding_step=0):
    query = query.contiguous()
    key_cache = key_cache.contiguous()
    value_cache = value_cache.contiguous()
    block_tables = block_tables.contiguous()
    num_seqs, num_heads, head_size = query.shape
    if num_seqs == 0:
        return
    result = out if out.is_contiguous() else out.new_empty(out.shape)
    _head_attention[(num_seqs, num_heads)](
        result, query, key_cache, value_cache, block_tables, seq_lens,
        alibi_slopes if alibi_slopes is not None else query, scale, num_heads // num_kv_heads,
        block_tables.shape[1], num_heads, num_kv_heads, HEAD=head_size, X=key_cache.shape[4], BS=block_size,
        DP=triton.next_power_of_2(head_size), ALIBI=alibi_slopes is not None)
    if result is not out:
        out.copy_(result)
