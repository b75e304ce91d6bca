"""The vLLM cache records: the grids draw what matters (padding slots, token padding, dtypes, block
sizes, layers), the references match brute-force loops, and the shipped solutions also follow the
strided views vLLM allows, which the grids cannot draw yet."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.methods.files import candidate_path
from kernelgenbench.methods.reference import solutions_dir
from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import TensorSpec
from kernelgenbench.suite.vllm.cache import EXACT
from kernelgenbench.verify.bind import load_module

IDS = ("vllm::reshape_and_cache", "vllm::reshape_and_cache_flash", "vllm::concat_and_cache_mla",
       "vllm::swap_blocks", "vllm::copy_blocks")
SLOT_OPS = IDS[:3]
FLOATS = {torch.float32, torch.float16, torch.bfloat16}


def _small(op_id: str) -> list[dict]:
    return [c.sample.values for c in registry.get(op_id).select_cases(sizes=("small",))]


def _tensors(values: dict) -> list[TensorSpec]:
    out = []
    for v in values.values():
        out.extend(v if isinstance(v, list) else [v])
    return [t for t in out if isinstance(t, TensorSpec)]


@pytest.mark.parametrize("op_id", IDS)
def test_registered_as_exact_data_ops_with_every_tier(op_id: str) -> None:
    op = registry.get(op_id)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family == "cache" and op.work == "data" and op.tolerance == EXACT
    assert ov.func_name == op.name and op.baseline is None and ov.writes
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for values in _small(op_id):
        assert list(values) == [p.name for p in ov.params]
        assert sum(math.prod(t.shape) for t in _tensors(values)) <= 20_000
        assert all(t.layout == "contiguous" for t in _tensors(values))
    assert {t.dtype for v in _small(op_id) for t in _tensors(v)} >= FLOATS


@pytest.mark.parametrize("op_id", SLOT_OPS)
def test_slot_grids_draw_padding_tokens_and_key_padding(op_id: str) -> None:
    first, cache = ("kv_c", "kv_cache") if "mla" in op_id else ("key", "key_cache")
    padded, longer, block_sizes = 0, 0, set()
    for values in _small(op_id):
        slots = values["slot_mapping"]
        assert slots.dist == "unique" and slots.dtype == torch.int64
        assert -slots.low < slots.shape[0], "every case writes some token"
        padded += slots.low < 0
        longer += values[first].shape[0] > slots.shape[0]
        cshape = values[cache].shape
        block_size = cshape[3] if op_id == "vllm::reshape_and_cache" else cshape[1]
        assert slots.high == cshape[0] * block_size
        block_sizes.add(block_size)
        assert values["kv_cache_dtype"] == "auto"
    assert padded == len(_small(op_id)) and longer >= 1 and len(block_sizes) >= 3 and 16 in block_sizes


def test_block_grids_draw_distinct_destinations_and_several_layers() -> None:
    for values in _small("vllm::swap_blocks"):
        mapping = values["block_mapping"]
        assert mapping.dist == "unique" and mapping.along == 0
        assert mapping.high <= min(values["src"].shape[0], values["dst"].shape[0])
    assert any(v["src"].shape[0] != v["dst"].shape[0] for v in _small("vllm::swap_blocks"))
    layers = {len(v["key_caches"]) for v in _small("vllm::copy_blocks")}
    assert layers >= {1, 2, 3}
    for values in _small("vllm::copy_blocks"):
        mapping = values["block_mapping"]
        assert mapping.dist == "unique" and mapping.along is None
        assert 2 * mapping.shape[0] <= mapping.high == values["key_caches"][0].shape[0]


def test_drawn_slots_are_distinct_with_negative_padding() -> None:
    values = materialize({"s": TensorSpec((40,), torch.int64, dist="unique", low=-5, high=48)}, 7, "cpu")
    s = values["s"]
    assert s.unique().numel() == 40 and int(s.min()) >= -5 and int(s.max()) < 48


# Brute-force references: one token, head and element at a time.

def _loop_paged(key, value, kc, vc, slots):
    x, bs = kc.shape[4], kc.shape[3]
    for t, s in enumerate(slots.tolist()):
        if s < 0:
            continue
        for h in range(key.shape[1]):
            for d in range(key.shape[2]):
                kc[s // bs, h, d // x, s % bs, d % x] = key[t, h, d]
                vc[s // bs, h, d, s % bs] = value[t, h, d]


def _kv_inputs(tokens: int, slots: list[int], heads: int, head_size: int):
    key = torch.randn(tokens, heads, head_size, dtype=torch.float64)
    return key, torch.randn_like(key), torch.tensor(slots, dtype=torch.int64), torch.ones(())


def test_reshape_and_cache_reference_matches_loops() -> None:
    ref = registry.get("vllm::reshape_and_cache").overloads[0].reference
    key, value, slots, scale = _kv_inputs(6, [5, -1, 0, 9, -2], 3, 8)
    kc, vc = torch.randn(3, 3, 2, 4, 4, dtype=torch.float64), torch.randn(3, 3, 8, 4, dtype=torch.float64)
    want_k, want_v = kc.clone(), vc.clone()
    _loop_paged(key, value, want_k, want_v, slots)
    ref(key, value, kc, vc, slots, "auto", scale, scale)
    assert torch.equal(kc, want_k) and torch.equal(vc, want_v)


def test_reshape_and_cache_flash_reference_matches_loops_on_a_combined_view() -> None:
    ref = registry.get("vllm::reshape_and_cache_flash").overloads[0].reference
    key, value, slots, scale = _kv_inputs(5, [7, -1, 2, 4], 2, 4)
    kv = torch.randn(3, 2, 4, 2, 4, dtype=torch.float64)  # [blocks, k/v, block_size, heads, head_size]
    want = kv.clone()
    for t, s in enumerate(slots.tolist()):
        if s >= 0:
            want[s // 4, 0, s % 4] = key[t]
            want[s // 4, 1, s % 4] = value[t]
    ref(key, value, kv[:, 0], kv[:, 1], slots, "auto", scale, scale)
    assert torch.equal(kv, want)


def test_concat_and_cache_mla_reference_matches_loops() -> None:
    ref = registry.get("vllm::concat_and_cache_mla").overloads[0].reference
    kv_c, k_pe = torch.randn(5, 6, dtype=torch.float64), torch.randn(5, 2, dtype=torch.float64)
    slots = torch.tensor([3, -1, 8, 0], dtype=torch.int64)
    cache = torch.randn(3, 4, 8, dtype=torch.float64)
    want = cache.clone()
    for t, s in enumerate(slots.tolist()):
        if s >= 0:
            want[s // 4, s % 4, :6] = kv_c[t]
            want[s // 4, s % 4, 6:] = k_pe[t]
    ref(kv_c, k_pe, cache, slots, "auto", torch.ones(()))
    assert torch.equal(cache, want)


def test_block_references_match_loops() -> None:
    swap = registry.get("vllm::swap_blocks").overloads[0].reference
    src, dst = torch.randn(4, 2, 3, dtype=torch.float64), torch.randn(6, 2, 3, dtype=torch.float64)
    mapping = torch.tensor([[3, 0], [3, 5], [1, 2]])
    want = dst.clone()
    for a, b in mapping.tolist():
        want[b] = src[a]
    swap(src, dst, mapping)
    assert torch.equal(dst, want)

    copy = registry.get("vllm::copy_blocks").overloads[0].reference
    keys = [torch.randn(5, 2, 3, dtype=torch.float64) for _ in range(2)]
    values = [torch.randn(5, 3, 2, dtype=torch.float64) for _ in range(2)]
    mapping = torch.tensor([[4, 0], [1, 2]])
    wants = [c.clone() for c in keys + values]
    for w in wants:
        for a, b in mapping.tolist():
            w[b] = w[a].clone()
    copy(keys, values, mapping)
    assert all(torch.equal(c, w) for c, w in zip(keys + values, wants))


# The solutions on the strided views vLLM passes (not drawn by the grids yet).

def _solution(op_id: str):
    return getattr(load_module(candidate_path(solutions_dir(), op_id)), op_id.split("::")[1])


@pytest.mark.parametrize("hnd", [False, True])
def test_flash_solution_follows_strided_key_and_combined_caches(hnd: bool) -> None:
    op_id = "vllm::reshape_and_cache_flash"
    heads, head_size, block_size = 2, 8, 4
    qkv = torch.randn(7, (2 + 2 * heads) * head_size).half()
    key = qkv[:, 2 * head_size:(2 + heads) * head_size].view(7, heads, head_size)
    value = qkv[:, (2 + heads) * head_size:].view(7, heads, head_size)
    slots = torch.tensor([5, -1, 0, 11, 2, -1], dtype=torch.int64)
    if hnd:  # physical [blocks, k/v, heads, block_size, head_size], seen as [blocks, block_size, heads, head_size]
        kv = torch.randn(3, 2, heads, block_size, head_size).half()
        caches = kv[:, 0].transpose(1, 2), kv[:, 1].transpose(1, 2)
    else:
        kv = torch.randn(3, 2, block_size, heads, head_size).half()
        caches = kv[:, 0], kv[:, 1]
    want = kv.clone()
    want_caches = (want[:, 0].transpose(1, 2), want[:, 1].transpose(1, 2)) if hnd else (want[:, 0], want[:, 1])
    ref = registry.get(op_id).overloads[0].reference
    ref(key, value, *want_caches, slots, "auto", torch.ones(()), torch.ones(()))
    _solution(op_id)(key, value, *caches, slots, "auto", torch.ones(()), torch.ones(()))
    assert torch.equal(kv, want)


def test_paged_and_mla_solutions_follow_token_strides() -> None:
    qkv = torch.randn(5, 3 * 2 * 16)
    key, value = qkv[:, 32:64].view(5, 2, 16), qkv[:, 64:].view(5, 2, 16)
    slots = torch.tensor([3, -1, 6, 0], dtype=torch.int64)
    kc, vc = torch.randn(2, 2, 4, 4, 4), torch.randn(2, 2, 16, 4)
    want_k, want_v = kc.clone(), vc.clone()
    _loop_paged(key, value, want_k, want_v, slots)
    _solution("vllm::reshape_and_cache")(key, value, kc, vc, slots, "auto", torch.ones(()), torch.ones(()))
    assert torch.equal(kc, want_k) and torch.equal(vc, want_v)

    latent = torch.randn(5, 40).bfloat16()
    kv_c, k_pe = latent[:, :32], latent[:, 32:]
    padded = torch.randn(2, 4, 48).bfloat16()  # entries padded past kv_lora_rank + pe_dim
    cache = padded[:, :, :40]
    want = padded.clone()
    registry.get("vllm::concat_and_cache_mla").overloads[0].reference(kv_c, k_pe, want[:, :, :40], slots, "auto",
                                                                       torch.ones(()))
    _solution("vllm::concat_and_cache_mla")(kv_c, k_pe, cache, slots, "auto", torch.ones(()))
    assert torch.equal(padded, want)


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def _written_bytes(op, ov, values: dict, other: dict) -> int:
    """Bytes the reference writes, nearly: positions it changes from either of two random starting
    contents of the written tensors (a bf16 block copy keeps a value by chance from both at about 1
    in 10^6 positions)."""
    from kernelgenbench.suite.inputs import clone_values
    from kernelgenbench.verify.correctness import written

    changed = None
    for start in (values, other):
        run = clone_values(values)
        for name in ov.writes:
            src = start[name]
            if isinstance(run[name], list):
                run[name] = [t.clone() for t in src]
            else:
                run[name] = src.clone()
        before = [t.clone() for t in written(ov, run)]
        args, kwargs = ov.split(run)
        ov.reference(*args, **kwargs)
        now = [_bits(a) != _bits(b) for a, b in zip(written(ov, run), before)]
        changed = now if changed is None else [c | n for c, n in zip(changed, now)]
    return sum(int(c.sum()) * t.element_size() for c, t in zip(changed, written(ov, values)))


READS = {  # what each op must read: its token rows (the first T) or its source blocks, and its map
    "vllm::reshape_and_cache": lambda v: sum(t[:v["slot_mapping"].shape[0]].numel() * t.element_size()
                                             for t in (v["key"], v["value"], v["slot_mapping"])),
    "vllm::concat_and_cache_mla": lambda v: sum(t[:v["slot_mapping"].shape[0]].numel() * t.element_size()
                                                for t in (v["kv_c"], v["k_pe"], v["slot_mapping"])),
    "vllm::swap_blocks": lambda v: (v["block_mapping"].shape[0] * v["src"][0].numel() * v["src"].element_size()
                                    + v["block_mapping"].numel() * 8),
    "vllm::copy_blocks": lambda v: (sum(v["block_mapping"].shape[0] * c[0].numel() * c.element_size()
                                        for c in (*v["key_caches"], *v["value_caches"]))
                                    + v["block_mapping"].numel() * 8),
}
READS["vllm::reshape_and_cache_flash"] = READS["vllm::reshape_and_cache"]


@pytest.mark.parametrize("op_id", sorted(READS))
def test_timing_floor_counts_the_rows_read_and_only_the_cache_entries_written(op_id: str) -> None:
    """The bandwidth floor's bytes for a cache write: every byte the reference changes, plus what it
    must read; never every element of a cache (that put the floor above honest kernels on the H200)."""
    from kernelgenbench.verify.correctness import case_inputs, written
    from kernelgenbench.verify.timing import traffic_bytes

    op = registry.get(op_id)
    for case in op.select_cases(sizes=("small", "large")):
        ov = op.overload(case.overload)
        values, other = case_inputs(case, 7, "cpu"), case_inputs(case, 7, "cpu", salt=1)
        outputs = written(ov, values)
        floor_bytes = traffic_bytes(op, ov, values, outputs)
        writes = floor_bytes - READS[op_id](values)
        changed = _written_bytes(op, ov, values, other)
        assert changed <= writes <= changed * 1.001, case.name
