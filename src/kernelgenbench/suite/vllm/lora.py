"""Multi-LoRA MoE routing: `moe_lora_align_block_size`, moe_align_block_size once per active adapter.

Semantics from vLLM's csrc/moe/moe_align_sum_kernels.cu (moe_lora_align_block_size and its two
kernels, moe_lora_align_block_size_kernel / _small_batch_expert_kernel, at the generation that
takes `lora_ids` and an optional expert_map: the 13-argument schema of csrc/moe/torch_bindings.cpp
and vllm/_custom_ops.py), and vllm/lora/punica_wrapper/punica_gpu.py (how the caller sizes the
buffers: max_num_tokens_padded = numel + num_experts * (block_size - 1), max_num_m_blocks =
ceil(that / block_size), all three outputs from torch.empty, lora_ids from the token mapping).

Launch slot i < max_loras handles adapter L = lora_ids[i] unless L == -1 or adapter_enabled[L] == 0.
For such an L, row L of sorted_token_ids [max_loras, P], experts_ids [max_loras, M] and
num_tokens_post_pad[L] get exactly moe_align_block_size's result over the entries of topk_ids whose
token t (flat position // top_k) has token_lora_mapping[t] == L (other entries are left out, the
padding value stays numel(topk_ids)), except that blocks past the padded total hold -1 (the current
kernels' inactive_expert_id). Rows of adapters not handled are not written: they stay as given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import sample
from ..spec import Joint, Operator, OutputSpec, Overload, Param, Sample, Size, TensorSpec
from .family import vllm_operator
from .moe import Align, moe_align_block_size_reference

i32, i64 = torch.int32, torch.int64


def _lora_ids(gen: torch.Generator, mapping: torch.Tensor, length: int) -> torch.Tensor:
    """vLLM's active-adapter list: the distinct values of the token mapping (-1 first when some token
    has no adapter), ascending, padded with -1."""
    out = torch.full((length,), -1, dtype=i32, device=mapping.device)
    present = torch.zeros(length + 1, dtype=torch.bool, device=mapping.device)
    present[mapping.long() + 1] = True
    values = torch.arange(-1, length, device=mapping.device)[present]
    out[: values.numel()] = values[:length].to(i32)
    return out


def _enabled(gen: torch.Generator, length: int, disabled: int) -> torch.Tensor:
    """All adapters enabled but `disabled` of them at random positions."""
    off = torch.randperm(length, generator=gen, device=gen.device)[:disabled]
    return torch.ones(length, dtype=i32, device=gen.device).index_fill_(0, off, 0)


@dataclass(frozen=True)
class Lora:
    """One call: moe_align_block_size's `align` case over `loras` adapter slots, tokens mapped to
    adapters in [-1, loras) (-1: no adapter; `no_lora` False draws none), `disabled` adapters off,
    and the padded size rounded up to block_size when `round_up` (the caller's pad_sorted_ids)."""

    align: Align
    loras: int
    disabled: int = 0
    no_lora: bool = True
    round_up: bool = False

    def padded(self) -> int:
        a = self.align
        size = a.tokens * a.k + a.experts * (a.block_size - 1)
        return -(-size // a.block_size) * a.block_size if self.round_up else size

    def values(self) -> dict[str, object]:
        a, n = self.align, self.loras
        base = a.values()
        size = self.padded()
        blocks = math.ceil(size / a.block_size)
        return {
            "topk_ids": base["topk_ids"],
            "token_lora_mapping": TensorSpec((a.tokens,), i32, dist="index", low=-1 if self.no_lora else 0, high=n),
            "num_experts": a.experts,
            "block_size": a.block_size,
            "max_loras": n,
            "max_num_tokens_padded": size,
            "max_num_m_blocks": blocks,
            "sorted_token_ids": OutputSpec((n * size,), i32),
            "experts_ids": OutputSpec((n * blocks,), i32),
            "num_tokens_post_pad": OutputSpec((n,), i32),
            "adapter_enabled": Joint((n + 1,), i32, (), lambda gen: _enabled(gen, n + 1, self.disabled),
                                     f"{self.disabled} adapters disabled"),
            "lora_ids": Joint((n + 1,), i32, ("token_lora_mapping",), lambda gen, m: _lora_ids(gen, m, n + 1),
                              "distinct adapters of the mapping, -1 padded"),
            "expert_map": base["expert_map"],
        }


LORAS: dict[str, list[Lora]] = {
    "small": [
        Lora(Align(5, 2, 8, 16), 2),
        Lora(Align(7, 2, 8, 4), 3, disabled=1),
        Lora(Align(9, 6, 64, 16, i64), 4, no_lora=False),
        Lora(Align(6, 8, 60, 8), 1),
        Lora(Align(33, 2, 8, 16), 4, disabled=2, round_up=True),
        Lora(Align(40, 8, 128, 32), 2, no_lora=False),
        Lora(Align(12, 4, 16, 4, i32, False, 4), 3),
        Lora(Align(30, 8, 128, 16, i64, False, 32), 2, round_up=True),
        Lora(Align(150, 4, 16, 16, i32, True), 4),
        Lora(Align(0, 2, 8, 16), 2),
    ],
    "large": [
        Lora(Align(2048, 2, 8, 64), 8),
        Lora(Align(1024, 8, 128, 64), 4, disabled=1),
        Lora(Align(2048, 8, 256, 64, i32, False, 32), 4),
    ],
    "perf": [
        Lora(Align(64, 8, 128, 16), 4),
        Lora(Align(4096, 2, 8, 64), 8),
        Lora(Align(4096, 8, 128, 64), 4),
        Lora(Align(8192, 8, 64, 64), 8, round_up=True),
    ],
}


def moe_lora_align_block_size_reference(
        topk_ids: torch.Tensor, token_lora_mapping: torch.Tensor, num_experts: int, block_size: int,
        max_loras: int, max_num_tokens_padded: int, max_num_m_blocks: int, sorted_token_ids: torch.Tensor,
        experts_ids: torch.Tensor, num_tokens_post_pad: torch.Tensor, adapter_enabled: torch.Tensor,
        lora_ids: torch.Tensor, expert_map: torch.Tensor | None = None) -> None:
    # every adapter row is computed, then kept only where a launch slot handles it: fixed shapes
    # (no reads of tensor values into Python), so the large cases also check on meta tensors
    dev = topk_ids.device
    ids = topk_ids.reshape(-1).to(i64)
    if expert_map is not None:
        ids = expert_map.to(i64)[ids]
    owner = token_lora_mapping.to(i64).repeat_interleave(topk_ids.shape[1])
    slots = lora_ids[:max_loras].to(i64)
    on = (slots >= 0) & (adapter_enabled.to(i64)[slots.clamp(min=0)] != 0)
    rows = torch.arange(max_loras, device=dev)
    handled = ((slots[None, :] == rows[:, None]) & on[None, :]).any(dim=1)
    sorted_rows = sorted_token_ids.view(max_loras, max_num_tokens_padded)
    expert_rows = experts_ids.view(max_loras, max_num_m_blocks)
    block_starts = torch.arange(max_num_m_blocks, device=dev) * block_size
    for lora in range(max_loras):
        mine = torch.where(owner == lora, ids, -1).reshape(topk_ids.shape)
        got_sorted = torch.empty_like(sorted_rows[lora])
        got_experts = torch.empty_like(expert_rows[lora])
        got_total = torch.empty_like(num_tokens_post_pad[lora:lora + 1])
        moe_align_block_size_reference(mine, num_experts, block_size, got_sorted, got_experts, got_total)
        got_experts = torch.where(block_starts < got_total, got_experts, -1)
        keep = handled[lora]
        sorted_rows[lora].copy_(torch.where(keep, got_sorted, sorted_rows[lora]))
        expert_rows[lora].copy_(torch.where(keep, got_experts, expert_rows[lora]))
        num_tokens_post_pad[lora:lora + 1].copy_(torch.where(keep, got_total, num_tokens_post_pad[lora:lora + 1]))


def moe_lora_align_block_size_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in LORAS[size]:
        yield sample(c.values())


def moe_lora_align_block_size() -> Operator:
    return vllm_operator(
        "moe_lora_align_block_size", "moe",
        "Multi-LoRA MoE routing: moe_align_block_size per active adapter, over that adapter's tokens.",
        params=(
            Param("topk_ids", "Tensor"),
            Param("token_lora_mapping", "Tensor"),
            Param("num_experts", "int"),
            Param("block_size", "int"),
            Param("max_loras", "int"),
            Param("max_num_tokens_padded", "int"),
            Param("max_num_m_blocks", "int"),
            Param("sorted_token_ids", "Tensor!", writes=True),
            Param("experts_ids", "Tensor!", writes=True),
            Param("num_tokens_post_pad", "Tensor!", writes=True),
            Param("adapter_enabled", "Tensor"),
            Param("lora_ids", "Tensor"),
            Param("expert_map", "Tensor?", has_default=True, default=None),
        ),
        signature=("moe_lora_align_block_size(topk_ids: torch.Tensor, token_lora_mapping: torch.Tensor, "
                   "num_experts: int, block_size: int, max_loras: int, max_num_tokens_padded: int, "
                   "max_num_m_blocks: int, sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor, "
                   "num_tokens_post_pad: torch.Tensor, adapter_enabled: torch.Tensor, lora_ids: torch.Tensor, "
                   "expert_map: torch.Tensor | None = None) -> None"),
        reference=moe_lora_align_block_size_reference,
        sampler=moe_lora_align_block_size_sampler,
        ov_doc=("topk_ids [tokens, k] int32 or int64 in [0, num_experts); token_lora_mapping int32 [tokens] in "
                "[-1, max_loras); adapter_enabled, lora_ids int32 [max_loras + 1] (lora_ids in [-1, max_loras)); "
                "expert_map None or int32 [num_experts] onto local ids or -1; int32 outputs sorted_token_ids "
                "[max_loras * P], experts_ids [max_loras * M], num_tokens_post_pad [max_loras], P = "
                "max_num_tokens_padded, M = max_num_m_blocks, all contiguous. For each i < max_loras with "
                "L = lora_ids[i] != -1 and adapter_enabled[L] != 0: take the entries of topk_ids.flatten() at "
                "flat positions j with token_lora_mapping[j // k] == L (with an expert_map, entry x stands for "
                "expert_map[x], and -1s are left out); with c_e of them standing for expert e and p_e = "
                "ceil(c_e / block_size) * block_size, sorted_token_ids[L * P + o_e : L * P + o_e + p_e] "
                "(o_e = p_0 + ... + p_(e-1)) holds their flat positions j in increasing order, then "
                "numel(topk_ids) as padding; every other slot of that row is numel(topk_ids) too; "
                "experts_ids[L * M + b] = e for the blocks b of e's range and -1 for every later block of the "
                "row; num_tokens_post_pad[L] = sum of p_e. Rows of adapters no slot handles are not written "
                "(they keep their contents). Returns None."),
        notes=("Follows the 13-argument moe_lora_align_block_size of vLLM's csrc/moe/moe_align_sum_kernels.cu "
               "(the version whose kernels take lora_ids, token_mask and expert_map; earlier ones, in "
               "csrc/moe/moe_lora_align_sum_kernels.cu, had no lora_ids and a num_tokens_per_lora argument). "
               "Order within an expert: vLLM's general kernel places tokens with atomics (any order), its "
               "small-batch kernel in thread-strided order; the contract is increasing flat position, one of "
               "the general kernel's results (as for moe_align_block_size). Unhandled rows: vLLM's caller "
               "allocates with torch.empty and its fused-MoE kernel never reads them; here they must come back "
               "as given (the harness poisons them, so any write there fails). lora_ids is drawn as vLLM's "
               "token-mapping metadata builds it (distinct mapping values ascending, -1 padded), so with -1 "
               "present and every adapter used the last one falls past the max_loras slots and is not handled, "
               "as in vLLM. Not drawn: ids outside [0, num_experts), lora ids >= max_loras."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "moe_lora_align_block_size": moe_lora_align_block_size,
}
