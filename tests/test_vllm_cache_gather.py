"""The vLLM MLA block copy and row gather records: the grids draw what matters (distinct blocks,
several layers, MLA entry sizes, repeated and permuted rows, dtypes), the references match
brute-force loops, and the shipped solutions also follow what vLLM allows beyond the grids."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.methods.files import candidate_path
from kernelgenbench.methods.reference import solutions_dir
from kernelgenbench.suite import registry
from kernelgenbench.suite.spec import TensorSpec
from kernelgenbench.suite.vllm.cache import EXACT
from kernelgenbench.verify.bind import load_module

IDS = ("vllm::copy_blocks_mla", "vllm::shuffle_rows")
FLOATS = {torch.float32, torch.float16, torch.bfloat16}


def _cases(op_id: str, size: str = "small") -> list[dict]:
    return [c.sample.values for c in registry.get(op_id).select_cases(sizes=(size,))]


def _tensors(values: dict) -> list[TensorSpec]:
    out = []
    for v in values.values():
        out.extend(v if isinstance(v, list) else [v])
    return [t for t in out if isinstance(t, TensorSpec)]


def _solution(op_id: str):
    return getattr(load_module(candidate_path(solutions_dir(), op_id)), op_id.split("::")[1])


@pytest.mark.parametrize("op_id", IDS)
def test_registered_as_exact_data_ops_with_every_tier(op_id: str) -> None:
    op = registry.get(op_id)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family == "cache" and op.work == "data" and op.tolerance == EXACT
    assert ov.func_name == op.name and op.baseline is None and op.traffic is not None
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for values in _cases(op_id):
        assert list(values) == [p.name for p in ov.params]
        assert sum(math.prod(t.shape) for t in _tensors(values)) <= 20_000
        assert all(t.layout == "contiguous" for t in _tensors(values))
    assert {t.dtype for v in _cases(op_id) for t in _tensors(v)} >= FLOATS


def test_copy_blocks_mla_grid_draws_distinct_blocks_layers_and_deepseek_entries() -> None:
    layers, block_sizes = set(), set()
    for values in _cases("vllm::copy_blocks_mla"):
        caches, mapping = values["kv_caches"], values["block_mapping"]
        assert len({(c.shape, c.dtype) for c in caches}) == 1
        assert mapping.dist == "unique" and mapping.along is None and mapping.dtype == torch.int64
        assert 2 * mapping.shape[0] <= mapping.high == caches[0].shape[0]
        layers.add(len(caches))
        block_sizes.add(caches[0].shape[1])
    assert layers >= {1, 2, 3} and len(block_sizes) >= 4
    entries = {v["kv_caches"][0].shape[1:] for size in ("small", "large", "perf")
               for v in _cases("vllm::copy_blocks_mla", size)}
    assert (64, 576) in entries  # DeepSeek-V3: block size 64, kv_lora_rank 512 + rope 64


def test_shuffle_rows_grid_draws_repeats_permutations_and_fewer_rows() -> None:
    kinds = set()
    for values in _cases("vllm::shuffle_rows"):
        inp, index = values["input_tensor"], values["dst2src_map"]
        assert index.dtype == torch.int32 and index.low == 0 and index.high == inp.shape[0]
        assert inp.shape[1] % 16 == 0
        n, m = index.shape[0], inp.shape[0]
        kinds.add("permutation" if index.dist == "unique" else "more" if n > m else "fewer")
        if index.dist == "unique":
            assert n == m
    assert kinds == {"permutation", "more", "fewer"}


def test_copy_blocks_mla_reference_matches_loops() -> None:
    ref = registry.get("vllm::copy_blocks_mla").overloads[0].reference
    caches = [torch.randn(6, 2, 5, dtype=torch.float64) for _ in range(3)]
    mapping = torch.tensor([[4, 0], [1, 2], [5, 3]])
    wants = [c.clone() for c in caches]
    for w in wants:
        for a, b in mapping.tolist():
            for s in range(2):
                for e in range(5):
                    w[b, s, e] = w[a, s, e].item()
    ref(caches, mapping)
    assert all(torch.equal(c, w) for c, w in zip(caches, wants))


def test_shuffle_rows_reference_matches_loops() -> None:
    ref = registry.get("vllm::shuffle_rows").overloads[0].reference
    inp = torch.randn(4, 16, dtype=torch.float64)
    index = torch.tensor([3, 0, 3, 1, 1, 2], dtype=torch.int32)
    want = torch.tensor([[inp[s, j].item() for j in range(16)] for s in index.tolist()], dtype=torch.float64)
    got = ref(inp, index)
    assert got.shape == (6, 16) and torch.equal(got, want)


def test_copy_blocks_mla_solution_copies_padded_blocks_whole() -> None:
    """vLLM copies stride(0) elements per block: a cache padded past its entries moves its padding too."""
    padded = [torch.randn(5, 4, 48).bfloat16() for _ in range(2)]
    caches = [p[:, :, :40] for p in padded]
    mapping = torch.tensor([[0, 3], [4, 1]])
    wants = [p.clone() for p in padded]
    for w in wants:
        w[mapping[:, 1]] = w[mapping[:, 0]]
    _solution("vllm::copy_blocks_mla")(caches, mapping)
    assert all(torch.equal(p, w) for p, w in zip(padded, wants))


def test_shuffle_rows_solution_returns_a_fresh_contiguous_tensor() -> None:
    inp = torch.randn(3, 32).half()
    index = torch.tensor([2, 2, 0, 1, 0], dtype=torch.int32)
    out = _solution("vllm::shuffle_rows")(inp, index)
    assert out.is_contiguous() and out.dtype == inp.dtype and torch.equal(out, inp[index.long()])


def test_shuffle_rows_floor_reads_a_repeated_row_once() -> None:
    """Top-k routing picks each source row several times; after its first read it comes from the
    cache, so the bandwidth floor counts it once (on the H200 an honest kernel wrote 470 MB in
    153 us, under the 220 us floor that read every pick from memory)."""
    from kernelgenbench.verify.timing import traffic_bytes

    op = registry.get("vllm::shuffle_rows")
    rows = torch.zeros(16, 64, dtype=torch.bfloat16)
    picks = torch.arange(16, dtype=torch.int32).repeat_interleave(8)
    out = torch.zeros(128, 64, dtype=torch.bfloat16)
    values = {"input_tensor": rows, "dst2src_map": picks}
    assert traffic_bytes(op, op.overloads[0], values, [out]) == 128 * 64 * 2 + 16 * 64 * 2 + 128 * 4
