"""The vLLM quantised-GEMM records: the grids draw every scale mode, operand dtype and layout vLLM's
kernels take, and the references match hand-computed and brute-force examples (AllSpark's N32K16
layout against a line-by-line model of its repack kernel)."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec
from kernelgenbench.suite.vllm.scaled_mm import (
    allspark_w8a16_gemm_reference,
    cutlass_pack_scale_fp8_reference,
    cutlass_scaled_mm_azp_reference,
    cutlass_scaled_mm_reference,
    n32k16_param_positions,
    n32k16_positions,
)

IDS = ("vllm::cutlass_scaled_mm", "vllm::cutlass_scaled_mm_azp", "vllm::cutlass_pack_scale_fp8",
       "vllm::allspark_w8a16_gemm")
FP8 = torch.float8_e4m3fn


def _small(op_id: str):
    return [c.sample.values for c in registry.get(op_id).select_cases(sizes=("small",))]


@pytest.mark.parametrize("op_id", IDS)
def test_registered_with_modest_small_cases_in_every_tier(op_id: str) -> None:
    op = registry.get(op_id)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family == "gemm" and ov.func_name == op.name
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for case in op.cases:
        assert list(case.sample.values) == [p.name for p in ov.params]
        if case.size == "small":
            numel = sum(math.prod(v.shape) for v in case.sample.values.values()
                        if isinstance(v, (TensorSpec, OutputSpec)))
            assert numel <= 140_000, case.name


def _mode(spec: TensorSpec, rows: int) -> str:
    n = math.prod(spec.shape)
    return "scalar" if n == 1 else "vector" if n == rows else "block"


def test_scaled_mm_grid_draws_every_epilogue_dtype_and_layout() -> None:
    drawn = set()
    for v in _small("vllm::cutlass_scaled_mm"):
        a, b = v["a"], v["b"]
        m, (k, n) = math.prod(a.shape[:-1]), b.shape
        assert a.dtype == b.dtype and b.layout == "transposed" and k % 16 == 0 and n % 16 == 0
        sa, sb = _mode(v["scale_a"], m), _mode(v["scale_b"], n)
        if "block" in (sa, sb):  # vLLM's block-wise path: fp8, K >= 256 (no per-token ambiguity), no bias
            assert a.dtype == FP8 and v["bias"] is None and k >= 256 and k % 128 == 0 and n % 128 == 0
            assert v["scale_a"].shape == (m, k // 128) and v["scale_b"].shape == (k // 128, n // 128)
            assert v["scale_a"].layout == v["scale_b"].layout == "transposed"  # stride(0) == 1
        drawn.add((a.dtype, v["out_dtype"], sa, sb, v["bias"] is not None))
    for dtype in (torch.int8, FP8):
        assert {(d, o) for d, o, *_ in drawn if d == dtype} == {(dtype, torch.float16), (dtype, torch.bfloat16)}
        modes = {(sa, sb) for d, _, sa, sb, _ in drawn if d == dtype}
        assert {("scalar", "scalar"), ("vector", "vector"), ("vector", "scalar"), ("scalar", "vector")} <= modes
        assert {bias for d, *_, bias in drawn if d == dtype} == {True, False}
    assert any(sa == sb == "block" for _, _, sa, sb, _ in drawn)
    shapes = [v for v in _small("vllm::cutlass_scaled_mm") if len(v["a"].shape) == 3]
    assert {v["a"].dtype for v in shapes} == {torch.int8, FP8}  # a [..., K] flattened to rows
    # per-channel scales both as [1, N] and [N, 1]
    assert {v["scale_b"].shape[0] == 1 for v in _small("vllm::cutlass_scaled_mm")
            if _mode(v["scale_b"], v["b"].shape[1]) == "vector"} == {True, False}


def test_azp_grid_draws_per_tensor_and_per_token_zero_points() -> None:
    cases = _small("vllm::cutlass_scaled_mm_azp")
    assert all(v["a"].dtype == v["b"].dtype == torch.int8 and v["azp_adj"].dtype == torch.int32 for v in cases)
    kinds = {(v["azp"] is not None, v["bias"] is not None, v["out_dtype"]) for v in cases}
    assert {azp for azp, *_ in kinds} == {True, False} and {bias for _, bias, _ in kinds} == {True, False}
    assert {o for *_, o in kinds} == {torch.float16, torch.bfloat16}
    assert any(len(v["a"].shape) == 3 and v["azp"] is not None for v in cases)


def test_scaled_mm_reference_by_hand() -> None:
    a = torch.tensor([[1, -2, 3], [4, 0, -1]], dtype=torch.int8)
    b = torch.tensor([[2, 0], [1, 1], [0, -3]], dtype=torch.int8)  # a @ b = [[0, -11], [8, 3]]
    sa, sb = torch.tensor([[0.5], [2.0]]), torch.tensor([1.0, 0.25])
    bias = torch.tensor([1.0, -1.0], dtype=torch.float16)
    out = cutlass_scaled_mm_reference(a, b.t().contiguous().t(), sa, sb, torch.float16, bias)
    assert out.dtype == torch.float16
    assert out.tolist() == [[1.0, -0.5 * 11 * 0.25 - 1.0], [17.0, 2 * 3 * 0.25 - 1.0]]


def test_scaled_mm_blockwise_reference_scales_each_group() -> None:
    m, k, n = 3, 256, 256
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(m, k, generator=gen).to(FP8)
    b = torch.randn(n, k, generator=gen).to(FP8).t()
    sa = torch.rand(k // 128, m, generator=gen).t()
    sb = torch.rand(n // 128, k // 128, generator=gen).t()
    out = cutlass_scaled_mm_reference(a, b, sa, sb, torch.float64)
    brute = torch.zeros(m, n, dtype=torch.float64)
    for i in range(m):
        for j in range(n):
            for g in range(k // 128):
                ks = slice(128 * g, 128 * g + 128)
                part = (a[i, ks].double() * b[ks, j].double()).sum()
                brute[i, j] += part * float(sa[i, g]) * float(sb[g, j // 128])
    torch.testing.assert_close(out, brute, rtol=1e-12, atol=1e-12)


def test_azp_reference_matches_dequantised_activations() -> None:
    """With azp_adj the column sums of b (times azp per tensor), the result is the GEMM of the
    dequantised activations s_a * (a - azp)."""
    gen = torch.Generator().manual_seed(1)
    a = torch.randint(-128, 128, (5, 32), generator=gen).to(torch.int8)
    b = torch.randint(-128, 128, (16, 32), generator=gen).to(torch.int8).t()
    colsum = b.to(torch.int32).sum(0)
    sa, sb = torch.rand(5, 1, generator=gen), torch.rand(16, generator=gen)
    azp = torch.randint(-20, 20, (5,), generator=gen).to(torch.int32)
    want = ((a.double() - azp.double()[:, None]) * sa.double()) @ (b.double() * sb.double())
    got = cutlass_scaled_mm_azp_reference(a, b, sa, sb, torch.float64, colsum, azp)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-9)
    z = torch.tensor(7, dtype=torch.int32)
    want = ((a.double() - 7.0) * sa.double()) @ (b.double() * sb.double())
    got = cutlass_scaled_mm_azp_reference(a, b, sa, sb, torch.float64, z * colsum)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-9)


def test_pack_scale_fp8_by_hand() -> None:
    s = torch.tensor([[1.0, 0.5], [60.0, 0.001953125]]).to(FP8)
    out = cutlass_pack_scale_fp8_reference(s)
    assert out.dtype == FP8 and out.shape == (32,)
    v = out.float().reshape(4, 8)
    assert v[0].tolist() == [-8, -7, -6, -5, -4, -3, -2, -1]
    assert v[1].tolist() == [-4, -3.5, -3, -2.5, -2, -1.5, -1, -0.5]
    # 60 * -8 = -480 saturates to -448; -420 and -300 round to -416 and -288 (spacing 32 above 256)
    assert v[2].tolist() == [-448, -416, -352, -288, -240, -176, -120, -60]
    # 2^-9 is the smallest subnormal: its multiples are exact subnormals
    assert v[3].tolist() == [-8 * 2**-9, -7 * 2**-9, -6 * 2**-9, -5 * 2**-9, -4 * 2**-9, -3 * 2**-9, -2 * 2**-9,
                             -(2**-9)]


def test_pack_grid_saturates_and_reaches_subnormals() -> None:
    saturated = subnormal = 0
    for i, case in enumerate(_small("vllm::cutlass_pack_scale_fp8")):
        s = materialize(case, i, "cpu")["scales"]
        saturated += int((s.float().abs() * 8 > 448).sum())
        subnormal += int(((s.float().abs() * 2 < 2**-6) & (s.float() != 0)).sum())
    assert saturated and subnormal


def _repack_model(b: torch.Tensor, n32: int) -> torch.Tensor:
    """allspark_repack.cu's rearrange_kn_weight_as_n32k16_order_ldg16_kernel, thread by thread:
    B [K, N] row-major to a [N32 / 4, 4K] result (zero-filled where the loads are guarded off)."""
    k, n = b.shape
    out = torch.zeros(n32 // 4, 4 * k, dtype=b.dtype)
    for bx in range((k + 63) // 64):
        for by in range((n + 127) // 128):
            for tid in range(128):
                lane, warp = tid % 32, tid // 32
                row_base = bx * 64 + warp * 16 + ((lane % 8) // 2) * 2
                col = by * 128 + (lane // 8) * 32 + (lane % 2) * 16
                frag = torch.zeros(4, 16, dtype=b.dtype)
                for i in range(4):
                    row = row_base + (i // 2) * 8 + (i % 2)
                    if row < k and col < n:
                        frag[i] = b[row, col:col + 16]
                reorder = torch.zeros(8, 8, dtype=b.dtype)
                for i in range(4):
                    for j in range(16):
                        reorder[j % 8, i + (j // 8) * 4] = frag[i, j]
                dst_row_base = by * 32 + (lane // 8) * 8
                dst_col = bx * 256 + warp * 64 + (lane % 8) * 8
                for i in range(8):
                    if dst_row_base < n32 // 4 and dst_col < 4 * k:
                        out[dst_row_base + i, dst_col:dst_col + 8] = reorder[i]
    return out


def _scale_repack_model(scale: torch.Tensor, n32: int) -> torch.Tensor:
    out = torch.zeros(n32, dtype=scale.dtype)
    n = scale.numel()
    for by in range((n + 127) // 128):
        for tid in range(128):
            lane, warp = tid % 32, tid // 32
            src, dst = by * 128 + tid, by * 128 + warp * 32 + (lane % 8) * 4 + lane // 8
            if dst < n32:
                out[dst] = scale[src] if src < n else 0
    return out


@pytest.mark.parametrize("k,n", [(64, 128), (80, 48), (16, 160)])
def test_n32k16_layout_matches_the_repack_kernel(k: int, n: int) -> None:
    n32 = (n + 31) // 32 * 32
    b = torch.arange(k * n, dtype=torch.int64).reshape(k, n)  # every element distinct
    packed = _repack_model(b, n32).reshape(-1)
    assert torch.equal(packed[n32k16_positions(k, n)], b)
    scale = torch.arange(n, dtype=torch.float64) + 1
    assert torch.equal(_scale_repack_model(scale, n32)[n32k16_param_positions(n)], scale)


def test_allspark_reference_dequantises_with_bias_128_and_zero_points() -> None:
    k, n = 32, 48
    n32 = 64
    gen = torch.Generator().manual_seed(3)
    w = torch.randint(0, 256, (k, n), generator=gen)
    q = torch.zeros(n32 * k, dtype=torch.uint8)
    q[n32k16_positions(k, n).reshape(-1)] = w.reshape(-1).to(torch.uint8)
    scale = torch.rand(n, generator=gen, dtype=torch.float64)
    zero = torch.randint(-4, 5, (n,), generator=gen).double()
    s32, z32 = torch.zeros(1, n32, dtype=torch.float64), torch.zeros(1, n32, dtype=torch.float64)
    s32[0, n32k16_param_positions(n)], z32[0, n32k16_param_positions(n)] = scale, zero
    a = torch.randn(3, k, generator=gen, dtype=torch.float64)
    want = a @ ((w.double() - 128 - zero) * scale)
    got = allspark_w8a16_gemm_reference(a, q.reshape(n32, k), s32, z32, n, -1, 108, 80, 1024, True, True)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    got = allspark_w8a16_gemm_reference(a, q.reshape(n32, k), s32, None, n, -1, 108, 80, 1024, False, True)
    torch.testing.assert_close(got, a @ ((w.double() - 128) * scale), rtol=1e-12, atol=1e-12)


def test_allspark_grid_draws_padding_zero_points_and_both_dtypes() -> None:
    cases = _small("vllm::allspark_w8a16_gemm")
    assert {v["a"].dtype for v in cases} == {torch.float16, torch.bfloat16}
    assert {v["has_zp"] for v in cases} == {True, False}
    assert all((v["b_qzeros"] is not None) == v["has_zp"] and v["group_size"] == -1 for v in cases)
    assert any(v["n"] % 32 for v in cases)  # b_qweight has padding rows
    assert all(v["n"] % 16 == 0 and v["a"].shape[1] % 16 == 0 for v in cases)
    perf = [c.sample.values for c in registry.get("vllm::allspark_w8a16_gemm").select_cases(sizes=("perf",))]
    assert {v["a"].shape[0] > v["CUBLAS_M_THRESHOLD"] for v in perf} == {True, False}
