"""Mixture-of-experts routing as vLLM 0.13 does it: `topk_softmax`, `moe_sum`, `moe_align_block_size`,
`batched_moe_align_block_size`, `grouped_topk`.

Semantics from vLLM's csrc/moe/torch_bindings.cpp (the `_moe_C` schemas), vllm/_custom_ops.py
(the Python signatures), csrc/moe/topk_softmax_kernels.cu, csrc/moe/moe_align_sum_kernels.cu and
vllm/model_executor/layers/fused_moe/moe_align_block_size.py (how callers size the buffers).

- topk_softmax: softmax over the experts in float32, then the k largest probabilities in
  descending order; equal probabilities go to the lower expert index first (the kernel's
  arg-max reduction prefers the lower index). token_expert_indices[t, j] = j * num_tokens + t.
  With `renormalize` the k weights are divided by their sum.
- moe_sum: output[t] = sum over k of input[t, k]; for top-k 2 to 4 the kernel adds in the
  working dtype (each partial sum rounded), otherwise it calls at::sum_out (float32 accumulation).
- moe_align_block_size: tokens (flat positions of topk_ids) grouped by expert, each expert's
  group padded to a multiple of block_size; the padding value and every unused slot of
  sorted_token_ids is numel(topk_ids), experts_ids holds each block's expert and 0 past the
  last used block, num_tokens_post_pad[0] is the padded total.
- batched_moe_align_block_size: the same for tokens already grouped by expert in fixed-size
  batches; unused slots hold num_experts * max_tokens_per_batch and unused blocks -1.
- grouped_topk (csrc/moe/grouped_topk_kernels.cu): DeepSeek-V3's no-aux-loss routing; see its doc.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import SUM_TOLERANCE, sample
from ..spec import Operator, OutputSpec, Overload, Param, Sample, Size, TensorSpec
from .family import compute_dtype, vllm_operator

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
i32, i64 = torch.int32, torch.int64


# ---------------------------------------------------------------------------------- topk_softmax

@dataclass(frozen=True)
class Gate:
    """One topk_softmax call: gating_output [tokens, experts] in `dtype`, top `k`."""

    tokens: int
    experts: int
    k: int
    dtype: torch.dtype
    renormalize: bool
    ids: torch.dtype = i32

    def values(self) -> dict[str, object]:
        shape = (self.tokens, self.experts)
        # float32 logits are pairwise distinct, at least 2^-16 apart (tokens * experts <= 2^16,
        # checked by the tests), so the chosen experts never hinge on the last bits of an
        # approximate exp; distinct fp16/bf16 values are that far apart anyway, and their normals
        # tie often, so the tie rule (lower expert first) is judged there.
        dist = "distinct" if self.dtype == f32 else "normal"
        return {
            "topk_weights": OutputSpec((self.tokens, self.k), f32),
            "topk_ids": OutputSpec((self.tokens, self.k), self.ids),
            "token_expert_indices": OutputSpec((self.tokens, self.k), i32),
            "gating_output": TensorSpec(shape, self.dtype, dist=dist),
            "renormalize": self.renormalize,
        }


GATES: dict[str, list[Gate]] = {
    "small": [
        Gate(1, 8, 2, f32, False),
        Gate(7, 8, 2, bf16, True),
        Gate(5, 64, 6, f16, False),
        Gate(3, 128, 8, f32, True, i64),
        Gate(4, 256, 8, bf16, True),
        Gate(9, 60, 4, f16, True),
        Gate(6, 16, 1, bf16, False, i64),
        Gate(3, 8, 8, f32, True),
        Gate(11, 72, 6, bf16, False),
        Gate(0, 8, 2, f16, True),
    ],
    "large": [
        Gate(4096, 8, 2, bf16, True),
        Gate(256, 256, 8, f32, True),
        Gate(4096, 256, 8, bf16, True),
        Gate(2048, 128, 8, f16, False, i64),
        Gate(1000, 64, 6, bf16, False),
    ],
    "perf": [
        Gate(1, 8, 2, bf16, True),
        Gate(64, 256, 8, bf16, True),
        Gate(8192, 8, 2, bf16, True),
        Gate(8192, 64, 6, bf16, False),
        Gate(8192, 128, 8, bf16, True),
        Gate(8192, 256, 8, bf16, True),
        Gate(8192, 64, 6, f16, False),
    ],
}


def topk_softmax_reference(topk_weights: torch.Tensor, topk_ids: torch.Tensor, token_expert_indices: torch.Tensor,
                           gating_output: torch.Tensor, renormalize: bool = False) -> None:
    tokens, k = topk_weights.shape
    probs = torch.softmax(gating_output.to(compute_dtype(gating_output.dtype)), dim=-1)
    # a stable descending sort keeps equal probabilities in expert order: vLLM's tie rule
    order = torch.sort(probs, dim=-1, descending=True, stable=True).indices[:, :k]
    weights = probs.gather(1, order)
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    topk_weights.copy_(weights)
    topk_ids.copy_(order)
    rows = torch.arange(tokens, dtype=torch.int64, device=topk_ids.device)
    cols = torch.arange(k, dtype=torch.int64, device=topk_ids.device)
    token_expert_indices.copy_(cols[None, :] * tokens + rows[:, None])


def topk_softmax_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for g in GATES[size]:
        yield sample(g.values())


def topk_softmax() -> Operator:
    return vllm_operator(
        "topk_softmax", "moe",
        "MoE router: softmax over experts, then the top-k experts and their weights per token.",
        params=(
            Param("topk_weights", "Tensor!", writes=True),
            Param("topk_ids", "Tensor!", writes=True),
            Param("token_expert_indices", "Tensor!", writes=True),
            Param("gating_output", "Tensor"),
            Param("renormalize", "bool", has_default=True, default=False),
        ),
        signature=("topk_softmax(topk_weights: torch.Tensor, topk_ids: torch.Tensor, "
                   "token_expert_indices: torch.Tensor, gating_output: torch.Tensor, "
                   "renormalize: bool = False) -> None"),
        reference=topk_softmax_reference,
        sampler=topk_softmax_sampler,
        ov_doc=("gating_output [tokens, experts] float32/float16/bfloat16, contiguous; outputs "
                "[tokens, k], contiguous: topk_weights float32, topk_ids int32 or int64, "
                "token_expert_indices int32. p = softmax(gating_output.float(), -1); per token the k "
                "largest p in descending order (equal p: lower expert index first) go to topk_weights "
                "and their expert indices to topk_ids; with renormalize the k weights are divided by "
                "their sum. token_expert_indices[t, j] = j * tokens + t. Returns None."),
        notes=("vLLM 0.13's schema (later versions add an optional bias). float32 cases draw pairwise "
               "distinct logits at least 2^-16 apart (so at most 2^16 of them) so the chosen experts are "
               "unambiguous; fp16/bf16 cases draw normals and "
               "judge vLLM's tie rule (lower expert first). topk_ids in uint32 (also accepted by vLLM) "
               "is not drawn."),
    )


# ---------------------------------------------------------------------------------------- moe_sum

MOE_SUM: dict[str, list[tuple[tuple[int, int, int], torch.dtype]]] = {
    "small": [((1, 2, 8), f32), ((7, 2, 33), f16), ((5, 3, 65), bf16), ((4, 4, 130), f32),
              ((3, 6, 64), f16), ((2, 8, 100), bf16), ((6, 1, 16), f32), ((0, 2, 16), bf16)],
    "large": [((2048, 2, 4096), bf16), ((512, 8, 2048), f32), ((513, 6, 1408), f16)],
    "perf": [((1, 2, 4096), bf16), ((8192, 2, 4096), bf16), ((4096, 8, 7168), bf16), ((8192, 6, 2048), f16)],
}


def moe_sum_reference(input: torch.Tensor, output: torch.Tensor) -> None:
    k = input.shape[1]
    if 2 <= k <= 4:
        acc = input[:, 0]
        for j in range(1, k):
            acc = acc + input[:, j]
        output.copy_(acc)
    else:
        output.copy_(input.sum(dim=1))


def moe_sum_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for (tokens, k, hidden), dtype in MOE_SUM[size]:
        yield sample({"input": TensorSpec((tokens, k, hidden), dtype),
                      "output": OutputSpec((tokens, hidden), dtype)})


def moe_sum() -> Operator:
    return vllm_operator(
        "moe_sum", "moe",
        "Sum of each token's expert outputs: output[t] = sum_k input[t, k].",
        params=(Param("input", "Tensor"), Param("output", "Tensor!", writes=True)),
        signature="moe_sum(input: torch.Tensor, output: torch.Tensor) -> None",
        reference=moe_sum_reference,
        sampler=moe_sum_sampler,
        ov_doc=("input [tokens, topk, hidden] and output [tokens, hidden], contiguous, one float dtype. "
                "output[t, h] = sum over k of input[t, k, h] (vLLM adds in the working dtype for topk "
                "2 to 4; accumulating in float32 is at least as accurate). Returns None."),
        tolerance=SUM_TOLERANCE,
    )


# --------------------------------------------------------------------------- moe_align_block_size

@dataclass(frozen=True)
class Align:
    """One moe_align_block_size call: topk_ids [tokens, k] over `experts`, buffers sized as vLLM's
    caller sizes them."""

    tokens: int
    k: int
    experts: int
    block_size: int
    ids: torch.dtype = i32
    repeats: bool = False
    local: int = 0  # > 0: an expert_map onto `local` local experts (expert parallelism), with -1s

    def padded(self) -> int:
        numel = self.tokens * self.k
        most = numel + self.experts * (self.block_size - 1)
        return min(numel * self.block_size, most) if numel < self.experts else most

    def values(self) -> dict[str, object]:
        shape = (self.tokens, self.k)
        dist = "index" if self.repeats else "unique"
        size = self.padded()
        return {
            "topk_ids": TensorSpec(shape, self.ids, dist=dist, low=0, high=self.experts, along=1),
            "num_experts": self.experts,
            "block_size": self.block_size,
            "sorted_token_ids": OutputSpec((size,), i32),
            "experts_ids": OutputSpec((math.ceil(size / self.block_size),), i32),
            "num_tokens_post_pad": OutputSpec((1,), i32),
            "expert_map": (TensorSpec((self.experts,), i32, dist="index", low=-1, high=self.local)
                           if self.local else None),
        }


ALIGNS: dict[str, list[Align]] = {
    "small": [
        Align(1, 2, 8, 16),
        Align(7, 2, 8, 4),
        Align(5, 6, 64, 16, i64),
        Align(3, 8, 256, 16),
        Align(33, 2, 8, 16),
        Align(40, 8, 128, 32),
        Align(17, 6, 60, 8, i64),
        Align(150, 8, 256, 64),
        Align(9, 2, 8, 4, i32, False, 2),
        Align(60, 8, 128, 16, i64, False, 32),
        Align(300, 4, 16, 16, i32, True),
        Align(0, 2, 8, 16),
    ],
    "large": [
        Align(4096, 2, 8, 64),
        Align(4096, 8, 256, 64),
        Align(8192, 6, 64, 128, i64),
        Align(4096, 8, 256, 64, i32, False, 32),
    ],
    "perf": [
        Align(1, 8, 256, 16),
        Align(64, 8, 256, 16),
        Align(8192, 2, 8, 64),
        Align(8192, 6, 64, 64),
        Align(8192, 8, 128, 64),
        Align(8192, 8, 256, 64),
        Align(8192, 8, 256, 64, i32, False, 32),
    ],
}


def moe_align_block_size_reference(topk_ids: torch.Tensor, num_experts: int, block_size: int,
                                   sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor,
                                   num_tokens_post_pad: torch.Tensor, expert_map: torch.Tensor | None = None) -> None:
    # fixed-shape ops only (a stable sort, scatters, searchsorted), so the large cases also run
    # on meta tensors; entries left out (mapped to -1) go to an extra bucket and an extra slot
    ids = topk_ids.reshape(-1).to(torch.int64)
    numel, size = ids.numel(), sorted_token_ids.numel()
    if expert_map is not None:
        ids = expert_map.to(torch.int64)[ids]
    bucket = torch.where(ids >= 0, ids, num_experts)
    counts = torch.zeros(num_experts + 1, dtype=torch.int64, device=ids.device)
    counts.scatter_add_(0, bucket, torch.ones_like(bucket))
    padded = (counts + block_size - 1) // block_size * block_size
    padded[num_experts] = 0
    ends = torch.cumsum(padded, 0)
    starts = ends - padded
    first = torch.cumsum(counts, 0) - counts
    order = torch.sort(bucket, stable=True).indices
    experts = bucket[order]
    dest = starts[experts] + torch.arange(numel, device=ids.device) - first[experts]
    dest = torch.where(experts < num_experts, dest, size)
    slots = torch.full((size + 1,), numel, dtype=sorted_token_ids.dtype, device=ids.device)
    slots.scatter_(0, dest, order.to(slots.dtype))
    sorted_token_ids.copy_(slots[:size])
    total = ends[num_experts]
    block_starts = torch.arange(experts_ids.numel(), device=ids.device) * block_size
    owner = torch.searchsorted(ends[:num_experts].contiguous(), block_starts, right=True)
    experts_ids.copy_(torch.where(block_starts < total, owner, 0))
    num_tokens_post_pad.copy_(total.reshape(1))


def moe_align_block_size_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for a in ALIGNS[size]:
        yield sample(a.values())


def moe_align_block_size() -> Operator:
    return vllm_operator(
        "moe_align_block_size", "moe",
        "Group the (token, expert) pairs by expert, each expert's group padded to a multiple of block_size.",
        params=(
            Param("topk_ids", "Tensor"),
            Param("num_experts", "int"),
            Param("block_size", "int"),
            Param("sorted_token_ids", "Tensor!", writes=True),
            Param("experts_ids", "Tensor!", writes=True),
            Param("num_tokens_post_pad", "Tensor!", writes=True),
            Param("expert_map", "Tensor?", has_default=True, default=None),
        ),
        signature=("moe_align_block_size(topk_ids: torch.Tensor, num_experts: int, block_size: int, "
                   "sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor, "
                   "num_tokens_post_pad: torch.Tensor, expert_map: torch.Tensor | None = None) -> None"),
        reference=moe_align_block_size_reference,
        sampler=moe_align_block_size_sampler,
        ov_doc=("topk_ids [tokens, k] int32 or int64 in [0, num_experts), contiguous; int32 outputs: "
                "sorted_token_ids [S], experts_ids [ceil(S / block_size)], num_tokens_post_pad [1]; "
                "expert_map: None or int32 [num_experts] mapping each expert id to a local expert id "
                "or -1. With an expert_map every entry x of topk_ids stands for expert_map[x] and "
                "entries mapped to -1 are left out. With numel = tokens * k, c_e = how many entries of "
                "topk_ids stand for e and p_e = ceil(c_e / block_size) * block_size, expert e owns "
                "sorted_token_ids[o_e : o_e + p_e] with o_e = p_0 + ... + p_(e-1): its first c_e slots "
                "hold the flat positions i (in topk_ids.flatten()) of those entries in increasing "
                "order, and every other slot of sorted_token_ids (padding and the unused tail) holds "
                "numel. experts_ids[b] = e for the blocks b of e's range and 0 for every block past the "
                "total; num_tokens_post_pad[0] = sum of p_e. Returns None."),
        notes=("Order within an expert: vLLM's general kernel places tokens with atomics (any order), "
               "its small-batch kernel (numel < 1024, experts <= 64) in a thread-strided order; the "
               "harness has no per-record canonicalisation, so the contract is increasing flat position, "
               "one of the general kernel's possible results (fused_moe is indifferent to it). "
               "expert_map (optional, as in vLLM's current signature) is drawn as a random map onto "
               "fewer local experts with some -1s. Ids outside [0, num_experts) are not drawn."),
    )


# ------------------------------------------------------------------- batched_moe_align_block_size

@dataclass(frozen=True)
class Batched:
    """One batched_moe_align_block_size call: `experts` batches of at most `max_tokens` tokens each
    (the layout of batched expert-parallel MoE), buffers sized as vLLM's caller sizes them."""

    experts: int
    max_tokens: int
    block_size: int

    def values(self) -> dict[str, object]:
        size = self.experts * max(self.block_size, self.max_tokens)
        return {
            "max_tokens_per_batch": self.max_tokens,
            "block_size": self.block_size,
            "expert_num_tokens": TensorSpec((self.experts,), i32, dist="index", low=0, high=self.max_tokens + 1),
            "sorted_ids": OutputSpec((size,), i32),
            "expert_ids": OutputSpec((size // self.block_size,), i32),
            "num_tokens_post_pad": OutputSpec((1,), i32),
        }


# vLLM requires experts * max_tokens to be a multiple of block_size, and at most 1024 batches.
BATCHES: dict[str, list[Batched]] = {
    "small": [Batched(1, 16, 16), Batched(4, 8, 16), Batched(5, 48, 16), Batched(8, 64, 32), Batched(3, 7, 1),
              Batched(16, 24, 64), Batched(6, 100, 8), Batched(2, 3, 2)],
    "large": [Batched(64, 512, 64), Batched(256, 128, 16)],
    "perf": [Batched(8, 64, 16), Batched(32, 1024, 64), Batched(256, 256, 64), Batched(64, 8192, 128)],
}


def batched_moe_align_block_size_reference(max_tokens_per_batch: int, block_size: int,
                                           expert_num_tokens: torch.Tensor, sorted_ids: torch.Tensor,
                                           expert_ids: torch.Tensor, num_tokens_post_pad: torch.Tensor) -> None:
    # fixed-shape ops only (searchsorted over the segment ends), so it also runs on meta tensors
    counts = expert_num_tokens.to(torch.int64)
    experts = counts.numel()
    padded = (counts + block_size - 1) // block_size * block_size
    ends = torch.cumsum(padded, 0)
    total = ends[-1]
    slots = torch.arange(sorted_ids.numel(), device=counts.device)
    owner = torch.searchsorted(ends, slots, right=True).clamp(max=experts - 1)
    within = slots - (ends - padded)[owner]
    live = (slots < total) & (within < counts[owner])
    sentinel = experts * max_tokens_per_batch
    sorted_ids.copy_(torch.where(live, owner * max_tokens_per_batch + within, sentinel))
    block_starts = torch.arange(expert_ids.numel(), device=counts.device) * block_size
    block_owner = torch.searchsorted(ends, block_starts, right=True)
    expert_ids.copy_(torch.where(block_starts < total, block_owner, -1))
    num_tokens_post_pad.copy_(total.reshape(1))


def batched_moe_align_block_size_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for b in BATCHES[size]:
        yield sample(b.values())


def batched_moe_align_block_size() -> Operator:
    return vllm_operator(
        "batched_moe_align_block_size", "moe",
        "moe_align_block_size for batched (expert-major) MoE input: each expert's token count padded to block_size.",
        params=(
            Param("max_tokens_per_batch", "int"),
            Param("block_size", "int"),
            Param("expert_num_tokens", "Tensor"),
            Param("sorted_ids", "Tensor!", writes=True),
            Param("expert_ids", "Tensor!", writes=True),
            Param("num_tokens_post_pad", "Tensor!", writes=True),
        ),
        signature=("batched_moe_align_block_size(max_tokens_per_batch: int, block_size: int, "
                   "expert_num_tokens: torch.Tensor, sorted_ids: torch.Tensor, expert_ids: torch.Tensor, "
                   "num_tokens_post_pad: torch.Tensor) -> None"),
        reference=batched_moe_align_block_size_reference,
        sampler=batched_moe_align_block_size_sampler,
        ov_doc=("expert_num_tokens int32 [E] (E <= 1024), each in [0, max_tokens_per_batch]; E * "
                "max_tokens_per_batch is a multiple of block_size; int32 outputs sorted_ids "
                "[E * max(block_size, max_tokens_per_batch)], expert_ids [len(sorted_ids) / block_size], "
                "num_tokens_post_pad [1]. With n_e = expert_num_tokens[e], p_e = ceil(n_e / block_size) * "
                "block_size and o_e = p_0 + ... + p_(e-1): sorted_ids[o_e + i] = e * max_tokens_per_batch + i "
                "for i < n_e; every other slot of sorted_ids holds E * max_tokens_per_batch; "
                "expert_ids[o_e / block_size + j] = e for j < p_e / block_size and -1 past the last used "
                "block; num_tokens_post_pad[0] = sum of p_e. Returns None."),
        notes=("Follows csrc/moe/moe_align_sum_kernels.cu (batched_moe_align_block_size_kernel): every slot "
               "is written, so the whole buffers are judged. Token counts above max_tokens_per_batch and "
               "E * max_tokens_per_batch not a multiple of block_size (vLLM checks it) are not drawn."),
    )


# ---------------------------------------------------------------------------------- grouped_topk

@dataclass(frozen=True)
class Grouped:
    """One grouped_topk call (DeepSeek-style routing) over float32 scores [tokens, experts]."""

    tokens: int
    experts: int
    groups: int
    topk_group: int
    topk: int
    renormalize: bool
    scaling: float
    sigmoid: bool

    def values(self) -> dict[str, object]:
        return {
            "scores": TensorSpec((self.tokens, self.experts), f32, dist="distinct"),
            "num_expert_group": self.groups,
            "topk_group": self.topk_group,
            "topk": self.topk,
            "renormalize": self.renormalize,
            "routed_scaling_factor": self.scaling,
            "bias": TensorSpec((self.experts,), f32, dist="distinct"),
            "scoring_func": int(self.sigmoid),
        }


# Sigmoid cases keep tokens * experts small: the distinct draws are then far apart (2^-12 or
# more), so float32 sigmoids never reorder them and near-equal group scores stay improbable.
GROUPED: dict[str, list[Grouped]] = {
    "small": [
        Grouped(1, 256, 8, 4, 8, True, 2.5, True),
        Grouped(5, 256, 8, 4, 8, True, 2.5, True),
        Grouped(7, 160, 8, 3, 6, False, 16.0, False),
        Grouped(3, 64, 1, 1, 6, True, 2.446, True),
        Grouped(9, 64, 4, 2, 4, False, 1.0, False),
        Grouped(4, 96, 3, 2, 5, True, 1.0, True),
        Grouped(6, 32, 16, 5, 3, False, 1.5, True),
        Grouped(2, 16, 4, 4, 16, True, 1.0, False),
        Grouped(0, 256, 8, 4, 8, True, 2.5, True),
    ],
    "large": [
        Grouped(2048, 256, 8, 4, 8, False, 2.5, False),
        Grouped(1024, 160, 8, 3, 6, False, 16.0, False),
        Grouped(16, 256, 8, 4, 8, True, 2.5, True),
    ],
    "perf": [
        Grouped(1, 256, 8, 4, 8, True, 2.5, True),
        Grouped(64, 256, 8, 4, 8, True, 2.5, True),
        Grouped(8192, 256, 8, 4, 8, False, 2.5, False),
        Grouped(8192, 160, 8, 3, 6, False, 16.0, False),
    ],
}


def grouped_topk_reference(scores: torch.Tensor, num_expert_group: int, topk_group: int, topk: int,
                           renormalize: bool, routed_scaling_factor: float, bias: torch.Tensor,
                           scoring_func: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    work = compute_dtype(scores.dtype)
    s = scores.to(work)
    if scoring_func == 1:
        s = torch.sigmoid(s)
    biased = s + bias.to(work)
    tokens, experts = biased.shape
    per_group = experts // num_expert_group
    grouped = biased.view(tokens, num_expert_group, per_group)
    group_scores = grouped.topk(min(2, per_group), dim=-1).values.sum(dim=-1)
    # stable descending sorts: among equal scores the lower group / expert index wins, as in vLLM
    chosen = torch.sort(group_scores, dim=-1, descending=True, stable=True).indices[:, :topk_group]
    keep = torch.zeros_like(group_scores, dtype=torch.bool).scatter_(1, chosen, True)
    masked = biased.masked_fill(~keep.repeat_interleave(per_group, dim=1), float("-inf"))
    ids = torch.sort(masked, dim=-1, descending=True, stable=True).indices[:, :topk]
    weights = s.gather(1, ids)
    if renormalize:
        weights = weights / (weights.sum(dim=-1, keepdim=True) + 1e-20)
    return weights * routed_scaling_factor, ids.to(torch.int32)


def grouped_topk_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for g in GROUPED[size]:
        yield sample(g.values())


def grouped_topk() -> Operator:
    return vllm_operator(
        "grouped_topk", "moe",
        "DeepSeek-style grouped top-k routing: best groups by their top-2 biased scores, then the best experts.",
        params=(
            Param("scores", "Tensor"),
            Param("num_expert_group", "int"),
            Param("topk_group", "int"),
            Param("topk", "int"),
            Param("renormalize", "bool"),
            Param("routed_scaling_factor", "float"),
            Param("bias", "Tensor"),
            Param("scoring_func", "int", has_default=True, default=0),
        ),
        signature=("grouped_topk(scores: torch.Tensor, num_expert_group: int, topk_group: int, topk: int, "
                   "renormalize: bool, routed_scaling_factor: float, bias: torch.Tensor, "
                   "scoring_func: int = 0) -> tuple[torch.Tensor, torch.Tensor]"),
        reference=grouped_topk_reference,
        sampler=grouped_topk_sampler,
        ov_doc=("scores [tokens, E] and bias [E] (e_score_correction_bias), float32, contiguous; "
                "num_expert_group G divides E (G <= 32, E / G >= 2), topk <= topk_group * E / G. "
                "s = sigmoid(scores) if scoring_func == 1 else scores (0: already scored); b = s + bias. "
                "Each group's score is the sum of its two largest b (its largest b twice if they are "
                "equal); the topk_group best groups are kept (equal scores: lower group first); among "
                "their experts the topk largest b, in descending order of b (equal: lower expert first), "
                "give topk_indices (int32 [tokens, topk]) and topk_values = s at those experts (float32 "
                "[tokens, topk]), divided by (their sum + 1e-20) if renormalize, times "
                "routed_scaling_factor. Returns (topk_values, topk_indices)."),
        notes=("Schema of _moe_C.grouped_topk with the fused scoring function (csrc/moe/grouped_topk_kernels.cu, "
               "vllm/_custom_ops.py); the selection follows the kernel's stable warp top-k. Only float32 "
               "scores and bias are drawn, pairwise distinct: the choice of experts hinges on sums and, "
               "for fp16/bf16, on values the kernel rounds to the working dtype, which a float64 truth "
               "cannot reproduce, so half-precision scores are not judged. Sigmoid cases keep "
               "tokens * experts small (far-apart draws, so float32 roundoff never reorders experts). "
               "All-non-finite rows (vLLM's fallback to experts 0..topk-1) and one-expert groups (no second "
               "score: vLLM's group score is then not finite) are not drawn."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "topk_softmax": topk_softmax,
    "moe_sum": moe_sum,
    "moe_align_block_size": moe_align_block_size,
    "batched_moe_align_block_size": batched_moe_align_block_size,
    "grouped_topk": grouped_topk,
}
