"""The vLLM hadacore_transform record: the grids draw what matters (every power of two up to 2^15,
row counts that do and do not fill vLLM's 256-element chunks, in place and not, non-contiguous
copies, fp16 and bf16), and the reference is the orthonormal Sylvester transform."""

from __future__ import annotations

import math

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.vllm.transform import MAX_HADAMARD, hadacore_transform_reference, sylvester

OP = "vllm::hadacore_transform"


def _values(size: str) -> list[dict]:
    return [c.sample.values for c in registry.get(OP).select_cases(sizes=(size,))]


def test_registered_with_every_tier_and_x_judged() -> None:
    op = registry.get(OP)
    (ov,) = op.overloads
    assert op.source == "vllm" and op.family == "transform" and op.work == "compute"
    assert ov.func_name == "hadacore_transform" and op.baseline is None
    assert ov.writes == ("x",), "x is judged: transformed with inplace, unchanged without"
    for size in ("small", "large", "perf"):
        assert op.select_cases(sizes=(size,)), size


def test_small_grid_draws_the_semantics() -> None:
    small = _values("small")
    sizes = {v["x"].shape[-1] for v in small}
    assert sizes == {1 << k for k in range(1, 16)} - {1 << 14}, "every power of two but 2^14 (large tier)"
    assert {v["x"].dtype for v in small} == {torch.float16, torch.bfloat16}
    assert {v["inplace"] for v in small} == {True, False}
    assert any(len(v["x"].shape) == 3 for v in small)
    numels = [math.prod(v["x"].shape) for v in small]
    assert any(k % 256 for k in numels) and any(k % 256 == 0 for k in numels), "partial and whole chunks"
    assert {v["x"].layout for v in small} == {"contiguous", "transposed", "strided"}
    for v in small + _values("large") + _values("perf"):
        x = v["x"]
        n = x.shape[-1]
        assert 2 <= n <= MAX_HADAMARD and n & (n - 1) == 0 and x.dtype in (torch.float16, torch.bfloat16)
        assert math.prod(x.shape) > 0, "vLLM launches an empty grid on empty x"
        if v["inplace"]:  # vLLM writes x itself only when it is packed in whole chunks
            assert x.layout == "contiguous" and math.prod(x.shape) % 256 == 0


def test_perf_is_bf16_rotations_in_place() -> None:
    perf = _values("perf")
    assert all(v["x"].dtype == torch.bfloat16 and v["inplace"] for v in perf)
    assert {128, 4096, 8192} <= {v["x"].shape[-1] for v in perf}


def test_sylvester_is_the_natural_order_recursion() -> None:
    h2 = torch.tensor([[1.0, 1.0], [1.0, -1.0]], dtype=torch.float64)
    h8 = torch.kron(h2, torch.kron(h2, h2))
    assert torch.equal(sylvester(8), h8)
    h = sylvester(64)
    assert torch.equal(h @ h, 64 * torch.eye(64, dtype=torch.float64))


def test_reference_is_the_scaled_dense_transform() -> None:
    gen = torch.Generator().manual_seed(0)
    for shape in ((3, 2), (2, 5, 16), (4, 256)):
        x = torch.randn(shape, generator=gen, dtype=torch.float64)
        n = shape[-1]
        want = x @ sylvester(n) / math.sqrt(n)
        got = hadacore_transform_reference(x.clone(), False)
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
        assert torch.allclose(hadacore_transform_reference(got, False), x), "orthonormal and symmetric"


def test_reference_inplace_writes_x_and_copy_leaves_it() -> None:
    x = torch.eye(16, dtype=torch.float64)
    kept = x.clone()
    y = hadacore_transform_reference(x, False)
    assert torch.equal(x, kept) and y.data_ptr() != x.data_ptr()
    torch.testing.assert_close(y, sylvester(16) / 4)  # rows of the identity give the matrix (vLLM's test)
    z = hadacore_transform_reference(x, True)
    assert z is x and torch.equal(x, y)
    bf = torch.eye(8, dtype=torch.bfloat16)
    assert hadacore_transform_reference(bf, True).dtype == torch.bfloat16
    torch.testing.assert_close(bf.double(), sylvester(8) / math.sqrt(8), atol=4e-3, rtol=0)
