"""selective_scan_fwd: grids that draw what matters (varlen and padded batches, pad slots, initial
states, optional arguments, state dtypes), the joint draw of cache_indices, and the reference
against a scalar brute force and a hand-computed example."""

from __future__ import annotations

import math

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize, upcast_value
from kernelgenbench.suite.spec import Joint, TensorSpec
from kernelgenbench.suite.vllm.mamba import PAD_SLOT_ID

OP = "vllm::selective_scan_fwd"


def _cases(size: str) -> list[dict]:
    return [c.sample.values for c in registry.get(OP).select_cases(sizes=(size,))]


def _reference():
    return registry.get(OP).overloads[0].reference


def test_small_grid_draws_every_semantic() -> None:
    small = _cases("small")
    assert {v["u"].dtype for v in small} == {torch.float32, torch.float16, torch.bfloat16}
    assert {v["query_start_loc"] is None for v in small} == {True, False}
    for arg in ("D_", "z_", "delta_bias_", "cache_indices", "has_initial_state"):
        assert {v[arg] is None for v in small} == {True, False}, arg
    assert {v["delta_softplus"] for v in small} == {True, False}
    inits = {(int(v["has_initial_state"].high), v["has_initial_state"].shape[0])
             for v in small if v["has_initial_state"] is not None}
    assert any(k == 0 for k, _ in inits) and any(0 < k < b for k, b in inits) and any(k == b for k, b in inits)
    assert any(v["cache_indices"] is not None and "0 padded" not in v["cache_indices"].what for v in small)
    assert any(v["cache_indices"] is not None and "0 padded" not in v["cache_indices"].what
               and v["query_start_loc"] is not None for v in small)
    assert {v["ssm_states"].dtype == v["u"].dtype for v in small if v["u"].dtype != torch.float32} == {True, False}
    assert any(v["B"].shape[-3] > 1 for v in small)  # several B/C groups
    assert any(v["u"].shape[-1] == 1 for v in small)  # single-token sequences
    for v in small:
        dim, dstate = v["A"].shape
        assert 4 <= dim <= 16 and 4 <= dstate <= 16 and v["u"].shape[-1] <= 40
        assert v["pad_slot_id"] == PAD_SLOT_ID and v["block_size"] == 1024
        assert dim % v["B"].shape[-3] == 0 and v["B"].shape == v["C"].shape
        # states of slots no sequence names are there to be left alone
        assert v["ssm_states"].shape[0] > (v["u"].shape[0] if v["query_start_loc"] is None
                                           else v["query_start_loc"].shape[0] - 1)


def test_perf_grid_is_mamba_and_jamba_prefill() -> None:
    perf = _cases("perf")
    assert {v["A"].shape for v in perf} == {(5120, 16), (8192, 16)}
    assert {v["u"].dtype for v in perf} == {torch.bfloat16}
    assert {v["u"].shape[0] for v in perf if v["query_start_loc"] is None} == {1, 8}
    assert any(v["query_start_loc"] is not None for v in perf)
    assert all(v["z_"] is not None and v["delta_softplus"] for v in perf)


def test_cache_indices_are_distinct_with_pads_where_asked() -> None:
    for values in _cases("small"):
        if values["cache_indices"] is None:
            continue
        assert isinstance(values["cache_indices"], Joint)
        for seed in range(4):
            v = materialize(values, seed, "cpu")
            idx = v["cache_indices"].tolist()
            real = [i for i in idx if i != PAD_SLOT_ID]
            assert len(set(real)) == len(real) and all(0 <= i < v["ssm_states"].shape[0] for i in real)
            pads = int(values["cache_indices"].what.split(", ")[1].split()[0])
            assert len(idx) - len(real) == pads


def _brute(v: dict) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
    """delta, z and ssm_states after the call, by scalar loops in float64."""
    delta, z, states = v["delta"].clone(), None if v["z_"] is None else v["z_"].clone(), v["ssm_states"].clone()
    A = v["A"].tolist()
    dim, dstate = len(A), len(A[0])
    varlen = v["query_start_loc"] is not None
    qsl = v["query_start_loc"].tolist() if varlen else None
    batch = len(qsl) - 1 if varlen else v["u"].shape[0]
    per_group = dim // v["B"].shape[-3]
    for b in range(batch):
        slot = b if v["cache_indices"] is None else int(v["cache_indices"][b])
        if slot == PAD_SLOT_ID:
            continue
        times = range(qsl[b], qsl[b + 1]) if varlen else range(v["u"].shape[-1])
        if len(times) == 0:
            continue
        init = v["has_initial_state"] is not None and bool(v["has_initial_state"][b])
        for d in range(dim):
            h = [float(states[slot, d, n]) if init else 0.0 for n in range(dstate)]
            g = d // per_group
            for t in times:
                at = (d, t) if varlen else (b, d, t)
                bc = (g, slice(None), t) if varlen else (b, g, slice(None), t)
                x, dt = float(v["u"][at]), float(v["delta"][at])
                if v["delta_bias_"] is not None:
                    dt += float(v["delta_bias_"][d])
                if v["delta_softplus"] and dt <= 20.0:
                    dt = math.log1p(math.exp(dt))
                Bt, Ct = v["B"][bc].tolist(), v["C"][bc].tolist()
                h = [math.exp(dt * A[d][n]) * h[n] + dt * Bt[n] * x for n in range(dstate)]
                y = sum(h[n] * Ct[n] for n in range(dstate))
                if v["D_"] is not None:
                    y += float(v["D_"][d]) * x
                delta[at] = y
                if z is not None:
                    zt = float(v["z_"][at])
                    z[at] = y * zt / (1.0 + math.exp(-zt))
            states[slot, d] = torch.tensor(h, dtype=states.dtype)
    return delta, z, states


