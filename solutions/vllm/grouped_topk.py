"""vllm::grouped_topk in Triton: a tile of tokens per program, every selection done in registers.

Group scores (the sum of each group's two largest biased scores) are built one group at a time
into a [tokens, groups] tile; the kept groups and then the experts are repeated arg-max picks
where the lowest index wins among equals, which is the order of vLLM's stable warp top-k.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _grouped_topk_kernel(scores_ptr, bias_ptr, w_ptr, ids_ptr, n_tokens, n_experts, per_group, topk_group,
                         topk, scale, N_GROUPS: tl.constexpr, SIGMOID: tl.constexpr, RENORMALIZE: tl.constexpr,
                         BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_G: tl.constexpr,
                         BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    row_ok = rows < n_tokens
    cols = tl.arange(0, BLOCK_E)
    col_ok = cols < n_experts
    mask = row_ok[:, None] & col_ok[None, :]
    s = tl.load(scores_ptr + rows.to(tl.int64)[:, None] * n_experts + cols[None, :], mask=mask, other=0.0)
    s = s.to(tl.float32)
    if SIGMOID:
        s = 1.0 / (1.0 + tl.exp(-s))
    b = s + tl.load(bias_ptr + cols, mask=col_ok, other=0.0).to(tl.float32)[None, :]
    neg = float("-inf")
    b = tl.where(col_ok[None, :], b, neg)
    group_of = cols // per_group
    gcols = tl.arange(0, BLOCK_G)
    gscores = tl.full([BLOCK_T, BLOCK_G], neg, tl.float32)
    for g in range(N_GROUPS):
        inside = (group_of == g) & col_ok
        vals = tl.where(inside[None, :], b, neg)
        first = tl.max(vals, axis=1)
        at = tl.min(tl.where(vals == first[:, None], cols[None, :], BLOCK_E), axis=1)
        rest = tl.where(cols[None, :] == at[:, None], neg, vals)
        second = tl.max(rest, axis=1)
        second = tl.where(second == neg, 0.0, second)
        gscores = tl.where(gcols[None, :] == g, (first + second)[:, None], gscores)
    keep = tl.zeros([BLOCK_T, BLOCK_G], dtype=tl.int1)
    for _ in range(topk_group):
        best = tl.max(gscores, axis=1)
        pick = tl.min(tl.where(gscores == best[:, None], gcols[None, :], BLOCK_G), axis=1)
        hit = gcols[None, :] == pick[:, None]
        keep = keep | hit
        gscores = tl.where(hit, neg, gscores)
    kept_expert = tl.zeros([BLOCK_T, BLOCK_E], dtype=tl.int1)
    for g in range(N_GROUPS):
        kept_g = tl.sum(tl.where(keep & (gcols[None, :] == g), 1, 0), axis=1) > 0
        kept_expert = kept_expert | (kept_g[:, None] & (group_of == g)[None, :])
    b = tl.where(kept_expert & col_ok[None, :], b, neg)
    slots = tl.arange(0, BLOCK_K)
    weights = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.float32)
    picks = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.int32)
    for j in range(topk):
        best = tl.max(b, axis=1)
        idx = tl.min(tl.where(b == best[:, None], cols[None, :], BLOCK_E), axis=1)
        chosen = cols[None, :] == idx[:, None]
        w = tl.sum(tl.where(chosen, s, 0.0), axis=1)
        here = slots[None, :] == j
        weights = tl.where(here, w[:, None], weights)
        picks = tl.where(here, idx[:, None], picks)
        b = tl.where(chosen, neg, b)
    if RENORMALIZE:
        weights = weights / (tl.sum(weights, axis=1)[:, None] + 1e-20)
    out_mask = row_ok[:, None] & (slots[None, :] < topk)
    offs = rows.to(tl.int64)[:, None] * topk + slots[None, :]
    tl.store(w_ptr + offs, weights * scale, mask=out_mask)
    tl.store(ids_ptr + offs, picks, mask=out_mask)


def grouped_topk(scores: torch.Tensor, num_expert_group: int, topk_group: int, topk: int, renormalize: bool,
                 routed_scaling_factor: float, bias: torch.Tensor, scoring_func: int = 0):
    n_tokens, n_experts = scores.shape
    weights = torch.empty((n_tokens, topk), dtype=torch.float32, device=scores.device)
    ids = torch.empty((n_tokens, topk), dtype=torch.int32, device=scores.device)
    if n_tokens == 0:
        return weights, ids
    block_e = triton.next_power_of_2(n_experts)
    block_t = min(max(1, 2048 // block_e), triton.next_power_of_2(n_tokens))
    grid = (triton.cdiv(n_tokens, block_t),)
    _grouped_topk_kernel[grid](scores, bias, weights, ids, n_tokens, n_experts, n_experts // num_expert_group,
                               topk_group, topk, routed_scaling_factor, N_GROUPS=num_expert_group,
                               SIGMOID=scoring_func == 1, RENORMALIZE=bool(renormalize), BLOCK_T=block_t,
                               BLOCK_E=block_e, BLOCK_G=triton.next_power_of_2(num_expert_group),
                               BLOCK_K=triton.next_power_of_2(topk), num_warps=4)
    return weights, ids
