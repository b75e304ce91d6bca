"""vllm::paged_attention_v1 in Triton: split into 512-token partitions like v2 (one program per
(sequence, KV head, partition), then one merge program per (sequence, head)), with float32
workspaces allocated here, so a long sequence at a small batch still fills the GPU.

A partition program serves every query head that shares its KV head (GQA), so each cached key and
value is read once. It walks its tokens 64 at a time, gathering them through the block table,
with an online softmax in float32, and leaves its running max, exp sum and normalised partial
output; the merge rescales the partitions by exp(max - global max). Dots run in tf32 for 16-bit
caches (their values are exact in tf32) and in full float32 for float32 caches.
"""

import torch
import triton
import triton.language as tl

PARTITION = 512
TOKENS = 64


@triton.jit
def _partition_kernel(q_ptr, k_ptr, v_ptr, tables_ptr, lens_ptr, slopes_ptr, max_ptr, sum_ptr, part_ptr,
                      scale, group, sq0, sq1, sk0, sk1, sk2, sk3, sv0, sv1, sv2, sv3, st0,
                      sm0, sm1, sp0, sp1, sp2,
                      HEAD: tl.constexpr, X: tl.constexpr, BLOCK_SIZE: tl.constexpr, G_PAD: tl.constexpr,
                      D_PAD: tl.constexpr, TOKENS: tl.constexpr, PARTITION: tl.constexpr,
                      HAS_ALIBI: tl.constexpr, PRECISION: tl.constexpr):
    seq = tl.program_id(0)
    kv = tl.program_id(1)
    part = tl.program_id(2)
    length = tl.load(lens_ptr + seq)
    start = part * PARTITION
    if start < length:
        g = tl.arange(0, G_PAD)
        d = tl.arange(0, D_PAD)
        heads = kv * group + g
        g_ok = g < group
        d_ok = d < HEAD
        q = tl.load(q_ptr + seq.to(tl.int64) * sq0 + heads[:, None] * sq1 + d[None, :],
                    mask=g_ok[:, None] & d_ok[None, :], other=0.0).to(tl.float32)
        if HAS_ALIBI:
            slope = tl.load(slopes_ptr + heads, mask=g_ok, other=0.0).to(tl.float32)
        m_i = tl.full([G_PAD], float("-inf"), tl.float32)
        l_i = tl.zeros([G_PAD], tl.float32)
        acc = tl.zeros([G_PAD, D_PAD], tl.float32)
        k_dim = (d // X) * sk2 + (d % X)
        end = tl.minimum(start + PARTITION, length)
        for t0 in range(start, end, TOKENS):
            t = t0 + tl.arange(0, TOKENS)
            t_ok = t < end
            block = tl.load(tables_ptr + seq.to(tl.int64) * st0 + t // BLOCK_SIZE, mask=t_ok, other=0).to(tl.int64)
            slot = t % BLOCK_SIZE
            k_t = tl.load(k_ptr + block[None, :] * sk0 + kv * sk1 + k_dim[:, None] + slot[None, :] * sk3,
                          mask=d_ok[:, None] & t_ok[None, :], other=0.0).to(tl.float32)
            s = tl.dot(q, k_t, input_precision=PRECISION) * scale
            if HAS_ALIBI:
                s += slope[:, None] * (t - length + 1).to(tl.float32)[None, :]
            s = tl.where(t_ok[None, :], s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, axis=1))
            alpha = tl.exp(m_i - m_new)
            p = tl.exp(s - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, axis=1)
            v = tl.load(v_ptr + block[:, None] * sv0 + kv * sv1 + d[None, :] * sv2 + slot[:, None] * sv3,
                        mask=t_ok[:, None] & d_ok[None, :], other=0.0).to(tl.float32)
            acc = acc * alpha[:, None] + tl.dot(p, v, input_precision=PRECISION)
            m_i = m_new
        stat = seq.to(tl.int64) * sm0 + heads * sm1 + part
        tl.store(max_ptr + stat, m_i, mask=g_ok)
        tl.store(sum_ptr + stat, l_i, mask=g_ok)
        partial = acc / l_i[:, None]
        tl.store(part_ptr + seq.to(tl.int64) * sp0 + heads[:, None] * sp1 + part * sp2 + d[None, :],
                 partial.to(part_ptr.dtype.element_ty), mask=g_ok[:, None] & d_ok[None, :])


@triton.jit
def _merge_kernel(out_ptr, lens_ptr, max_ptr, sum_ptr, part_ptr, so0, so1, sm0, sm1, sp0, sp1, sp2,
                  HEAD: tl.constexpr, D_PAD: tl.constexpr, P_PAD: tl.constexpr, PARTITION: tl.constexpr):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    parts = tl.cdiv(tl.load(lens_ptr + seq), PARTITION)
    p = tl.arange(0, P_PAD)
    d = tl.arange(0, D_PAD)
    p_ok = p < parts
    stat = seq.to(tl.int64) * sm0 + head * sm1 + p
    m = tl.load(max_ptr + stat, mask=p_ok, other=float("-inf"))
    weight = tl.where(p_ok, tl.exp(m - tl.max(m, axis=0)) * tl.load(sum_ptr + stat, mask=p_ok, other=0.0), 0.0)
    partial = tl.load(part_ptr + seq.to(tl.int64) * sp0 + head * sp1 + p[:, None] * sp2 + d[None, :],
                      mask=p_ok[:, None] & (d < HEAD)[None, :], other=0.0).to(tl.float32)
    result = tl.sum(weight[:, None] * partial, axis=0) / tl.sum(weight, axis=0)
    tl.store(out_ptr + seq.to(tl.int64) * so0 + head * so1 + d, result.to(out_ptr.dtype.element_ty), mask=d < HEAD)


def _attention(out, exp_sum, max_logits, tmp_out, query, key_cache, value_cache, num_kv_heads, scale,
               block_tables, seq_lens, block_size, max_seq_len, alibi_slopes):
    """The shared path of v1 and v2, given partition workspaces; query, caches and workspaces are
    addressed through their strides (last dims contiguous)."""
    num_seqs, num_heads, head_size = query.shape
    if num_seqs == 0:
        return
    group = num_heads // num_kv_heads
    parts = triton.cdiv(max_seq_len, PARTITION)
    d_pad = max(16, triton.next_power_of_2(head_size))
    precision = "ieee" if query.dtype == torch.float32 else "tf32"
    slopes = alibi_slopes if alibi_slopes is not None else query
    _partition_kernel[(num_seqs, num_kv_heads, parts)](
        query, key_cache, value_cache, block_tables, seq_lens, slopes, max_logits, exp_sum, tmp_out,
        scale, group, query.stride(0), query.stride(1), *key_cache.stride()[:4], *value_cache.stride(),
        block_tables.stride(0), max_logits.stride(0), max_logits.stride(1), *tmp_out.stride()[:3],
        HEAD=head_size, X=key_cache.shape[4], BLOCK_SIZE=block_size,
        G_PAD=max(16, triton.next_power_of_2(group)), D_PAD=d_pad, TOKENS=TOKENS, PARTITION=PARTITION,
        HAS_ALIBI=alibi_slopes is not None, PRECISION=precision, num_warps=4)
    _merge_kernel[(num_seqs, num_heads)](
        out, seq_lens, max_logits, exp_sum, tmp_out, out.stride(0), out.stride(1),
        max_logits.stride(0), max_logits.stride(1), *tmp_out.stride()[:3],
        HEAD=head_size, D_PAD=d_pad, P_PAD=max(2, triton.next_power_of_2(parts)), PARTITION=PARTITION)


def paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens,
                       block_size, max_seq_len, alibi_slopes, kv_cache_dtype, k_scale, v_scale, tp_rank=0,
                       blocksparse_local_blocks=0, blocksparse_vert_stride=0, blocksparse_block_size=64,
                       blocksparse_head_sliding_step=0):
    num_seqs, num_heads, head_size = query.shape
    parts = triton.cdiv(max_seq_len, PARTITION)
    stats = torch.empty((2, num_seqs, num_heads, parts), dtype=torch.float32, device=query.device)
    partials = torch.empty((num_seqs, num_heads, parts, head_size), dtype=torch.float32, device=query.device)
    _attention(out, stats[0], stats[1], partials, query, key_cache, value_cache, num_kv_heads, scale,
               block_tables, seq_lens, block_size, max_seq_len, alibi_slopes)
