"""The vLLM quant and misc records: the grids draw every mode, and the references compute (and
round) as vLLM's kernels do, checked against hand-computed and brute-force examples."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec
from kernelgenbench.suite.vllm.quant import FP8_MIN_SCALE, QUANT_TOLERANCE
from kernelgenbench.verify.tolerance import compare

IDS = ("vllm::scaled_fp8_quant", "vllm::scaled_int8_quant", "vllm::convert_fp8",
       "vllm::rms_norm_dynamic_per_token_quant", "vllm::permute_cols",
       "vllm::apply_repetition_penalties_cuda", "vllm::merge_attn_states")
FP8 = torch.float8_e4m3fn


def _small(op_id: str):
    return registry.get(op_id).select_cases(sizes=("small",))


@pytest.mark.parametrize("op_id", IDS)
def test_registered_with_small_cases_in_every_tier(op_id: str) -> None:
    op = registry.get(op_id)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family in ("quant", "misc") and ov.func_name == op.name
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for case in op.cases:
        assert list(case.sample.values) == [p.name for p in ov.params]
        if case.size == "small":
            numel = sum(math.prod(v.shape) for v in case.sample.values.values()
                        if isinstance(v, (TensorSpec, OutputSpec)))
            assert numel <= 20_000, case.name


def _fp8_mode(values) -> str:
    if values["scale"] is not None:
        return "static"
    if not values["use_per_token_if_dynamic"]:
        return "per_tensor"
    return "per_token_ub" if values["scale_ub"] is not None else "per_token"


def test_fp8_grid_draws_every_mode_with_every_dtype_and_an_empty_batch() -> None:
    cases = [c.sample.values for c in _small("vllm::scaled_fp8_quant")]
    drawn = {(_fp8_mode(v), v["input"].dtype) for v in cases}
    for mode in ("static", "per_tensor", "per_token", "per_token_ub"):
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            assert (mode, dtype) in drawn
    assert any(v["input"].layout == "expanded" for v in cases)  # a row stride of 0
    assert any(v["input"].shape[0] == 0 for v in cases)
    assert any(v["input"].shape[1] % 2 for v in cases)
    assert all(v["num_token_padding"] is None for v in cases)


def test_fp8_grid_exercises_the_clamp_and_the_scale_ub() -> None:
    ov = registry.get("vllm::scaled_fp8_quant").overloads[0]
    clamped = capped = uncapped = 0
    for i, case in enumerate(_small("vllm::scaled_fp8_quant")):
        v = materialize(case.sample.values, i, "cpu")
        if not v["input"].numel():
            continue
        x = v["input"].float()
        if v["scale"] is not None:
            out, _ = ov.reference(v["input"], v["scale"])
            clamped += int((x.abs() / v["scale"] > 448).sum())
            assert (out.float().abs() <= 448).all()
        elif v["scale_ub"] is not None:
            rowmax = x.abs().amax(-1)
            capped += int((rowmax > v["scale_ub"]).sum())
            uncapped += int((rowmax < v["scale_ub"]).sum())
    assert clamped and capped and uncapped


def test_fp8_reference_rounds_to_nearest_even_after_the_clamp() -> None:
    ov = registry.get("vllm::scaled_fp8_quant").overloads[0]
    x = torch.tensor([[1.0625, 1.1875, -1.0625, 500.0, -1000.0, 3 * 2.0 ** -10, 2.0 ** -11, 0.0]])
    out, scale = ov.reference(x, torch.ones(1))
    assert out.dtype == FP8
    expected = [1.0, 1.25, -1.0, 448.0, -448.0, 2.0 ** -8, 0.0, 0.0]
    assert out.float().reshape(-1).tolist() == expected


def test_fp8_static_scale_is_returned_as_given() -> None:
    ov = registry.get("vllm::scaled_fp8_quant").overloads[0]
    scale = torch.tensor([0.5])
    out, got = ov.reference(torch.tensor([[1.0, -3.0]]), scale)
    assert got is scale and out.float().tolist() == [[2.0, -6.0]]


def test_fp8_dynamic_scales() -> None:
    ov = registry.get("vllm::scaled_fp8_quant").overloads[0]
    x = torch.tensor([[1.0, -4.0], [0.0, 0.0], [8.96, 0.5]])
    out, scale = ov.reference(x)
    assert scale.shape == (1,) and scale.item() == pytest.approx(8.96 / 448, rel=1e-6)
    assert out[2, 0].float().item() == 448.0
    out, scales = ov.reference(x, None, None, torch.tensor([2.0]), True)
    assert scales.shape == (3, 1)
    # row 0 max 4 is capped at 2; the zero row gets the floor 1 / (448 * 512)
    assert scales[0, 0].item() == pytest.approx(2 / 448, rel=1e-6)
    assert scales[1, 0].item() == pytest.approx(FP8_MIN_SCALE, rel=1e-6)
    assert out[0].float().tolist() == [224.0, -448.0] and out[1].float().tolist() == [0.0, 0.0]


def test_fp8_tolerance_rejects_a_truncating_quantiser() -> None:
    """fp8 outputs are floating, so they are judged by tolerance: a kernel that truncates instead of
    rounding to nearest must still fail, and one value a code off must pass."""
    x = torch.randn(64, 256) * 100
    exact = x.clamp(-448, 448).to(FP8)
    down = exact.float().abs() > x.abs().clamp(max=448)
    one_below = (exact.view(torch.uint8) - down.to(torch.uint8) * (exact.float() != 0)).view(FP8)
    assert not compare(one_below, exact, exact, QUANT_TOLERANCE).ok
    nudged = exact.clone()
    nudged.view(torch.uint8)[0, 0] += 1
    assert compare(nudged, exact, exact, QUANT_TOLERANCE).ok


def _int8_mode(values) -> str:
    static = values["scale"] is not None
    return ("static" if static else "dynamic") + ("" if values["symmetric"] else "_azp")


def test_int8_grid_draws_every_mode_with_every_dtype_and_layout() -> None:
    cases = [c.sample.values for c in _small("vllm::scaled_int8_quant")]
    drawn = {(_int8_mode(v), v["input"].dtype) for v in cases}
    for mode in ("static", "static_azp", "dynamic", "dynamic_azp"):
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            assert (mode, dtype) in drawn, (mode, dtype)
    dynamic_layouts = {v["input"].layout for v in cases if v["scale"] is None}
    assert {"strided", "expanded"} <= dynamic_layouts and "transposed" not in dynamic_layouts
    assert all(v["input"].layout == "contiguous" for v in cases if v["scale"] is not None)
    assert all((v["azp"] is None) == v["symmetric"] for v in cases if v["scale"] is not None)
    assert any(v["input"].shape[0] == 0 for v in cases)


def test_int8_static_rounds_half_to_even_and_saturates() -> None:
    ov = registry.get("vllm::scaled_int8_quant").overloads[0]
    x = torch.tensor([[2.5, 3.5, -2.5, 0.5, 126.5, 127.5, 300.0, -300.0]])
    out, scale, azp = ov.reference(x, torch.ones(1))
    assert out.tolist() == [[2, 4, -2, 0, 126, 127, 127, -128]] and azp is None
    out, _, azp = ov.reference(x, torch.ones(1), torch.tensor([3], dtype=torch.int32), False)
    assert out.tolist() == [[5, 7, 1, 3, 127, 127, 127, -128]] and azp.item() == 3


def test_int8_dynamic_matches_hand_computed_rows() -> None:
    ov = registry.get("vllm::scaled_int8_quant").overloads[0]
    x = torch.tensor([[-1.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    out, scales, azp = ov.reference(x)
    assert azp is None and out.tolist() == [[-42, 0, 127], [0, 0, 0]]  # -127/3 = -42.33
    assert scales.shape == (2, 1) and scales[1, 0].item() == 0.0
    out, scales, azp = ov.reference(x[:1], None, None, False)
    # s = 4/255; azp = rint(-128 + 63.75) = -64; rint(-63.75) - 64 = -128; rint(191.25) - 64 saturates
    assert azp.dtype == torch.int32 and azp.tolist() == [[-64]]
    assert out.tolist() == [[-128, -64, 127]]
    assert scales[0, 0].item() == pytest.approx(4 / 255, rel=1e-6)


def test_permute_cols_grid_draws_permutations_repeats_and_an_empty_matrix() -> None:
    cases = [c.sample.values for c in _small("vllm::permute_cols")]
    assert {v["a"].dtype for v in cases} == {torch.float16, torch.bfloat16}
    assert {v["perm"].dist for v in cases} == {"unique", "index"}
    assert all(v["perm"].dtype == torch.int32 and v["a"].shape[1] % 8 == 0 for v in cases)
    assert any(v["a"].shape[0] == 0 for v in cases)
    assert registry.get("vllm::permute_cols").work == "data"


def test_permute_cols_reference_is_a_column_gather() -> None:
    ov = registry.get("vllm::permute_cols").overloads[0]
    a = torch.randn(3, 16).half()
    perm = torch.randperm(16).to(torch.int32)
    out = ov.reference(a, perm)
    for j, src in enumerate(perm.tolist()):
        assert torch.equal(out[:, j], a[:, src])


def test_repetition_penalties_grid_draws_both_signs_dtypes_and_an_empty_batch() -> None:
    cases = [c.sample.values for c in _small("vllm::apply_repetition_penalties_cuda")]
    assert {v["logits"].dtype for v in cases} == {torch.float32, torch.float16, torch.bfloat16}
    assert all(v["logits"].low < 0 < v["logits"].high and v["prompt_mask"].dtype == torch.bool for v in cases)
    assert all(v["repetition_penalties"].dtype == v["logits"].dtype for v in cases)
    assert any(v["logits"].shape[0] == 0 for v in cases)
    assert any(v["logits"].shape[1] % 2 for v in cases)


def test_repetition_penalties_reference_divides_positive_and_multiplies_the_rest() -> None:
    ov = registry.get("vllm::apply_repetition_penalties_cuda").overloads[0]
    logits = torch.tensor([[2.0, -2.0, 0.0, 3.0], [1.0, -1.0, 4.0, 4.0]])
    prompt = torch.tensor([[True, False, True, False], [False, False, False, True]])
    output = torch.tensor([[False, True, False, False], [True, True, False, False]])
    ov.reference(logits, prompt, output, torch.tensor([2.0, 4.0]))
    assert logits.tolist() == [[1.0, -4.0, 0.0, 3.0], [0.25, -4.0, 4.0, 1.0]]


def test_merge_attn_states_grid_draws_specials_dtypes_and_both_lse_forms() -> None:
    cases = [c.sample.values for c in _small("vllm::merge_attn_states")]
    assert {v["output"].dtype for v in cases} == {torch.float32, torch.float16, torch.bfloat16}
    assert any(v["prefix_lse"].dist == "special" for v in cases)
    assert any(v["output_lse"] is None for v in cases) and any(v["output_lse"] is not None for v in cases)
    assert all(v["output"].shape[2] % 8 == 0 for v in cases)
    assert any(v["output"].shape[0] == 0 for v in cases)
    assert all(v["prefix_lse"].shape == v["output"].shape[1::-1] for v in cases)


def _merge(p: float, s: float) -> tuple[torch.Tensor, torch.Tensor]:
    ov = registry.get("vllm::merge_attn_states").overloads[0]
    out, out_lse = torch.empty(1, 1, 8), torch.empty(1, 1)
    ov.reference(out, torch.full((1, 1, 8), 1.0), torch.tensor([[p]]), torch.full((1, 1, 8), 3.0),
                 torch.tensor([[s]]), out_lse)
    return out, out_lse


def test_merge_attn_states_weights_by_the_lse() -> None:
    out, lse = _merge(0.0, math.log(3.0))
    assert torch.allclose(out, torch.full((1, 1, 8), 0.25 * 1 + 0.75 * 3))
    assert lse.item() == pytest.approx(math.log(4.0))


@pytest.mark.parametrize("inf", [float("inf"), float("-inf")])
def test_merge_attn_states_treats_an_infinite_lse_as_an_empty_partial(inf: float) -> None:
    out, lse = _merge(inf, 0.5)
    assert torch.equal(out, torch.full((1, 1, 8), 3.0)) and lse.item() == pytest.approx(0.5)
    out, _ = _merge(inf, inf)
    assert out.isnan().all()  # both empty: vLLM's -inf - -inf


def test_convert_fp8_grid_draws_both_directions_with_every_dtype() -> None:
    cases = [c.sample.values for c in _small("vllm::convert_fp8")]
    quantise = {v["input"].dtype for v in cases if v["output"].dtype == torch.uint8}
    dequantise = {v["output"].dtype for v in cases if v["input"].dtype == torch.uint8}
    assert quantise == dequantise == {torch.float32, torch.float16, torch.bfloat16}
    assert {v["kv_dtype"] for v in cases} == {"fp8", "fp8_e4m3"}
    assert any(v["scale"] < 3 / 448 for v in cases if v["output"].dtype == torch.uint8)  # saturates
    assert all(v["input"].high == 256 for v in cases if v["input"].dtype == torch.uint8)  # NaN codes too
    assert any(len(v["input"].shape) == 5 for v in cases) and any(v["input"].shape[0] == 0 for v in cases)


def test_convert_fp8_reference_codes() -> None:
    ov = registry.get("vllm::convert_fp8").overloads[0]
    out = torch.empty(5, dtype=torch.uint8)
    ov.reference(out, torch.tensor([2.125, -2e-4, 2000.0, -2000.0, 2.0 ** -8]).half(), 2.0, "fp8")
    # 1.0625 ties to 1.0 (0x38); a negative underflow is -0 (0x80); +-1000 saturate to +-448
    assert out.tolist() == [0x38, 0x80, 0x7E, 0xFE, 0x01]
    back = torch.empty(5, dtype=torch.bfloat16)
    ov.reference(back, torch.tensor([0x38, 0x7F, 0xFF, 0x01, 0xB8], dtype=torch.uint8), 0.5, "fp8_e4m3")
    assert back[[0, 3, 4]].float().tolist() == [0.5, 2.0 ** -10, -0.5] and back[1:3].isnan().all()


def test_rms_norm_quant_grid_draws_residual_scale_ub_dtypes_and_ranks() -> None:
    cases = [c.sample.values for c in _small("vllm::rms_norm_dynamic_per_token_quant")]
    assert {v["input"].dtype for v in cases} == {torch.float32, torch.float16, torch.bfloat16}
    assert {v["residual"] is None for v in cases} == {True, False}
    assert {v["scale_ub"] is None for v in cases} == {True, False}
    assert {v["epsilon"] for v in cases} == {1e-5, 1e-6}
    assert all(v["quant_dtype"] == FP8 for v in cases)
    assert any(len(v["input"].shape) == 3 for v in cases) and any(v["input"].shape[0] == 0 for v in cases)


def test_rms_norm_quant_reference_normalises_the_unrounded_sum() -> None:
    ov = registry.get("vllm::rms_norm_dynamic_per_token_quant").overloads[0]
    x, r = torch.randn(3, 64).half(), torch.randn(3, 64).half()
    w = (torch.rand(64) + 0.5).half()
    residual = r.clone()
    out, scales = ov.reference(x, w, 1e-6, FP8, torch.tensor([1.5]), residual)
    z = x.float() + r.float()  # float32, not rounded to half
    assert torch.equal(residual, z.half())
    y = ((z * torch.rsqrt(z.square().mean(-1, keepdim=True) + 1e-6)).half() * w).float()
    s = (y.abs().amax(-1, keepdim=True).clamp(max=1.5) / 448).clamp(min=FP8_MIN_SCALE)
    assert scales.shape == (3, 1) and torch.equal(scales, s)
    assert torch.equal(out.float(), (y / s).clamp(-448, 448).to(FP8).float())


def _asymmetric(rows: int = 8192, hidden: int = 64, seed: int = 5) -> tuple[dict, torch.Tensor]:
    x = torch.randn(rows, hidden, generator=torch.Generator().manual_seed(seed))
    return {"input": x, "scale": None, "azp": None, "symmetric": False}, x


def _quantised(x: torch.Tensor, scale: torch.Tensor, rounding=torch.round) -> list[torch.Tensor]:
    """Codes and zero points of x under a given per-row scale, as vLLM computes them."""
    zp = torch.round(-128.0 - x.double().amin(dim=-1, keepdim=True) / scale.double()).to(torch.int32)
    q = (rounding(x.double() / scale.double()) + zp).clamp(-128, 127).to(torch.int8)
    return [q, scale, zp]


def test_int8_codes_are_judged_under_the_candidates_own_scale() -> None:
    """A scale 2 ulps off the truth moves whole rows' zero points (H200: 84 of 32768 rows): the codes
    then follow it and pass; truncated codes or a zero point off its own scale do not."""
    op = registry.get("vllm::scaled_int8_quant")
    (ov,) = op.overloads
    inputs, x = _asymmetric()
    truth = (x.double().amax(-1, keepdim=True) - x.double().amin(-1, keepdim=True)) / 255.0
    nudged = (truth * (1 + 2.4e-7)).float()  # 2 ulps of float32 up
    honest = _quantised(x, nudged)
    assert not torch.equal(honest[2], _quantised(x, truth.float())[2])  # some zero points moved
    assert op.codes.check(ov, inputs, honest) is None
    truncated = _quantised(x, nudged, rounding=torch.trunc)
    assert "not their input rounded to nearest" in op.codes.check(ov, inputs, truncated)
    shifted = [honest[0], honest[1], honest[2] + 1]
    assert "zero point" in op.codes.check(ov, inputs, shifted)
