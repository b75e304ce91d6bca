"""vllm::merge_attn_states in Triton: merge two partial attention outputs by their log-sum-exps.

One program per (token, block of heads): the weights come from the two lse in float32 (an lse of
+inf counts as -inf, an empty partial, as in vLLM) and scale whole head rows, rounded once at
the store; the merged lse is written when asked for.
"""

import triton
import triton.language as tl


@triton.jit
def _merge_kernel(out_ptr, out_lse_ptr, p_ptr, p_lse_ptr, s_ptr, s_lse_ptr, tokens, heads, head_size,
                  HAS_LSE: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    d = tl.arange(0, BLOCK_D)
    h_ok = h < heads
    lse_at = h.to(tl.int64) * tokens + t
    p = tl.load(p_lse_ptr + lse_at, mask=h_ok, other=0.0)
    s = tl.load(s_lse_ptr + lse_at, mask=h_ok, other=0.0)
    p = tl.where(p == float("inf"), float("-inf"), p)
    s = tl.where(s == float("inf"), float("-inf"), s)
    m = tl.maximum(p, s)
    pe = tl.exp(p - m)
    se = tl.exp(s - m)
    total = pe + se
    pw = tl.math.div_rn(pe, total)
    sw = tl.math.div_rn(se, total)
    mask = h_ok[:, None] & (d < head_size)[None, :]
    at = (t.to(tl.int64) * heads + h.to(tl.int64))[:, None] * head_size + d[None, :]
    po = tl.load(p_ptr + at, mask=mask, other=0.0).to(tl.float32)
    so = tl.load(s_ptr + at, mask=mask, other=0.0).to(tl.float32)
    o = po * pw[:, None] + so * sw[:, None]
    tl.store(out_ptr + at, o.to(out_ptr.dtype.element_ty), mask=mask)
    if HAS_LSE:
        tl.store(out_lse_ptr + lse_at, tl.log(total) + m, mask=h_ok)


def merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse, output_lse=None):
    tokens, heads, head_size = output.shape
    if tokens == 0 or heads == 0:
        return
    block_d = triton.next_power_of_2(head_size)
    block_h = min(triton.next_power_of_2(heads), max(1, 2048 // block_d))
    grid = (tokens, triton.cdiv(heads, block_h))
    has_lse = output_lse is not None
    _merge_kernel[grid](output, output_lse if has_lse else prefix_lse, prefix_output, prefix_lse,
                        suffix_output, suffix_lse, tokens, heads, head_size,
                        HAS_LSE=has_lse, BLOCK_H=block_h, BLOCK_D=block_d, num_warps=4)
