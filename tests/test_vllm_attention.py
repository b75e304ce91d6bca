"""The vLLM paged-attention records: the grids draw what matters (sequences of one token, lengths
crossing blocks and 512-token partitions, GQA/MQA, block sizes, ALiBi, unused cache blocks), v2's
workspaces are scratch and not outputs, and the reference matches a token-by-token brute force."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench import api
from kernelgenbench.methods.reference import solutions_dir
from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec
from kernelgenbench.suite.vllm.attention import PARTITION, attention_traffic, paged_attention_v1_reference
from kernelgenbench.verify.verdict import Status

IDS = ("vllm::paged_attention_v1", "vllm::paged_attention_v2")
WORKSPACES = ("exp_sum", "max_logits", "tmp_out")


def _values(op_id: str, size: str) -> list[dict]:
    return [c.sample.values for c in registry.get(op_id).select_cases(sizes=(size,))]


@pytest.mark.parametrize("op_id", IDS)
def test_registered_with_every_tier_and_only_out_judged(op_id: str) -> None:
    op = registry.get(op_id)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family == "attention" and op.work == "compute"
    assert ov.func_name == op.name and op.baseline is None and op.traffic is attention_traffic
    assert ov.writes == ("out",)
    scratch = tuple(p.name for p in ov.params if p.scratch)
    assert scratch == (WORKSPACES if op_id.endswith("v2") else ())
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
        for values in _values(op_id, size):
            names = [p.name for p in ov.params if not p.has_default]
            assert list(values) == names, "every required argument, in schema order; defaults left out"


@pytest.mark.parametrize("op_id", IDS)
def test_small_grid_draws_the_semantics(op_id: str) -> None:
    small = _values(op_id, "small")
    assert {v["query"].dtype for v in small} == {torch.float32, torch.float16, torch.bfloat16}
    assert {v["block_size"] for v in small} == {16, 32}
    groups = {v["query"].shape[1] // v["num_kv_heads"] for v in small}
    assert {1, 4} <= groups and any(v["num_kv_heads"] == 1 and v["query"].shape[1] > 1 for v in small)  # MQA
    sizes = {v["query"].shape[2] for v in small}
    assert {32, 64, 128} <= sizes and any(d & (d - 1) for d in sizes)  # and not a power of two
    assert any(v["alibi_slopes"] is None for v in small) and any(v["alibi_slopes"] is not None for v in small)
    assert any(v["max_seq_len"] == 1 for v in small), "a step where every sequence holds one token"
    assert any(v["seq_lens"].low > PARTITION for v in small), "every sequence crosses a partition"
    assert any(v["max_seq_len"] > 2 * PARTITION for v in small), "three partitions"
    for v in small:
        lens, tables, key_cache = v["seq_lens"], v["block_tables"], v["key_cache"]
        bs, x = v["block_size"], 16 // v["query"].dtype.itemsize
        assert lens.dist == "index" and lens.dtype == torch.int32 and lens.low >= 1
        assert lens.high == v["max_seq_len"] + 1
        assert tables.dist == "unique" and tables.along is None and tables.dtype == torch.int32
        assert tables.shape == (lens.shape[0], -(-v["max_seq_len"] // bs))
        assert tables.high == key_cache.shape[0] > math.prod(tables.shape), "random ids, some blocks unused"
        assert key_cache.shape[1:] == (v["num_kv_heads"], v["query"].shape[2] // x, bs, x)
        assert v["value_cache"].shape[1:] == (v["num_kv_heads"], v["query"].shape[2], bs)
        assert v["kv_cache_dtype"] == "auto" and v["scale"] == v["query"].shape[2] ** -0.5
        assert sum(math.prod(t.shape) for t in v.values() if isinstance(t, (TensorSpec, OutputSpec))) <= 1_500_000


def test_v2_workspaces_are_sized_by_partitions() -> None:
    for size in ("small", "large", "perf"):
        for v in _values("vllm::paged_attention_v2", size):
            n, h, d = v["query"].shape
            parts = -(-v["max_seq_len"] // PARTITION)
            assert v["exp_sum"].shape == v["max_logits"].shape == (n, h, parts)
            assert v["exp_sum"].dtype == v["max_logits"].dtype == torch.float32
            assert v["tmp_out"].shape == (n, h, parts, d) and v["tmp_out"].dtype == v["query"].dtype


def test_perf_grid_is_llama3_8b_decode() -> None:
    perf = _values("vllm::paged_attention_v1", "perf")
    assert all(v["query"].shape[1:] == (32, 128) and v["num_kv_heads"] == 8 for v in perf)
    batches = {v["query"].shape[0] for v in perf}
    contexts = {v["max_seq_len"] for v in perf}
    assert {1, 256} <= batches and {512, 8192} <= contexts
    assert {v["query"].dtype for v in perf} == {torch.float16, torch.bfloat16}


def _brute_force(v: dict) -> torch.Tensor:
    """Token by token, each key element read at its own cache coordinates, in float64."""
    query, key_cache, value_cache = v["query"].double(), v["key_cache"].double(), v["value_cache"].double()
    n, heads, d = query.shape
    bs, x, group = v["block_size"], key_cache.shape[4], heads // v["num_kv_heads"]
    dims = torch.arange(d)
    out = torch.zeros(n, heads, d, dtype=torch.float64)
    for i in range(n):
        length = int(v["seq_lens"][i])
        for h in range(heads):
            kv = h // group
            logits, values = [], []
            for t in range(length):
                block, slot = int(v["block_tables"][i, t // bs]), t % bs
                k = key_cache[block, kv, dims // x, slot, dims % x]
                logit = float(query[i, h] @ k) * v["scale"]
                if v["alibi_slopes"] is not None:
                    logit += float(v["alibi_slopes"][h]) * (t - length + 1)
                logits.append(logit)
                values.append(value_cache[block, kv, :, slot])
            weights = torch.tensor(logits, dtype=torch.float64).softmax(0)
            out[i, h] = (weights[:, None] * torch.stack(values)).sum(0)
    return out


@pytest.mark.parametrize("index", [0, 1, 2, 5])
def test_reference_matches_brute_force(index: int) -> None:
    spec = _values("vllm::paged_attention_v1", "small")[index]
    v = materialize(spec, 1234 + index, "cpu")
    truth = {k: t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for k, t in v.items()}
    paged_attention_v1_reference(**truth)
    torch.testing.assert_close(truth["out"], _brute_force(v), rtol=1e-12, atol=1e-12)
    assert (v["block_tables"].unique().numel() == v["block_tables"].numel())


def test_reference_by_hand_with_alibi() -> None:
    """One head, two tokens in one block of 16: logits 0 and 0 + slope * 1 for the newer token."""
    q = torch.tensor([[[1.0, 0.0]]], dtype=torch.float64)
    key_cache = torch.zeros(2, 1, 1, 16, 2, dtype=torch.float64)  # x = 2 here: [block, kv, d/x, slot, x]
    value_cache = torch.zeros(2, 1, 2, 16, dtype=torch.float64)
    value_cache[1, 0, :, 0] = torch.tensor([1.0, 0.0])
    value_cache[1, 0, :, 1] = torch.tensor([0.0, 1.0])
    out = torch.empty(1, 1, 2, dtype=torch.float64)
    paged_attention_v1_reference(out, q, key_cache, value_cache, 1, 1.0, torch.tensor([[1]], dtype=torch.int32),
                                 torch.tensor([2], dtype=torch.int32), 16, 2, torch.tensor([math.log(3.0)]), "auto",
                                 torch.tensor(1.0), torch.tensor(1.0))
    torch.testing.assert_close(out, torch.tensor([[[0.25, 0.75]]], dtype=torch.float64))


def test_traffic_counts_the_blocks_in_use() -> None:
    spec = _values("vllm::paged_attention_v1", "small")[0]
    v = materialize(spec, 7, "cpu")
    (ov,) = registry.get("vllm::paged_attention_v1").overloads
    blocks = sum(-(-int(n) // v["block_size"]) for n in v["seq_lens"])
    per_block = math.prod(v["key_cache"].shape[1:]) * v["key_cache"].element_size()
    assert attention_traffic(ov, v, []) == 2 * v["query"].numel() * 4 + 2 * blocks * per_block


SCRIBBLE = '''

_computed = paged_attention_v2


def paged_attention_v2(out, exp_sum, max_logits, tmp_out, query, *rest, **kwargs):
    _computed(out, exp_sum, max_logits, tmp_out, query, *rest, **kwargs)
    {target}.fill_(7.0)
'''


@pytest.mark.parametrize(("target", "passes"), [("tmp_out", True), ("exp_sum", True), ("query", False)])
def test_v2_workspaces_are_scratch_but_inputs_stay_read_only(tmp_path, target: str, passes: bool) -> None:
    """Overwriting a workspace after the call changes nothing; overwriting `query` is caught."""
    source = (solutions_dir() / "vllm" / "paged_attention_v2.py").read_text() + SCRIBBLE.format(target=target)
    path = tmp_path / "paged_attention_v2.py"
    path.write_text(source)
    v = api.verify_file(path, "vllm::paged_attention_v2", device="cpu", seed=5, fail_fast=True, copy_check=False)
    assert (v.status is Status.PASS) == passes, f"{v.status.value}: {v.reason}"
    if not passes:
        assert v.status is Status.WRONG_RESULT and "`query`" in v.reason