def test_reference_matches_scalar_brute_force_in_float64() -> None:
    ref = _reference()
    for values in _cases("small"):
        v = {k: upcast_value(x) for k, x in materialize(values, 11, "cpu").items()}
        assert v["u"].dtype == torch.float64
        want_delta, want_z, want_states = _brute(v)
        ref(**v)
        torch.testing.assert_close(v["delta"], want_delta, rtol=1e-10, atol=1e-12)
        torch.testing.assert_close(v["ssm_states"], want_states, rtol=1e-10, atol=1e-12)
        if want_z is not None:
            torch.testing.assert_close(v["z_"], want_z, rtol=1e-10, atol=1e-12)


def test_pads_empty_sequences_and_unnamed_slots_are_left_alone() -> None:
    ref = _reference()
    for values in _cases("small"):
        v = materialize(values, 3, "cpu")
        before = {k: x.clone() for k, x in v.items() if isinstance(x, torch.Tensor)}
        ref(**v)
        varlen = v["query_start_loc"] is not None
        batch = v["query_start_loc"].numel() - 1 if varlen else v["u"].shape[0]
        slots = list(range(batch)) if v["cache_indices"] is None else v["cache_indices"].tolist()
        for b in range(batch):
            span = (slice(None), slice(int(v["query_start_loc"][b]), int(v["query_start_loc"][b + 1]))) \
                if varlen else (b,)
            empty = v["delta"][span].numel() == 0
            if slots[b] == PAD_SLOT_ID or empty:
                assert torch.equal(v["delta"][span], before["delta"][span])
                if v["z_"] is not None:
                    assert torch.equal(v["z_"][span], before["z_"][span])
        written = {s for b, s in enumerate(slots) if s != PAD_SLOT_ID}
        for s in range(v["ssm_states"].shape[0]):
            if s not in written:
                assert torch.equal(v["ssm_states"][s], before["ssm_states"][s])


def test_reference_on_a_hand_computed_example() -> None:
    """dim 1, dstate 1, two steps: A = -1, dt = ln 2 (after softplus of ln 1 = 0 -> ln 2),
    B = 2, C = 3, u = 1, D = 0.5, initial state 4: h1 = 4/2 + 2 ln2, h2 = h1/2 + 2 ln2."""
    f64 = torch.float64
    ln2 = math.log(2.0)
    u = torch.ones(1, 1, 2, dtype=f64)
    delta = torch.zeros(1, 1, 2, dtype=f64)
    z = torch.full((1, 1, 2), 2.0, dtype=f64)
    B = torch.full((1, 1, 1, 2), 2.0, dtype=f64)
    C = torch.full((1, 1, 1, 2), 3.0, dtype=f64)
    states = torch.tensor([[[9.0]], [[4.0]]], dtype=f64)
    _reference()(u, delta, torch.tensor([[-1.0]], dtype=f64), B, C, torch.tensor([0.5], dtype=f64), z, None,
                 True, None, torch.tensor([1], dtype=torch.int32), torch.tensor([True]), states, PAD_SLOT_ID)
    h1 = 2.0 + 2 * ln2
    h2 = h1 / 2 + 2 * ln2
    ys = [3 * h1 + 0.5, 3 * h2 + 0.5]
    silu2 = 2.0 / (1.0 + math.exp(-2.0))
    torch.testing.assert_close(delta.flatten(), torch.tensor(ys, dtype=f64))
    torch.testing.assert_close(z.flatten(), torch.tensor([y * silu2 for y in ys], dtype=f64))
    torch.testing.assert_close(states.flatten(), torch.tensor([9.0, h2], dtype=f64))


def test_delta_distributions_suit_the_softplus_switch() -> None:
    for v in _cases("small") + _cases("large") + _cases("perf"):
        dt = v["delta"]
        assert isinstance(dt, TensorSpec) and dt.dist == "uniform" and dt.high <= 20.0
        assert v["A"].high < 0  # decaying states
        if not v["delta_softplus"]:  # dt stays a step: the states decay
            assert dt.low >= 0.0 and (v["delta_bias_"] is None or v["delta_bias_"].low >= 0.0)
