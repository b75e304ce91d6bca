"""gather_and_maybe_dequant_cache and cp_gather_indexer_k_quant_cache: the joint draw of token_to_seq,
grids that draw what matters, and the references against token-by-token brute force."""

from __future__ import annotations

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import Joint

DEQUANT = "vllm::gather_and_maybe_dequant_cache"
INDEXER = "vllm::cp_gather_indexer_k_quant_cache"


def _cases(op: str, size: str) -> list[dict]:
    return [c.sample.values for c in registry.get(op).select_cases(sizes=(size,))]


def test_token_to_seq_is_drawn_jointly_with_cu_seq_lens() -> None:
    for values in _cases(DEQUANT, "small"):
        for seed in range(5):
            v = materialize(values, seed, "cpu")
            cu, seq = v["cu_seq_lens"].tolist(), v["token_to_seq"]
            assert isinstance(values["token_to_seq"], Joint) and seq.dtype == torch.int32
            assert cu[-1] == v["num_tokens"] and seq.numel() >= v["num_tokens"]
            for t in range(v["num_tokens"]):
                b = int(seq[t])
                assert cu[b] <= t < cu[b + 1]


def test_dequant_grids_draw_what_matters() -> None:
    small = _cases(DEQUANT, "small")
    assert {v["kv_cache_dtype"] for v in small} == {"auto", "fp8", "fp8_e4m3"}
    assert {v["dst"].dtype for v in small} == {torch.float32, torch.float16, torch.bfloat16}
    assert {v["src_cache"].shape[1] for v in small} >= {1, 2, 4, 8, 16}
    assert any(v["seq_starts"] is None for v in small) and any(v["seq_starts"] is not None for v in small)
    assert any(v["dst"].shape[0] > v["num_tokens"] for v in small)  # rows it must leave alone
    for v in small + _cases(DEQUANT, "large") + _cases(DEQUANT, "perf"):
        assert v["src_cache"].shape[2] == v["dst"].shape[1] == 576
        assert (v["src_cache"].dtype == torch.uint8) == (v["kv_cache_dtype"] != "auto")
        reach = v["num_tokens"] + (v["seq_starts"].high if v["seq_starts"] is not None else 0)
        assert v["block_table"].shape[1] * v["src_cache"].shape[1] >= reach


def test_dequant_reference_matches_brute_force() -> None:
    ov = registry.get(DEQUANT).overloads[0]
    for values in _cases(DEQUANT, "small"):
        v = materialize(values, 7, "cpu")
        before = v["dst"].clone()
        ov.reference(**v)
        cu, bs, n = v["cu_seq_lens"].tolist(), v["src_cache"].shape[1], v["num_tokens"]
        want = before.clone()
        for b in range(len(cu) - 1):
            start = 0 if v["seq_starts"] is None else int(v["seq_starts"][b])
            for p in range(cu[b + 1] - cu[b]):
                s = p + start
                e = v["src_cache"][int(v["block_table"][b, s // bs]), s % bs]
                if v["kv_cache_dtype"] != "auto":
                    e = e.view(torch.float8_e4m3fn).float() * float(v["scale"][0])
                want[cu[b] + p] = e.to(want.dtype)
        assert torch.equal(v["dst"].nan_to_num(7.0), want.nan_to_num(7.0))
        assert torch.equal(v["dst"][n:], before[n:])


def test_indexer_grids_draw_what_matters() -> None:
    small = _cases(INDEXER, "small")
    assert {v["kv_cache"].shape[1] for v in small} >= {1, 2, 4, 8, 16, 64}
    assert {v["dst_k"].shape[1] for v in small} >= {64, 128, 256, 384}
    for v in small + _cases(INDEXER, "large") + _cases(INDEXER, "perf"):
        head_dim, scale_bytes = v["dst_k"].shape[1], v["dst_scale"].shape[1]
        assert head_dim % 16 == 0 and head_dim * 4 // scale_bytes in (64, 128)
        assert v["kv_cache"].shape[2] == head_dim + scale_bytes
        assert v["cu_seq_lens"].high == v["dst_k"].shape[0]  # every row belongs to a request
        assert v["block_table"].shape[1] * v["kv_cache"].shape[1] >= v["dst_k"].shape[0]
    assert all(v["dst_k"].shape[1] == 128 for v in _cases(INDEXER, "perf"))


def test_indexer_reference_matches_brute_force() -> None:
    ov = registry.get(INDEXER).overloads[0]
    for values in _cases(INDEXER, "small"):
        v = materialize(values, 11, "cpu")
        ov.reference(**v)
        cu, cache = v["cu_seq_lens"].tolist(), v["kv_cache"]
        bs, head_dim, sb = cache.shape[1], v["dst_k"].shape[1], v["dst_scale"].shape[1]
        for b in range(len(cu) - 1):
            for p in range(cu[b + 1] - cu[b]):
                flat = cache[int(v["block_table"][b, p // bs])].reshape(-1)
                r = p % bs
                assert torch.equal(v["dst_k"][cu[b] + p], flat[r * head_dim:(r + 1) * head_dim])
                scales = flat[bs * head_dim + r * sb: bs * head_dim + (r + 1) * sb]
                assert torch.equal(v["dst_scale"][cu[b] + p], scales)
