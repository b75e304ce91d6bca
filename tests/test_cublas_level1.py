"""cuBLAS level 1 (issue 13): the complex contract, the references against brute-force loops over the
netlib reference BLAS (daxpy.f, dcopy.f, sscal.f, sdot.f, dasum.f, ccopy.f, zswap.f, cdotu.f,
zdotc.f), and the grids drawing the semantics that matter."""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import pytest
import torch

from kernelgenbench import api
from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas import complex as cplx
from kernelgenbench.suite.cublas import family, level1, level1_complex, library
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec
from kernelgenbench.verify.correctness import _reference
from kernelgenbench.verify.tolerance import compare
from kernelgenbench.verify.verdict import Status

NAN = float("nan")
REAL_IDS = ("cublasDaxpy_v2", "cublasDcopy_v2", "cublasSscal_v2", "cublasSdot_v2", "cublasDasum_v2")
COMPLEX_IDS = ("cublasCcopy_v2", "cublasZswap_v2", "cublasCdotu_v2", "cublasZdotc_v2")
IDS = REAL_IDS + COMPLEX_IDS
SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions" / "cublas"


def buf(n: int, seed: int) -> torch.Tensor:
    return torch.randn(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def pos(n: int, inc: int, k: int) -> int:
    """0-based storage index of logical element k (netlib: negative increments start at the end)."""
    return (0 if inc > 0 else (1 - n) * inc) + k * inc


def cval(b: torch.Tensor, p: int) -> complex:
    return complex(b[2 * p].item(), b[2 * p + 1].item())


def same(a: torch.Tensor, b: torch.Tensor) -> None:
    torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


def cases(name: str, size: str = "small") -> list[dict]:
    return [c.sample.values for c in registry.get(f"cublas::{name}").cases if c.size == size]


# ---- the complex contract ---------------------------------------------------------------------


def test_complex_buffers_are_interleaved_real_views():
    spec = cplx.complex_vector_spec(5, -3, "C")
    assert spec.shape == (2 * 13,) and spec.dtype == torch.float32
    assert cplx.complex_vector_spec(0, 2, "Z").shape == (0,)
    assert cplx.complex_matrix_spec(4, 7, "Z") == TensorSpec((2 * 28,), torch.float64)
    b = torch.arange(6, dtype=torch.float64)
    z = cplx.as_complex(b)
    assert z.dtype == torch.complex128 and z.tolist() == [complex(0, 1), complex(2, 3), complex(4, 5)]
    z[1] = complex(-1, -2)  # the view shares the real buffer's storage: writes go through
    assert b.tolist() == [0, 1, -1, -2, 4, 5]
    with pytest.raises(ValueError):
        cplx.as_complex(torch.zeros(5))


def test_complex_scalar_results_are_re_im_pairs():
    r = torch.full((2,), NAN, dtype=torch.float32)
    cplx.write_scalar(r, torch.tensor(complex(1.5, -2.0), dtype=torch.complex64))
    assert r.tolist() == [1.5, -2.0]
    r1 = torch.full((1,), NAN, dtype=torch.float64)
    cplx.write_scalar(r1, 0.0)
    assert r1.tolist() == [0.0]
    assert cplx.result_spec(torch.float32, is_complex=True) == OutputSpec((2,), torch.float32)


def test_complex_prompt_states_the_layout():
    doc = cplx.complex_pointer_doc("Z")
    for phrase in ("interleaved", "float64", "complex128", "2*k*inc", "result[0] = real part", "Python complex"):
        assert phrase in doc, phrase
    assert "DTYPE" not in doc and "REAL" not in doc


def test_bound_matmul_bounds_every_real_product():
    a, b = cplx.as_complex(buf(14, 1)), cplx.as_complex(buf(14, 2))
    bound = cplx.bound_matmul(torch.complex(a.real.abs(), a.imag.abs()), torch.complex(b.real.abs(), b.imag.abs()))
    re_terms = (a.real * b.real).abs() + (a.imag * b.imag).abs()
    im_terms = (a.real * b.imag).abs() + (a.imag * b.real).abs()
    assert math.isclose(bound.real.item(), re_terms.sum().item()) and math.isclose(bound.imag.item(),
                                                                                   im_terms.sum().item())
    plain = (a * b).sum()
    assert abs(plain.real) <= bound.real and abs(plain.imag) <= bound.imag


def test_complex_error_scale_comes_from_the_overload_scale():
    """On |inputs| the plain reference subtracts (re = sum |xr||yr| - |xi||yi|, near 0); the harness
    takes the overload's scale, which counts every product positive."""
    ov = registry.get("cublas::cublasCdotu_v2").overloads[0]
    assert ov.scale is not None
    n = 64
    vals = {"n": n, "x": buf(2 * n, 3).float(), "incx": 1, "y": buf(2 * n, 4).float(), "incy": 1,
            "result": torch.full((2,), NAN)}
    scale = _reference(ov, vals, absolute=True)[0]
    x, y = vals["x"].double().abs(), vals["y"].double().abs()
    want_re = (x[0::2] * y[0::2] + x[1::2] * y[1::2]).sum().item()
    assert math.isclose(scale[0].item(), want_re, rel_tol=1e-12)
    truth = _reference(ov, vals)[0]
    assert scale[0] >= truth[0].abs() and scale[1] >= truth[1].abs()


def test_tolerance_on_real_views_tells_dotu_from_dotc():
    ov = registry.get("cublas::cublasCdotu_v2").overloads[0]
    op = registry.get("cublas::cublasCdotu_v2")
    n = 200
    vals = {"n": n, "x": buf(2 * n, 5).float(), "incx": 1, "y": buf(2 * n, 6).float(), "incy": -1,
            "result": torch.full((2,), NAN)}
    truth = _reference(ov, vals)[0]
    scale = _reference(ov, vals, absolute=True)[0]
    native = torch.full((2,), NAN)
    ov.reference(n, vals["x"], 1, vals["y"], -1, native)
    assert compare(native, truth, native, op.tolerance, scale).ok
    conj = torch.full((2,), NAN)
    level1_complex.dot_reference(True)(n, vals["x"], 1, vals["y"], -1, conj)
    assert not compare(conj, truth, native, op.tolerance, scale).ok


# ---- references against brute-force loops -----------------------------------------------------

INCS = [(1, 1), (-1, 1), (2, -3), (-3, -2), (1, -1), (4, 4)]


@pytest.mark.parametrize("n", [0, 1, 7])
@pytest.mark.parametrize("incx,incy", INCS)
def test_real_references_match_loops(n, incx, incy):
    x, y = buf(family.vector_extent(n, incx), 1), buf(family.vector_extent(n, incy), 2)
    # axpy
    want = y.clone()
    for k in range(n):
        want[pos(n, incy, k)] += 1.5 * x[pos(n, incx, k)]
    got = y.clone()
    level1.axpy_reference(n, 1.5, x, incx, got, incy)
    same(got, want)
    # copy: y's unaddressed positions keep their NaN
    want = torch.full_like(y, NAN)
    for k in range(n):
        want[pos(n, incy, k)] = x[pos(n, incx, k)]
    got = torch.full_like(y, NAN)
    level1.copy_reference(n, x, incx, got, incy)
    same(got, want)
    # dot
    r = torch.full((1,), NAN, dtype=torch.float64)
    level1.dot_reference(n, x, incx, y, incy, r)
    assert math.isclose(r.item(), sum(x[pos(n, incx, k)].item() * y[pos(n, incy, k)].item() for k in range(n)),
                        abs_tol=1e-12)


@pytest.mark.parametrize("n,incx", [(0, 1), (1, 1), (7, 1), (7, 3), (5, -1), (5, -2)])
def test_scal_and_asum_match_loops(n, incx):
    x = buf(family.vector_extent(n, incx), 3)
    want = x.clone()
    if incx > 0:  # sscal.f and dasum.f return at once for incx <= 0
        for k in range(n):
            want[k * incx] *= -0.75
    got = x.clone()
    level1.scal_reference(n, -0.75, got, incx)
    same(got, want)
    r = torch.full((1,), NAN, dtype=torch.float64)
    level1.asum_reference(n, x, incx, r)
    assert math.isclose(r.item(), sum(abs(x[k * incx].item()) for k in range(n)) if incx > 0 else 0.0)


@pytest.mark.parametrize("n", [0, 1, 6])
@pytest.mark.parametrize("incx,incy", INCS)
def test_complex_references_match_loops(n, incx, incy):
    x, y = buf(2 * family.vector_extent(n, incx), 7), buf(2 * family.vector_extent(n, incy), 8)
    xs = [cval(x, pos(n, incx, k)) for k in range(n)]
    ys = [cval(y, pos(n, incy, k)) for k in range(n)]
    # copy
    got = torch.full_like(y, NAN)
    level1_complex.ccopy_reference(n, x, incx, got, incy)
    for k in range(n):
        assert cval(got, pos(n, incy, k)) == xs[k]
    assert int(got.isnan().sum()) == y.numel() - 2 * n
    # swap
    gx, gy = x.clone(), y.clone()
    level1_complex.swap_reference(n, gx, incx, gy, incy)
    assert [cval(gx, pos(n, incx, k)) for k in range(n)] == ys
    assert [cval(gy, pos(n, incy, k)) for k in range(n)] == xs
    if n:
        assert (gx != x).sum() > 0
    # dotu and dotc
    for conj in (False, True):
        r = torch.full((2,), NAN, dtype=torch.float64)
        level1_complex.dot_reference(conj)(n, x, incx, y, incy, r)
        want = sum(((a.conjugate() if conj else a) * b for a, b in zip(xs, ys)), complex(0, 0))
        assert abs(complex(r[0].item(), r[1].item()) - want) < 1e-12


def test_axpy_alpha_zero_and_swap_gaps_untouched():
    y = buf(5, 1)
    before = y.clone()
    level1.axpy_reference(5, 0.0, torch.full((5,), NAN, dtype=torch.float64), 1, y, 1)
    same(y, before)
    x, y = buf(2 * 7, 2), buf(2 * 4, 3)  # n = 4: x with incx = 2 skips 3 complex elements
    x0 = x.clone()
    level1_complex.swap_reference(4, x, 2, y, 1)
    same(cplx.as_complex(x)[1::2], cplx.as_complex(x0)[1::2])


# ---- the grids --------------------------------------------------------------------------------


def test_records_registered_with_their_work():
    for name in IDS:
        op = registry.get(f"cublas::{name}")
        assert op.source == "cublas" and op.family == "blas1" and op.baseline is library.baseline
        assert {c.size for c in op.cases} == {"small", "large", "perf"}
        assert op.work == ("data" if "copy" in name or "swap" in name else "compute")
        assert (SOLUTIONS / f"{name}.py").is_file()


@pytest.mark.parametrize("name", IDS)
def test_grids_draw_negative_increments_and_empty_vectors(name):
    small = cases(name)
    incs = [v[k] for v in small for k in ("incx", "incy") if k in v]
    assert any(i < 0 for i in incs) and any(i > 1 for i in incs) and any(i == 1 for i in incs)
    assert any(v["n"] == 0 for v in small) and any(v["n"] == 1 for v in small)
    assert 7 <= len(small) <= 25


def test_quick_returns_and_special_scalars_are_drawn():
    assert any(v["alpha"] == 0 for v in cases("cublasDaxpy_v2"))
    scal = cases("cublasSscal_v2")
    assert any(v["incx"] < 0 for v in scal) and any(v["alpha"] == 0 for v in scal)
    assert any(v["alpha"] == 1 for v in scal)
    assert any(v["incx"] < 0 for v in cases("cublasDasum_v2"))
    for name in ("cublasDcopy_v2", "cublasCcopy_v2"):
        assert any(isinstance(v["y"], OutputSpec) for v in cases(name)), name  # copy never reads y


@pytest.mark.parametrize("name", ("cublasSdot_v2", "cublasDasum_v2", "cublasCdotu_v2", "cublasZdotc_v2"))
def test_scalar_results_are_poisoned_device_tensors(name):
    op = registry.get(f"cublas::{name}")
    want = 2 if name in COMPLEX_IDS else 1
    assert op.overloads[0].writes == ("result",) and op.tolerance.abs_scale
    for c in op.cases:
        r = c.sample.values["result"]
        assert isinstance(r, OutputSpec) and r.shape == (want,)


@pytest.mark.parametrize("name", IDS)
def test_cases_hold_the_addressed_storage_and_are_interpreter_sized(name):
    op = registry.get(f"cublas::{name}")
    per = 2 if name in COMPLEX_IDS else 1
    real = {"S": torch.float32, "D": torch.float64, "C": torch.float32, "Z": torch.float64}[name[6]]
    for case in op.cases:
        v = case.sample.values
        for arg, inc in (("x", "incx"), ("y", "incy")):
            if arg in v:
                assert v[arg].dtype == real and v[arg].shape == (per * family.vector_extent(v["n"], v[inc]),)
        if case.size == "small":
            assert sum(math.prod(t.shape) for t in v.values() if isinstance(t, (TensorSpec, OutputSpec))) <= 20_000


@pytest.mark.parametrize("name", IDS)
def test_reference_writes_only_addressed_positions(name):
    op = registry.get(f"cublas::{name}")
    ov = op.overloads[0]
    per = 2 if name in COMPLEX_IDS else 1
    for i, case in enumerate(op.select_cases(sizes=("small",))):
        vals = materialize(case.sample.values, i, "cpu")
        before = {k: t.clone() for k, t in vals.items() if isinstance(t, torch.Tensor)}
        args, kwargs = ov.split(vals)
        ov.reference(*args, **kwargs)
        v = case.sample.values
        for out in ov.writes:
            if out == "result":
                assert not vals[out].isnan().any(), case.name
                continue
            inc = v["incy"] if out == "y" else v["incx"]
            quick = (name == "cublasSscal_v2" and inc <= 0) or (name == "cublasDaxpy_v2" and v["alpha"] == 0)
            live = v["n"] > 0 and not quick
            touched = torch.zeros(vals[out].numel(), dtype=torch.bool)
            for k in range(v["n"] if live else 0):
                p = pos(v["n"], inc, k)
                touched[per * p: per * p + per] = True
            same(vals[out][~touched], before[out][~touched])


# ---- the library binding ----------------------------------------------------------------------


@pytest.mark.parametrize("name", IDS)
def test_binding_has_the_candidates_signature(name):
    ov = registry.get(f"cublas::{name}").overloads[0]
    assert name in library.PROTOTYPES
    assert len(library.PROTOTYPES[name]) == 1 + len(ov.params)  # the handle, then the C arguments
    sig = inspect.signature(getattr(library.Cublas, name))
    assert list(sig.parameters)[1:] == [p.name for p in ov.params]
    op = registry.get(f"cublas::{name}")
    assert op.baseline("cpu", ov) is None and op.native("cpu", ov) is ov.reference


# ---- the whole chain on the interpreter -------------------------------------------------------


def test_an_unconjugated_zdotc_is_rejected(tmp_path):
    """The harness judges the interleaved real result: dotu where dotc is asked fails."""
    src = (SOLUTIONS / "cublasZdotc_v2.py").read_text()
    wrong = src.replace("acc_re += xr * yr + xi * yi", "acc_re += xr * yr - xi * yi").replace(
        "acc_im += xr * yi - xi * yr", "acc_im += xr * yi + xi * yr")
    assert wrong != src
    path = tmp_path / "cand.py"
    path.write_text(wrong)
    v = api.verify_file(path, "cublas::cublasZdotc_v2", device="cpu", seed=7, timeout_s=600, fail_fast=True,
                        public_only=True, copy_check=False)  # a solution changed on purpose
    assert v.status is Status.WRONG_RESULT, v.reason
