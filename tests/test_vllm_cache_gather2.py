"""cp_gather_cache: the `offsets` draw it needs, grids that draw what matters, and the reference
against a token-by-token brute force."""

from __future__ import annotations

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import TensorSpec

OP = "vllm::cp_gather_cache"


def test_offsets_run_from_zero_to_exactly_the_total_with_empty_segments() -> None:
    empty = 0
    for seed in range(20):
        for total in (0, 1, 37):
            o = materialize({"o": TensorSpec((9,), torch.int32, dist="offsets", high=total)}, seed, "cpu")["o"]
            assert o.dtype == torch.int32 and o.shape == (9,)
            assert int(o[0]) == 0 and int(o[-1]) == total and bool((o.diff() >= 0).all())
            empty += int((o.diff() == 0).sum()) if total else 0
    assert empty > 0
    one = materialize({"o": TensorSpec((2,), torch.int64, dist="offsets", high=5)}, 0, "cpu")["o"]
    assert one.tolist() == [0, 5]
    assert "offsets 0..37" in TensorSpec((9,), torch.int32, dist="offsets", high=37).describe()


def _cases(size: str) -> list[dict]:
    return [c.sample.values for c in registry.get(OP).select_cases(sizes=(size,))]


def test_grids_draw_what_matters() -> None:
    small = _cases("small")
    assert {v["src_cache"].dtype for v in small} >= {torch.float32, torch.float16, torch.bfloat16, torch.uint8}
    assert {v["src_cache"].shape[1] for v in small} >= {1, 2, 4, 8, 16}
    assert any(len(v["src_cache"].shape) > 3 for v in small)  # multi-dim entries
    assert any(v["seq_starts"] is not None for v in small) and any(v["seq_starts"] is None for v in small)
    assert any(v["batch_size"] < v["block_table"].shape[0] for v in small)  # requests it must not write
    assert all(v["dst"].shape[0] >= v["cu_seq_lens"].high for v in small)
    assert any(v["dst"].shape[0] > v["cu_seq_lens"].high for v in small)  # spare rows left untouched
    for v in _cases("small") + _cases("large") + _cases("perf"):
        bt, cu, starts = v["block_table"], v["cu_seq_lens"], v["seq_starts"]
        assert cu.dist == "offsets" and cu.shape == (bt.shape[0] + 1,) and bt.high == v["src_cache"].shape[0]
        reach = cu.high + (starts.high if starts is not None else 0)
        assert bt.shape[1] * v["src_cache"].shape[1] >= reach  # no request reads past its table row
    perf = _cases("perf")
    assert all(v["src_cache"].shape[1:] == (64, 576) and v["src_cache"].dtype == torch.bfloat16 for v in perf)
    assert {v["batch_size"] for v in perf} >= {8, 64}


def test_reference_matches_brute_force_and_leaves_other_rows() -> None:
    ov = registry.get(OP).overloads[0]
    for values in _cases("small"):
        v = materialize(values, 3, "cpu")
        before = v["dst"].clone()
        ov.reference(**v)
        cu, bt, bs = v["cu_seq_lens"].tolist(), v["block_table"], v["src_cache"].shape[1]
        want = before.clone()
        for b in range(v["batch_size"]):
            start = 0 if v["seq_starts"] is None else int(v["seq_starts"][b])
            for p in range(cu[b + 1] - cu[b]):
                s = p + start
                want[cu[b] + p] = v["src_cache"][int(bt[b, s // bs]), s % bs]
        assert torch.equal(v["dst"], want)
        assert torch.equal(v["dst"][cu[v["batch_size"]]:], before[cu[v["batch_size"]]:])
