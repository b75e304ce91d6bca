"""vllm::moe_lora_align_block_size: the grid draws what matters, and the reference matches brute force."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import POISON_INT, materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec
from kernelgenbench.suite.vllm import lora as lr

OP = "vllm::moe_lora_align_block_size"


def _small():
    return [c.sample.values for c in registry.get(OP).cases if c.size == "small"]


def brute(v: dict) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Slot by slot, in plain Python, from the semantics in the module docstring."""
    n, size, blocks, bs = v["max_loras"], v["max_num_tokens_padded"], v["max_num_m_blocks"], v["block_size"]
    ids, k = v["topk_ids"].reshape(-1).tolist(), v["topk_ids"].shape[1]
    emap = None if v["expert_map"] is None else v["expert_map"].tolist()
    mapping, enabled = v["token_lora_mapping"].tolist(), v["adapter_enabled"].tolist()
    out_sorted = v["sorted_token_ids"].clone().view(n, size)
    out_experts = v["experts_ids"].clone().view(n, blocks)
    out_total = v["num_tokens_post_pad"].clone()
    for lora in v["lora_ids"].tolist()[:n]:
        if lora == -1 or not enabled[lora]:
            continue
        groups: dict[int, list[int]] = {}
        for j, x in enumerate(ids):
            e = x if emap is None else emap[x]
            if mapping[j // k] == lora and e >= 0:
                groups.setdefault(e, []).append(j)
        row, owners = [], []
        for e in sorted(groups):
            padded = -(-len(groups[e]) // bs) * bs
            row += groups[e] + [len(ids)] * (padded - len(groups[e]))
            owners += [e] * (padded // bs)
        out_sorted[lora] = torch.tensor(row + [len(ids)] * (size - len(row)), dtype=torch.int32)
        out_experts[lora] = torch.tensor(owners + [-1] * (blocks - len(owners)), dtype=torch.int32)
        out_total[lora] = len(row)
    return out_sorted.reshape(-1), out_experts.reshape(-1), out_total


def test_registered_with_small_cases() -> None:
    op = registry.get(OP)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family == "moe" and ov.func_name == op.name
    assert len(ov.params) == 13
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for values in _small():
        assert list(values) == [p.name for p in ov.params]
        numel = sum(math.prod(v.shape) for v in values.values() if isinstance(v, (TensorSpec, OutputSpec)))
        assert numel <= 20_000


@pytest.mark.parametrize("index", range(len(lr.LORAS["small"])))
def test_reference_matches_brute_force(index: int) -> None:
    values = lr.LORAS["small"][index].values()
    ov = registry.get(OP).overloads[0]
    for seed in range(6):
        v = materialize(values, seed, "cpu")
        want = brute(v)
        args, kwargs = ov.split(v)
        ov.reference(*args, **kwargs)
        for name, w in zip(("sorted_token_ids", "experts_ids", "num_tokens_post_pad"), want, strict=True):
            assert torch.equal(v[name], w), name


def test_hand_example() -> None:
    """2 tokens, top-2, 4 experts, block 2; token 0 on adapter 1, token 1 on none; slot 0 = adapter 1."""
    ov = registry.get(OP).overloads[0]
    sorted_ids = torch.full((2 * 7,), 99, dtype=torch.int32)
    experts = torch.full((2 * 4,), 99, dtype=torch.int32)
    total = torch.full((2,), 99, dtype=torch.int32)
    topk = torch.tensor([[3, 1], [1, 0]], dtype=torch.int32)
    ov.reference(topk, torch.tensor([1, -1], dtype=torch.int32), 4, 2, 2, 7, 4, sorted_ids, experts, total,
                 torch.ones(3, dtype=torch.int32), torch.tensor([1, -1, -1], dtype=torch.int32))
    assert sorted_ids.tolist() == [99] * 7 + [1, 4, 0, 4, 4, 4, 4]
    assert experts.tolist() == [99] * 4 + [1, 3, -1, -1]
    assert total.tolist() == [99, 4]


def test_grid_draws_the_semantics() -> None:
    small = _small()
    assert {v["topk_ids"].dtype for v in small} == {torch.int32, torch.int64}
    assert any(v["expert_map"] is not None for v in small) and any(v["expert_map"] is None for v in small)
    assert {v["block_size"] for v in small} >= {4, 8, 16, 32}
    assert any(v["topk_ids"].shape[0] == 0 for v in small)
    assert any(v["max_num_tokens_padded"] % v["block_size"] for v in small)
    assert any(v["max_num_tokens_padded"] % v["block_size"] == 0 and v["topk_ids"].shape[0] for v in small)
    seen = set()
    for values in small:
        for seed in range(3):
            v = materialize(values, seed, "cpu")
            n = v["max_loras"]
            handled = {x for x in v["lora_ids"].tolist()[:n] if x >= 0 and v["adapter_enabled"][x]}
            if len(handled) < n:
                seen.add("row left as given")
            if any(x >= 0 and not v["adapter_enabled"][x] for x in v["lora_ids"].tolist()[:n]):
                seen.add("disabled adapter")
            if (v["token_lora_mapping"] == -1).any():
                seen.add("token without adapter")
            if len(handled) >= 2:
                seen.add("several adapters")
            ov = registry.get(OP).overloads[0]
            args, kwargs = ov.split(v)
            ov.reference(*args, **kwargs)
            if (v["sorted_token_ids"] == POISON_INT).any():
                seen.add("poison kept")
    assert seen == {"row left as given", "disabled adapter", "token without adapter", "several adapters",
                    "poison kept"}
