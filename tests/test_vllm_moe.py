"""The vLLM MoE routing records: the grids draw what matters, and the references match brute force."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec

IDS = ("vllm::topk_softmax", "vllm::moe_sum", "vllm::moe_align_block_size", "vllm::batched_moe_align_block_size",
       "vllm::grouped_topk")


def _cases(op_id: str, size: str | None = None):
    op = registry.get(op_id)
    return [c for c in op.cases if size is None or c.size == size]


@pytest.mark.parametrize("op_id", IDS)
def test_registered_with_small_cases(op_id: str) -> None:
    op = registry.get(op_id)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family == "moe" and ov.func_name == op.name
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for case in _cases(op_id, "small"):
        assert list(case.sample.values) == [p.name for p in ov.params]
        numel = sum(math.prod(v.shape) for v in case.sample.values.values()
                    if isinstance(v, (TensorSpec, OutputSpec)))
        assert numel <= 20_000, case.name


def test_topk_softmax_grid_draws_the_semantics() -> None:
    small = [c.sample.values for c in _cases("vllm::topk_softmax", "small")]
    assert {v["gating_output"].dtype for v in small} == {torch.float32, torch.float16, torch.bfloat16}
    assert {v["renormalize"] for v in small} == {True, False}
    assert {v["topk_ids"].dtype for v in small} == {torch.int32, torch.int64}
    experts = {v["gating_output"].shape[1] for v in small}
    assert {8, 64, 128, 256} <= experts and any(e & (e - 1) for e in experts)  # and not a power of two
    ks = {v["topk_ids"].shape[1] for v in small}
    assert {1, 2, 6, 8} <= ks
    assert any(v["topk_ids"].shape[1] == v["gating_output"].shape[1] for v in small)  # k == experts
    assert any(v["gating_output"].shape[0] == 0 for v in small)
    for v in small:  # float32 logits never tie; half-precision ones judge the tie rule
        assert (v["gating_output"].dist == "distinct") == (v["gating_output"].dtype == torch.float32)
    for c in _cases("vllm::topk_softmax"):  # distinct float32 logits at least 2^-16 apart
        g = c.sample.values["gating_output"]
        assert g.dtype != torch.float32 or (g.dist == "distinct" and math.prod(g.shape) <= 2 ** 16)
    perf = {(v.sample.values["gating_output"].shape[1], v.sample.values["topk_ids"].shape[1])
            for v in _cases("vllm::topk_softmax", "perf")}
    assert {(8, 2), (64, 6), (128, 8), (256, 8)} <= perf


def test_half_precision_logits_tie_in_the_grid() -> None:
    """Normal bf16 draws over 256 experts tie within a row, so the tie rule is judged."""
    case = next(c for c in _cases("vllm::topk_softmax", "small")
                if c.sample.values["gating_output"].dtype == torch.bfloat16
                and c.sample.values["gating_output"].shape[1] == 256)
    g = materialize(case.sample.values, 0, "cpu")["gating_output"]
    assert any(row.unique().numel() < row.numel() for row in g)


def test_topk_softmax_reference_brute_force() -> None:
    ov = registry.get("vllm::topk_softmax").overloads[0]
    g = torch.tensor([[0.5, 2.0, 2.0, -1.0, 1.0], [3.0, 0.0, 1.0, 3.0, 2.0]], dtype=torch.float64)
    for renorm in (False, True):
        w = torch.empty(2, 3, dtype=torch.float64)
        ids = torch.empty(2, 3, dtype=torch.int32)
        src = torch.empty(2, 3, dtype=torch.int32)
        ov.reference(w, ids, src, g, renorm)
        assert ids.tolist() == [[1, 2, 4], [0, 3, 4]]  # equal logits: lower expert first
        assert src.tolist() == [[0, 2, 4], [1, 3, 5]]
        for t in range(2):
            p = [math.exp(x) for x in g[t].tolist()]
            expected = [p[e] / sum(p) for e in ids[t].tolist()]
            if renorm:
                expected = [x / sum(expected) for x in expected]
            torch.testing.assert_close(w[t], torch.tensor(expected, dtype=torch.float64), rtol=1e-12, atol=0)


def test_topk_softmax_reference_softmax_in_float32_for_half_inputs() -> None:
    ov = registry.get("vllm::topk_softmax").overloads[0]
    g = torch.randn(4, 16).half()
    w = torch.empty(4, 2)
    ids = torch.empty(4, 2, dtype=torch.int64)
    ov.reference(w, ids, torch.empty(4, 2, dtype=torch.int32), g, False)
    expected = torch.softmax(g.float(), -1).topk(2).values
    assert torch.equal(w, expected)


def test_moe_sum_grid_and_reference() -> None:
    small = [c.sample.values for c in _cases("vllm::moe_sum", "small")]
    assert {v["input"].dtype for v in small} == {torch.float32, torch.float16, torch.bfloat16}
    # top-k 2..4 add in the working dtype in vLLM, others go through at::sum: both are drawn
    assert {v["input"].shape[1] for v in small} >= {1, 2, 3, 4, 6, 8}
    assert any(v["input"].shape[0] == 0 for v in small)
    ov = registry.get("vllm::moe_sum").overloads[0]
    x = torch.randn(3, 5, 7, dtype=torch.float64)
    out = torch.empty(3, 7, dtype=torch.float64)
    ov.reference(x, out)
    expected = [[sum(x[t, j, h].item() for j in range(5)) for h in range(7)] for t in range(3)]
    torch.testing.assert_close(out, torch.tensor(expected, dtype=torch.float64), rtol=1e-12, atol=1e-12)
    x = torch.randn(2, 3, 9).half()
    out = torch.empty(2, 9).half()
    ov.reference(x, out)
    assert torch.equal(out, (x[:, 0] + x[:, 1]) + x[:, 2])


def _brute_align(ids: list[int], experts: int, block: int, size: int,
                 emap: list[int] | None = None) -> tuple[list[int], list[int], int]:
    numel = len(ids)
    local = [emap[x] if emap else x for x in ids]
    sorted_ids: list[int] = []
    blocks: list[int] = []
    for e in range(experts):
        mine = [i for i, x in enumerate(local) if x == e]
        padded = -(-len(mine) // block) * block
        sorted_ids += mine + [numel] * (padded - len(mine))
        blocks += [e] * (padded // block)
    total = len(sorted_ids)
    return (sorted_ids + [numel] * (size - total),
            blocks + [0] * (-(-size // block) - len(blocks)), total)


@pytest.mark.parametrize("tokens,k,experts,block,mapped", [(7, 2, 8, 4, False), (3, 8, 256, 16, False),
                                                           (40, 4, 16, 8, False), (1, 1, 4, 2, False),
                                                           (30, 4, 16, 8, True), (5, 2, 8, 4, True)])
def test_moe_align_reference_brute_force(tokens: int, k: int, experts: int, block: int, mapped: bool) -> None:
    ov = registry.get("vllm::moe_align_block_size").overloads[0]
    topk = torch.stack([torch.randperm(experts)[:k] for _ in range(tokens)]).to(torch.int32)
    numel = tokens * k
    size = numel + experts * (block - 1)
    if numel < experts:
        size = min(size, numel * block)
    sorted_ids = torch.full((size,), -7, dtype=torch.int32)
    blocks = torch.full((-(-size // block),), -7, dtype=torch.int32)
    total = torch.full((1,), -7, dtype=torch.int32)
    emap = torch.randint(-1, experts // 2, (experts,), dtype=torch.int32) if mapped else None
    ov.reference(topk, experts, block, sorted_ids, blocks, total, emap)
    want_sorted, want_blocks, want_total = _brute_align(topk.flatten().tolist(), experts, block, size,
                                                        emap.tolist() if mapped else None)
    assert sorted_ids.tolist() == want_sorted
    assert blocks.tolist() == want_blocks
    assert total.tolist() == [want_total]


def test_moe_align_grid_draws_the_semantics() -> None:
    small = [c.sample.values for c in _cases("vllm::moe_align_block_size", "small")]
    assert {v["topk_ids"].dtype for v in small} == {torch.int32, torch.int64}
    assert {v["block_size"] for v in small} >= {4, 8, 16, 32, 64}
    assert {8, 64, 128, 256} <= {v["num_experts"] for v in small}
    # fewer (token, expert) pairs than experts: vLLM's caller shrinks the buffer to numel * block_size
    assert any(math.prod(v["topk_ids"].shape) < v["num_experts"] for v in small)
    # both of vLLM's kernels: small batch (numel < 1024, <= 64 experts) and the general one
    assert any(math.prod(v["topk_ids"].shape) < 1024 and v["num_experts"] <= 64 for v in small)
    assert any(v["num_experts"] > 64 for v in small)
    assert any(v["topk_ids"].dist == "index" for v in small)  # repeated experts within a token
    maps = [v["expert_map"] for v in small if v["expert_map"] is not None]  # expert parallelism
    assert maps and all(m.dtype == torch.int32 and m.low == -1 and m.dist == "index" for m in maps)
    assert any(v["expert_map"] is None for v in small)
    for v in small:  # the buffers are sized as vLLM's caller sizes them
        size = v["sorted_token_ids"].shape[0]
        assert v["experts_ids"].shape == (-(-size // v["block_size"]),)
        assert v["num_tokens_post_pad"].shape == (1,)
    perf = {(v.sample.values["num_experts"], v.sample.values["topk_ids"].shape)
            for v in _cases("vllm::moe_align_block_size", "perf")}
    assert (256, (8192, 8)) in perf and (8, (8192, 2)) in perf


def test_moe_align_padding_is_drawn() -> None:
    """Some drawn expert group is not a multiple of block_size, so padding slots are judged."""
    case = next(c for c in _cases("vllm::moe_align_block_size", "small") if c.sample.values["block_size"] == 16)
    v = materialize(case.sample.values, 0, "cpu")
    counts = torch.bincount(v["topk_ids"].flatten().long(), minlength=v["num_experts"])
    assert bool(((counts % 16) != 0).any())


def test_batched_align_grid_draws_the_semantics() -> None:
    cases = [c.sample.values for c in _cases("vllm::batched_moe_align_block_size")]
    for v in cases:  # what vLLM checks: the buffers' sizes and a whole number of blocks
        e, m, bs = v["expert_num_tokens"].shape[0], v["max_tokens_per_batch"], v["block_size"]
        assert (e * m) % bs == 0 and e <= 1024
        assert v["sorted_ids"].shape == (e * max(bs, m),)
        assert v["expert_ids"].shape == (e * max(bs, m) // bs,)
        assert v["expert_num_tokens"].low == 0 and v["expert_num_tokens"].high == m + 1  # empty and full
    small = [v for c, v in zip(_cases("vllm::batched_moe_align_block_size"), cases) if c.size == "small"]
    assert any(v["block_size"] > v["max_tokens_per_batch"] for v in small)
    assert any(v["max_tokens_per_batch"] % v["block_size"] for v in small)  # padding inside the batch
    assert any(v["block_size"] == 1 for v in small)


def test_batched_align_reference_brute_force() -> None:
    ov = registry.get("vllm::batched_moe_align_block_size").overloads[0]
    m, bs = 6, 4
    counts = torch.tensor([0, 5, 6, 1], dtype=torch.int32)
    size = 4 * max(m, bs)
    sorted_ids = torch.full((size,), -7, dtype=torch.int32)
    blocks = torch.full((size // bs,), -7, dtype=torch.int32)
    total = torch.full((1,), -7, dtype=torch.int32)
    ov.reference(m, bs, counts, sorted_ids, blocks, total)
    s = 4 * m  # the sentinel
    assert sorted_ids.tolist() == [6, 7, 8, 9, 10, s, s, s, 12, 13, 14, 15, 16, 17, s, s, 18, s, s, s] + [s] * 4
    assert blocks.tolist() == [1, 1, 2, 2, 3, -1]
    assert total.tolist() == [20]


def test_grouped_topk_grid_draws_the_semantics() -> None:
    cases = [(c.size, c.sample.values) for c in _cases("vllm::grouped_topk")]
    small = [v for size, v in cases if size == "small"]
    assert {v["scoring_func"] for v in small} == {0, 1}
    assert {v["renormalize"] for v in small} == {True, False}
    assert any(v["num_expert_group"] == 1 for v in small) and any(v["topk_group"] == v["num_expert_group"]
                                                                    for v in small)
    assert any(v["topk"] == v["scores"].shape[1] for v in small)  # every expert of every group
    assert {1.0, 2.5} <= {v["routed_scaling_factor"] for v in small}
    assert any(v["scores"].shape[1] % 2 ** 5 for v in small)  # experts not a power of two
    for _, v in cases:
        e, g = v["scores"].shape[1], v["num_expert_group"]
        assert e % g == 0 and e // g >= 2 and g <= 32 and v["topk"] <= v["topk_group"] * e // g
        assert v["scores"].dist == v["bias"].dist == "distinct"
        if v["scoring_func"] == 1:  # far-apart draws: float32 sigmoids keep their order
            assert math.prod(v["scores"].shape) <= 2 ** 14
    assert any(v["scores"].shape == (8192, 256) for size, v in cases if size == "perf")


def _brute_grouped(s: list[float], bias: list[float], groups: int, topk_group: int, topk: int,
                   renormalize: bool, scale: float) -> tuple[list[float], list[int]]:
    b = [x + y for x, y in zip(s, bias)]
    per = len(s) // groups
    gscore = [sum(sorted(b[g * per:(g + 1) * per], reverse=True)[:2]) for g in range(groups)]
    kept = sorted(range(groups), key=lambda g: (-gscore[g], g))[:topk_group]
    experts = [e for e in range(len(s)) if e // per in kept]
    ids = sorted(experts, key=lambda e: (-b[e], e))[:topk]
    w = [s[e] for e in ids]
    if renormalize:
        w = [x / (sum(w) + 1e-20) for x in w]
    return [x * scale for x in w], ids


@pytest.mark.parametrize("sigmoid", [False, True])
def test_grouped_topk_reference_brute_force(sigmoid: bool) -> None:
    ov = registry.get("vllm::grouped_topk").overloads[0]
    torch.manual_seed(3)
    scores = torch.randn(5, 24, dtype=torch.float64)
    bias = torch.randn(24, dtype=torch.float64) / 4
    scores[0, :] = 0.0  # every score equal: lower groups and experts first
    bias[:] = torch.where(torch.arange(24) % 5 == 0, 0.0, bias)
    w, ids = ov.reference(scores, 6, 3, 5, True, 2.5, bias, int(sigmoid))
    assert ids.dtype == torch.int32
    for t in range(5):
        s = scores[t].tolist()
        if sigmoid:
            s = [1 / (1 + math.exp(-x)) for x in s]
        want_w, want_ids = _brute_grouped(s, bias.tolist(), 6, 3, 5, True, 2.5)
        assert ids[t].tolist() == want_ids
        torch.testing.assert_close(w[t], torch.tensor(want_w, dtype=torch.float64), rtol=1e-12, atol=0)
