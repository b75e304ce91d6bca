"""The vLLM records: registered, well-formed cases, and references that match hand-written formulas."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec

IDS = ("vllm::rms_norm", "vllm::fused_add_rms_norm", "vllm::rotary_embedding")


@pytest.mark.parametrize("op_id", IDS)
def test_registered_with_cases_in_every_tier(op_id: str) -> None:
    op = registry.get(op_id)
    (ov,) = op.overloads
    assert op.source == "vllm" and ov.func_name == op.name and op.baseline is None
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size
    for case in op.cases:
        assert list(case.sample.values) == [p.name for p in ov.params]
        if case.size == "small":
            numel = sum(math.prod(v.shape) for v in case.sample.values.values()
                        if isinstance(v, (TensorSpec, OutputSpec)))
            assert numel <= 20_000, case.name


def _rms_rows(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    rows = x.reshape(-1, x.shape[-1]).tolist()
    out = [[v / math.sqrt(sum(u * u for u in r) / len(r) + eps) * wi for v, wi in zip(r, w.tolist())]
           for r in rows]
    return torch.tensor(out, dtype=torch.float64).reshape(x.shape)


def test_rms_norm_reference_matches_formula_on_strided_input() -> None:
    ov = registry.get("vllm::rms_norm").overloads[0]
    values = {"out": OutputSpec((5, 33), torch.float64), "input": TensorSpec((5, 33), torch.float64, "strided"),
              "weight": TensorSpec((33,), torch.float64, dist="uniform", low=0.5, high=1.5), "epsilon": 1e-5}
    v = materialize(values, 0, "cpu")
    ov.reference(v["out"], v["input"], v["weight"], v["epsilon"])
    torch.testing.assert_close(v["out"], _rms_rows(v["input"], v["weight"], 1e-5), rtol=1e-12, atol=1e-12)


def test_fused_add_rms_norm_reference_writes_both() -> None:
    ov = registry.get("vllm::fused_add_rms_norm").overloads[0]
    x = torch.randn(7, 65, dtype=torch.float64)
    r = torch.randn(7, 65, dtype=torch.float64)
    w = torch.rand(65, dtype=torch.float64) + 0.5
    total = x + r
    ov.reference(x, r, w, 1e-6)
    torch.testing.assert_close(r, total, rtol=0, atol=0)
    torch.testing.assert_close(x, _rms_rows(total, w, 1e-6), rtol=1e-12, atol=1e-12)


def test_fused_add_rms_norm_rounds_the_sum_like_vllm() -> None:
    """vLLM stores input + residual in the working dtype and normalises that rounded sum."""
    ov = registry.get("vllm::fused_add_rms_norm").overloads[0]
    x = torch.randn(3, 64).half()
    r = torch.randn(3, 64).half()
    w = torch.ones(64).half()
    z = x + r
    ov.reference(x, r, w, 1e-6)
    assert torch.equal(r, z)
    expected = (z.float() * torch.rsqrt(z.float().square().mean(-1, keepdim=True) + 1e-6)).half()
    assert torch.equal(x, expected)


def _rope_one(head: list[float], cos: list[float], sin: list[float], neox: bool) -> list[float]:
    out = list(head)
    half = len(cos)
    for j in range(half):
        a, b = (j, j + half) if neox else (2 * j, 2 * j + 1)
        out[a] = head[a] * cos[j] - head[b] * sin[j]
        out[b] = head[b] * cos[j] + head[a] * sin[j]
    return out


@pytest.mark.parametrize("neox", [True, False])
@pytest.mark.parametrize("split", [True, False])
def test_rotary_reference_matches_formula(neox: bool, split: bool) -> None:
    ov = registry.get("vllm::rotary_embedding").overloads[0]
    head_size, rot_dim, heads, kv_heads = 12, 8, 3, 1
    positions = torch.randint(0, 10, (2, 3))
    shape_q = (2, 3, heads, head_size) if split else (2, 3, heads * head_size)
    shape_k = (2, 3, kv_heads, head_size) if split else (2, 3, kv_heads * head_size)
    q = torch.randn(shape_q, dtype=torch.float64)
    k = torch.randn(shape_k, dtype=torch.float64)
    cache = torch.rand(10, rot_dim, dtype=torch.float64) * 2 - 1
    q0, k0 = q.clone(), k.clone()
    ov.reference(positions, q, k, head_size, cache, neox)
    for t_new, t_old in ((q, q0), (k, k0)):
        old = t_old.reshape(6, -1, head_size)
        new = t_new.reshape(6, -1, head_size)
        for t, p in enumerate(positions.reshape(-1).tolist()):
            cos, sin = cache[p, : rot_dim // 2].tolist(), cache[p, rot_dim // 2:].tolist()
            for h in range(old.shape[1]):
                rot = _rope_one(old[t, h, :rot_dim].tolist(), cos, sin, neox)
                expected = torch.tensor(rot + old[t, h, rot_dim:].tolist(), dtype=torch.float64)
                torch.testing.assert_close(new[t, h], expected, rtol=1e-12, atol=1e-12)


def test_rotary_reference_accepts_no_key() -> None:
    ov = registry.get("vllm::rotary_embedding").overloads[0]
    q = torch.randn(4, 2 * 16)
    before = q.clone()
    ov.reference(torch.arange(4), q, None, 16, torch.rand(8, 16), True)
    assert not torch.equal(q, before)
