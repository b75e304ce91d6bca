"""vllm::topk_softmax in Triton: a tile of tokens per program, softmax and top-k in registers.

The k picks are repeated arg-max reductions over the probabilities; among equal probabilities
the lowest expert index wins, as in vLLM. The picks collect in a [tokens, K] register tile so the
optional renormalisation needs no second pass over memory.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _topk_softmax_kernel(w_ptr, ids_ptr, src_ptr, gate_ptr, n_tokens, n_experts, k, RENORMALIZE: tl.constexpr,
                         BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    row_ok = rows < n_tokens
    cols = tl.arange(0, BLOCK_E)
    col_ok = cols < n_experts
    mask = row_ok[:, None] & col_ok[None, :]
    offs = rows.to(tl.int64)[:, None] * n_experts + cols[None, :]
    x = tl.load(gate_ptr + offs, mask=mask, other=float("-inf")).to(tl.float32)
    x = tl.where(col_ok[None, :], x, float("-inf"))
    m = tl.max(x, axis=1)
    e = tl.exp(x - m[:, None])
    e = tl.where(col_ok[None, :], e, 0.0)
    p = e / tl.sum(e, axis=1)[:, None]
    p = tl.where(col_ok[None, :], p, -1.0)
    slots = tl.arange(0, BLOCK_K)
    weights = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.float32)
    picks = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.int32)
    for j in range(k):
        best = tl.max(p, axis=1)
        idx = tl.min(tl.where(p == best[:, None], cols[None, :], BLOCK_E), axis=1)
        here = slots[None, :] == j
        weights = tl.where(here, best[:, None], weights)
        picks = tl.where(here, idx[:, None], picks)
        p = tl.where(cols[None, :] == idx[:, None], -1.0, p)
    if RENORMALIZE:
        weights = weights / tl.sum(weights, axis=1)[:, None]
    out_mask = row_ok[:, None] & (slots[None, :] < k)
    out_offs = rows.to(tl.int64)[:, None] * k + slots[None, :]
    tl.store(w_ptr + out_offs, weights, mask=out_mask)
    tl.store(ids_ptr + out_offs, picks.to(ids_ptr.dtype.element_ty), mask=out_mask)
    source = slots[None, :] * n_tokens + rows[:, None]
    tl.store(src_ptr + out_offs, source.to(tl.int32), mask=out_mask)


def topk_softmax(topk_weights: torch.Tensor, topk_ids: torch.Tensor, token_expert_indices: torch.Tensor,
                 gating_output: torch.Tensor, renormalize: bool = False) -> None:
    n_tokens, n_experts = gating_output.shape
    k = topk_weights.shape[1]
    if n_tokens == 0:
        return
    block_e = triton.next_power_of_2(n_experts)
    block_t = min(max(1, 4096 // block_e), triton.next_power_of_2(n_tokens))
    grid = (triton.cdiv(n_tokens, block_t),)
    _topk_softmax_kernel[grid](topk_weights, topk_ids, token_expert_indices, gating_output, n_tokens,
                               n_experts, k, RENORMALIZE=bool(renormalize), BLOCK_T=block_t, BLOCK_E=block_e,
                               BLOCK_K=triton.next_power_of_2(k), num_warps=4)
