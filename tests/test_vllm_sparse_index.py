"""vllm::convert_vertical_slash_indexes: the grid draws what matters, and the vectorised reference
equals a line-by-line port of vLLM's per-row walk."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import Joint
from kernelgenbench.suite.vllm import sparse_index as sp

OP = "vllm::convert_vertical_slash_indexes"
ARGS = ("q_seqlens", "kv_seqlens", "vertical_indexes", "slash_indexes", "context_size", "block_size_M",
        "block_size_N", "causal")


def walk(q_seqlens, kv_seqlens, vertical, slash, context, bm, bn, causal=True):  # noqa: C901 - the kernel's walk
    """csrc/attention/vertical_slash_index.cu's thread body, one block row at a time, in scalars."""
    b, h, ns = slash.shape
    nv = vertical.shape[2]
    rows = -(-context // bm)
    out = [torch.zeros(b, h, rows, dtype=torch.int32), torch.zeros(b, h, rows, ns, dtype=torch.int32),
           torch.zeros(b, h, rows, dtype=torch.int32), torch.zeros(b, h, rows, nv, dtype=torch.int32)]
    for bi in range(b):
        q, kv = int(q_seqlens[bi]), int(kv_seqlens[bi])
        base = kv - q if causal else kv
        for hi in range(h):
            vs, ss = vertical[bi, hi].tolist(), slash[bi, hi].tolist()
            for m in range(rows):
                start, end = m * bm, m * bm + bm
                if start >= q:
                    continue
                blocks, cols = [], []

                def save(lo, hi_, blocks=blocks, kv=kv):
                    if lo < kv:
                        blocks.extend(range(lo, min(hi_, kv), bn))

                v_idx, v, s_idx, s = vs[0], 1, ss[0], 1
                while s_idx >= end + base and s < ns:
                    s_idx, s = ss[s], s + 1
                has = s_idx <= end + base
                s_idx = max(base + end - s_idx, bm)
                lo, hi_ = s_idx - bm, s_idx
                if not has:
                    lo, hi_ = (base + end, base + end + bn) if causal else (kv, kv + bn)
                finished = False
                while True:
                    if v_idx < hi_:
                        if v_idx < lo:
                            cols.append(v_idx)
                        if v < nv:
                            v_idx, v = vs[v], v + 1
                        else:
                            v_idx = end + bn + base
                        continue
                    if s < ns and (causal or ss[s] >= start):
                        s_idx, s = max(base + end - ss[s], bm), s + 1
                    else:
                        if v == nv or (causal and v_idx > lo):
                            if v == nv and not causal and v_idx < kv:
                                cols.append(v_idx)
                            save(lo, hi_)
                            break
                        if causal:
                            lo, hi_ = base + end, base + end + bn
                        else:
                            save(lo, hi_)
                            lo, hi_ = kv, kv + bn
                        finished = True
                    if not finished:
                        if s_idx > hi_ + bm:
                            save(lo, hi_)
                            lo, hi_ = s_idx - bm, s_idx
                        elif s_idx > hi_:
                            hi_ += bm
                assert len(blocks) <= ns and len(cols) <= nv
                out[0][bi, hi, m], out[2][bi, hi, m] = len(blocks), len(cols)
                out[1][bi, hi, m, :len(blocks)] = torch.tensor(blocks, dtype=torch.int32)
                out[3][bi, hi, m, :len(cols)] = torch.tensor(cols, dtype=torch.int32)
    return tuple(out)


def _small():
    return [c.sample.values for c in registry.get(OP).cases if c.size == "small"]


def _call(values: dict, seed: int):
    v = materialize(values, seed, "cpu")
    return v, [v[k] for k in ARGS]


def test_registered_with_small_cases() -> None:
    op = registry.get(OP)
    (ov,) = op.overloads
    assert op.source == "vllm" and ov.func_name == op.name
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for values in _small():
        assert list(values) == [p.name for p in ov.params]
        shapes = [v.shape for v in values.values() if isinstance(v, Joint)]
        rows = math.ceil(values["context_size"] / values["block_size_M"])
        assert sum(math.prod(s) for s in shapes) * rows <= 20_000


@pytest.mark.parametrize("index", range(len(sp.SPARSE["small"])))
def test_reference_equals_the_kernel_walk_on_the_grid(index: int) -> None:
    values = sp.SPARSE["small"][index].values()
    for seed in range(8):
        _, args = _call(values, seed)
        for got, want in zip(sp.convert_vertical_slash_indexes_reference(*args), walk(*args), strict=True):
            assert torch.equal(got, want)


def test_reference_equals_the_kernel_walk_on_random_shapes() -> None:
    gen = torch.Generator().manual_seed(7)
    for _ in range(40):
        def pick(lo: int, hi: int) -> int:
            return int(torch.randint(lo, hi + 1, (), generator=gen))
        bm = (4, 8, 16)[pick(0, 2)]
        bn = bm * pick(1, 3)
        nv, ns = pick(1, 12), pick(1, 12)
        causal = bool(pick(0, 1))
        case = sp.Sparse(pick(1, 2), pick(1, 2), pick(1, 12) * bm, nv, ns, bm, bn, causal,
                         prefix=pick(0, 40), kv_range=(max(nv, ns), 100), slash_low=pick(0, 10))
        if case.context < max(nv, ns):
            continue
        _, args = _call(case.values(), pick(0, 1000))
        for got, want in zip(sp.convert_vertical_slash_indexes_reference(*args), walk(*args), strict=True):
            assert torch.equal(got, want)


def test_inputs_are_sorted_distinct_and_within_kv() -> None:
    for values in _small():
        v, _ = _call(values, 3)
        kv = v["kv_seqlens"].long()
        assert bool((v["q_seqlens"] <= values["context_size"]).all())
        if values["causal"]:
            assert bool((kv >= v["q_seqlens"]).all())
        vert, sl = v["vertical_indexes"].long(), v["slash_indexes"].long()
        assert bool((vert.diff(dim=-1) > 0).all()) and bool((sl.diff(dim=-1) < 0).all())
        assert bool((vert < kv[:, None, None]).all()) and bool((sl < kv[:, None, None]).all())
        assert bool((sl >= 0).all()) and values["block_size_M"] <= values["block_size_N"]


def test_grid_draws_the_walks_branches() -> None:
    """Dead rows (past q), rows without a slash, several ranges per row, ranges past kv, columns
    kept and dropped, both modes and unequal block sizes all occur in the small tier."""
    seen: set[str] = set()
    small = _small()
    assert {v["causal"] for v in small} == {True, False}
    assert any(v["block_size_M"] != v["block_size_N"] for v in small)
    assert {64} <= {v["block_size_M"] for v in small}
    for values in small:
        v, args = _call(values, 0)
        bc, bo, cc, ci = sp.convert_vertical_slash_indexes_reference(*args)
        bm, bn = values["block_size_M"], values["block_size_N"]
        start = torch.arange(bc.shape[2]) * bm
        live = start[None, :] < v["q_seqlens"][:, None]
        if (~live).any():
            seen.add("dead row")
        if (live[:, None, :] & (bc == 0)).any():
            seen.add("live row without blocks")
        if (cc > 0).any():
            seen.add("columns")
        if (live[:, None, :] & (cc < values["vertical_indexes"].shape[2])).any():
            seen.add("columns dropped")
        gaps = (bo.diff(dim=-1) != bn) & (torch.arange(1, bo.shape[-1])[None, None, None, :] < bc[..., None])
        if gaps.any():
            seen.add("several ranges")
        if (bc == bo.shape[-1]).any():
            seen.add("block_offset full")
    assert seen == {"dead row", "live row without blocks", "columns", "columns dropped", "several ranges",
                    "block_offset full"}
