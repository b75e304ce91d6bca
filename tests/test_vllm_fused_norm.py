"""The vLLM fused-norm records: the grids draw the semantics that matter, and the reference
matches a brute-force, head-by-head evaluation of vLLM's formula."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec
from kernelgenbench.suite.vllm.fused_norm import fused_qk_norm_rope_reference, rms_norm_per_block_quant_reference
from kernelgenbench.suite.vllm.quant import rms_norm_dynamic_per_token_quant_reference

QK = "vllm::fused_qk_norm_rope"
BQ = "vllm::rms_norm_per_block_quant"
FP8 = torch.float8_e4m3fn


def _small(op_id: str):
    return [c.sample.values for c in registry.get(op_id).select_cases(sizes=("small",))]


@pytest.mark.parametrize("op_id", [QK, BQ])
def test_registered_with_cases_in_every_tier_and_small_cases_small(op_id: str) -> None:
    op = registry.get(op_id)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family == "norm" and ov.func_name == op.name
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for case in op.select_cases(sizes=("small",)):
        numel = sum(math.prod(v.shape) for v in case.sample.values.values()
                    if isinstance(v, (TensorSpec, OutputSpec)))
        assert numel <= 20_000, case.name


def test_qk_grid_draws_styles_partial_rotation_head_dims_dtypes_and_caches() -> None:
    cases = _small(QK)
    assert {v["is_neox"] for v in cases} == {True, False}
    assert {v["head_dim"] for v in cases} == {64, 128, 256}
    assert {v["qkv"].dtype for v in cases} == {torch.float16, torch.bfloat16}
    for neox in (True, False):  # partial rotation in both styles
        assert any(v["cos_sin_cache"].shape[1] < v["head_dim"] and v["is_neox"] == neox for v in cases)
    # a float32 cache and one of qkv's dtype
    assert any(v["cos_sin_cache"].dtype == torch.float32 for v in cases)
    assert any(v["cos_sin_cache"].dtype == v["qkv"].dtype for v in cases)
    assert any(v["num_heads_q"] % 2 for v in cases)
    assert any(v["num_heads_k"] != v["num_heads_v"] for v in cases)
    for v in cases:  # what vLLM's kernel accepts
        rot = v["cos_sin_cache"].shape[1]
        assert rot <= v["head_dim"] and (rot // 2) % (v["head_dim"] // 32) == 0
        width = (v["num_heads_q"] + v["num_heads_k"] + v["num_heads_v"]) * v["head_dim"]
        assert v["qkv"].shape == (v["position_ids"].shape[0], width)


def _brute(qkv, hq, hk, hd, eps, qw, kw, cache, neox, pos):
    out = qkv.double().clone()
    rot = cache.shape[1]
    half = rot // 2
    for t in range(qkv.shape[0]):
        c, s = cache[pos[t], :half].double(), cache[pos[t], half:].double()
        for h in range(hq + hk):
            x = out[t, h * hd:(h + 1) * hd]
            w = (qw if h < hq else kw).double()
            y = x / math.sqrt(float((x * x).mean()) + eps) * w
            z = y.clone()
            for j in range(half):
                a, b = (j, j + half) if neox else (2 * j, 2 * j + 1)
                z[a] = y[a] * c[j] - y[b] * s[j]
                z[b] = y[b] * c[j] + y[a] * s[j]
            x.copy_(z)
    return out


@pytest.mark.parametrize("neox", [True, False])
def test_qk_reference_matches_a_head_by_head_evaluation_and_leaves_values_alone(neox: bool) -> None:
    g = torch.Generator().manual_seed(0)
    hq, hk, hv, hd, rot = 3, 1, 2, 8, 4
    qkv = torch.randn(5, (hq + hk + hv) * hd, generator=g, dtype=torch.float64)
    qw, kw = torch.rand(hd, generator=g, dtype=torch.float64) + 0.5, torch.rand(hd, generator=g, dtype=torch.float64)
    cache = torch.randn(7, rot, generator=g, dtype=torch.float64)
    pos = torch.tensor([6, 0, 3, 3, 1])
    want = _brute(qkv, hq, hk, hd, 1e-6, qw, kw, cache, neox, pos)
    got = qkv.clone()
    fused_qk_norm_rope_reference(got, hq, hk, hv, hd, 1e-6, qw, kw, cache, neox, pos)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    assert torch.equal(got[:, (hq + hk) * hd:], qkv[:, (hq + hk) * hd:])  # value heads untouched
    x = qkv[:, :hd]  # the first query head past rot_dim: normalised and weighted only
    normed = x / (x.square().mean(dim=-1, keepdim=True) + 1e-6).sqrt() * qw
    torch.testing.assert_close(got[:, rot:hd], normed[:, rot:], rtol=1e-12, atol=1e-12)


def test_qk_reference_does_not_round_between_norm_and_rotation() -> None:
    """vLLM keeps the normalised head in float32 through the rotation: a bf16 call must equal the
    float32 evaluation rounded once."""
    cases = _small(QK)
    v = materialize(next(c for c in cases if c["qkv"].dtype == torch.bfloat16), 0, "cpu")
    args = [v[k] for k in v]
    got = v["qkv"].clone()
    fused_qk_norm_rope_reference(got, *args[1:])
    wide = v["qkv"].float()
    fused_qk_norm_rope_reference(wide, *args[1:6], v["q_weight"].float(), v["k_weight"].float(), *args[8:])
    assert torch.equal(got, wide.to(torch.bfloat16))


def test_block_quant_grid_draws_groups_dtypes_residual_scale_ub_and_transposed_scales() -> None:
    cases = _small(BQ)
    drawn = {(v["group_size"][1], v["input"].dtype) for v in cases}
    for group in (64, 128):
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            assert (group, dtype) in drawn
    assert {v["residual"] is None for v in cases} == {True, False}
    assert {v["scale_ub"] is None for v in cases} == {True, False}
    assert {v["is_scale_transposed"] for v in cases} == {True, False}
    assert any(len(v["input"].shape) == 3 for v in cases)
    assert any(v["input"].shape[-1] == v["group_size"][1] for v in cases)  # one group per row
    assert any(v["input"].shape[-1] // v["group_size"][1] > 4 for v in cases)
    for v in cases:
        assert v["quant_dtype"] == FP8 and v["group_size"][0] == 1
        assert v["input"].shape[-1] % v["group_size"][1] == 0


def test_block_quant_with_one_group_per_row_is_the_per_token_quant() -> None:
    g = torch.Generator().manual_seed(1)
    x = torch.randn(6, 128, generator=g).to(torch.bfloat16)
    w = (torch.rand(128, generator=g) + 0.5).to(torch.bfloat16)
    ub = torch.tensor([1.0])
    r1 = torch.randn(6, 128, generator=g).to(torch.bfloat16)
    r2 = r1.clone()
    out, scales = rms_norm_per_block_quant_reference(x, w, 1e-6, FP8, [1, 128], ub, r1)
    want, want_scales = rms_norm_dynamic_per_token_quant_reference(x, w, 1e-6, FP8, ub, r2)
    assert torch.equal(out.float(), want.float()) and torch.equal(scales, want_scales)
    assert torch.equal(r1, r2)


def test_block_quant_scales_are_per_group_and_transposable() -> None:
    x = torch.zeros(2, 128)
    x[0, :64], x[0, 64:] = 2.0, -0.5  # rms 1.4577...; groups normalised to 1.372 and -0.343
    x[1] = 1.0
    w = torch.ones(128)
    out, scales = rms_norm_per_block_quant_reference(x, w, 0.0, FP8, [1, 64])
    rms = math.sqrt((4.0 + 0.25) / 2)
    torch.testing.assert_close(scales, torch.tensor([[2 / rms / 448, 0.5 / rms / 448], [1 / 448, 1 / 448]]))
    assert torch.equal(out.float(), torch.full((2, 128), 448.0) * torch.where(x < 0, -1.0, 1.0))
    _, t = rms_norm_per_block_quant_reference(x, w, 0.0, FP8, [1, 64], is_scale_transposed=True)
    assert t.stride() == (1, 2) and torch.equal(t, scales)
