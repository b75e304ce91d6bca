"""cuBLAS complex symmetric routines (issue 13): Csymv_v2, Csymm_v2 and CsyrkEx. The references
against brute-force loops over LAPACK's csymv.f and BLAS's csymm.f / csyrk.f (symmetric: the mirror
of a stored element is NOT conjugated), the unread parts (NaN outside A's triangle, C's other
triangle), the error scale, and the grids drawing the semantics that matter."""

from __future__ import annotations

import itertools

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas import sym_complex as sc
from kernelgenbench.suite.cublas.library import op_code, vector_extent
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import Joint, OutputSpec
from kernelgenbench.verify.correctness import _reference

from .test_cublas_complex23 import buf, get, pos, put, same

NAN = float("nan")
IDS = ("cublasCsymv_v2", "cublasCsymm_v2", "cublasCsyrkEx")


def cases(name: str, size: str = "small") -> list[dict]:
    return [c.sample.values for c in registry.get(f"cublas::{name}").cases if c.size == size]


def upper(uplo) -> bool:
    return sc.fill_code(uplo) == 1


def left(side) -> bool:
    return sc.side_code(side) == 0


def stored(uplo, i: int, j: int) -> bool:
    return i <= j if upper(uplo) else i >= j


def sym_elem(A: torch.Tensor, uplo, ld: int, i: int, j: int) -> complex:
    """Element (i, j) of the symmetric matrix: read from the stored triangle, mirrored unconjugated."""
    return get(A, i + j * ld) if stored(uplo, i, j) else get(A, j + i * ld)


def nan_triangle(order: int, ld: int, uplo, seed: int) -> torch.Tensor:
    """A matrix buffer with values in the uplo triangle only, NaN elsewhere (padding included)."""
    A = torch.full((2 * ld * order,), NAN, dtype=torch.float64)
    vals = buf(2 * ld * order, seed)
    for i, j in itertools.product(range(order), range(order)):
        if stored(uplo, i, j):
            put(A, i + j * ld, get(vals, i + j * ld))
    return A


# ---- references against brute-force loops -----------------------------------------------------


@pytest.mark.parametrize("uplo", [0, 1, "L", "U"])
@pytest.mark.parametrize("n,pad,incx,incy", [(4, 0, 1, 1), (5, 2, -2, 1), (3, 1, 1, -3), (0, 0, 1, 1)])
@pytest.mark.parametrize("alpha,beta", [(1.5 - 0.5j, 0.25 + 1j), (2 + 1j, 0j), (0j, -1 + 0.5j), (0j, 1 + 0j)])
def test_symv_matches_loop_without_reading_the_other_triangle(uplo, n, pad, incx, incy, alpha, beta):
    lda = max(1, n) + pad
    A, x = nan_triangle(n, lda, uplo, 1), buf(2 * vector_extent(n, incx), 2)
    y0 = buf(2 * vector_extent(n, incy), 3)
    if beta == 0:
        y0 = torch.full_like(y0, NAN)  # beta == 0: y is not read
    want = y0.clone()
    if n and not (alpha == 0 and beta == 1):
        for i in range(n):
            acc = sum(sym_elem(A, uplo, lda, i, j) * get(x, pos(n, incx, j)) for j in range(n))
            p = pos(n, incy, i)
            put(want, p, alpha * acc + (beta * get(want, p) if beta != 0 else 0))
    got = y0.clone()
    sc.SYMV.reference(uplo, n, alpha, A, lda, x, incx, beta, got, incy)
    same(got, want)
    assert all(get(got, pos(n, incy, i)) == get(got, pos(n, incy, i)) for i in range(n))  # NaN never read


@pytest.mark.parametrize("side,uplo", [(0, 0), (0, 1), (1, 0), (1, 1), ("L", "U"), ("R", "L")])
@pytest.mark.parametrize("m,n,pads", [(3, 4, (0, 0, 0)), (4, 2, (2, 1, 3)), (0, 3, (0, 0, 0)), (3, 0, (1, 0, 0))])
@pytest.mark.parametrize("alpha,beta", [(1.5 - 0.5j, 0.25 + 1j), (2 + 1j, 0j), (0j, -1 + 0.5j), (0j, 1 + 0j)])
def test_symm_matches_loop_without_reading_the_other_triangle(side, uplo, m, n, pads, alpha, beta):
    order = m if left(side) else n
    lda, ldb, ldc = max(1, order) + pads[0], max(1, m) + pads[1], max(1, m) + pads[2]
    A, B = nan_triangle(order, lda, uplo, 4), buf(2 * ldb * n, 5)
    C0 = buf(2 * ldc * n, 6)
    if beta == 0:
        C0 = torch.full_like(C0, NAN)
    want = C0.clone()
    if m and n and not (alpha == 0 and beta == 1):
        for i, j in itertools.product(range(m), range(n)):
            if left(side):
                acc = sum(sym_elem(A, uplo, lda, i, p) * get(B, p + j * ldb) for p in range(m))
            else:
                acc = sum(get(B, i + p * ldb) * sym_elem(A, uplo, lda, p, j) for p in range(n))
            q = i + j * ldc
            put(want, q, alpha * acc + (beta * get(want, q) if beta != 0 else 0))
    got = C0.clone()
    sc.SYMM.reference(side, uplo, m, n, alpha, A, lda, B, ldb, beta, got, ldc)
    same(got, want)


@pytest.mark.parametrize("atype", [sc.CUDA_C_32F, sc.CUDA_C_8I])
@pytest.mark.parametrize("uplo", [0, 1, "L", "U"])
@pytest.mark.parametrize("trans,k", [(0, 3), (1, 4), ("T", 2), ("N", 0)])
@pytest.mark.parametrize("alpha,beta", [(1.5 - 0.5j, 0.25 + 1j), (2 + 1j, 0j), (0j, -1 + 0.5j), (0j, 1 + 0j)])
def test_syrk_ex_matches_loop_and_keeps_the_other_triangle(atype, uplo, trans, k, alpha, beta):
    n, pad = 5, 2
    t = op_code(trans) != 0
    lda, ldc = (k if t else n) + 1, n + pad
    A = buf(2 * lda * (n if t else k), 7)
    if atype == sc.CUDA_C_8I:
        A = (A * 8).round().clamp(-16, 15).to(torch.int8)
    C0 = buf(2 * ldc * n, 8)
    if beta == 0:  # the triangle is not read; the rest keeps its NaN
        C0 = torch.full_like(C0, NAN)
    Ad = A.double()

    def op_a(i: int, p: int) -> complex:
        return get(Ad, p + i * lda) if t else get(Ad, i + p * lda)

    want = C0.clone()
    if not ((alpha == 0 or k == 0) and beta == 1):
        for i, j in itertools.product(range(n), range(n)):
            if stored(uplo, i, j):
                acc = sum(op_a(i, p) * op_a(j, p) for p in range(k))
                q = i + j * ldc
                put(want, q, alpha * acc + (beta * get(want, q) if beta != 0 else 0))
    got = C0.clone()
    sc.SYRK_EX.reference(uplo, trans, n, k, alpha, A, atype, lda, beta, got, sc.CUDA_C_32F, ldc)
    same(got, want)


def test_symmetric_is_not_hermitian():
    """A Hermitian reading of the stored triangle (conjugated mirror) gives another y."""
    n = 4
    A, x = nan_triangle(n, n, "L", 1), buf(2 * n, 2)
    herm = A.clone()
    for i, j in itertools.product(range(n), range(n)):
        if i < j:
            put(herm, i + j * n, get(A, j + i * n).conjugate())
        elif i > j:
            put(herm, i + j * n, get(A, i + j * n))
    y, y_h = torch.zeros(2 * n, dtype=torch.float64), torch.zeros(2 * n, dtype=torch.float64)
    sc.SYMV.reference("L", n, 1 + 0j, A, n, x, 1, 0j, y, 1)
    sc.SYMV.reference("U", n, 1 + 0j, torch.nan_to_num(herm), n, x, 1, 0j, y_h, 1)
    assert not torch.allclose(y, y_h)


def test_syrk_ex_rejects_conjugate_trans_and_unlisted_types():
    A, C = buf(2 * 9, 1), buf(2 * 9, 2)
    with pytest.raises(ValueError):
        sc.SYRK_EX.reference(0, "C", 3, 3, 1 + 0j, A, sc.CUDA_C_32F, 3, 0j, C, sc.CUDA_C_32F, 3)
    with pytest.raises(ValueError):
        sc.SYRK_EX.reference(0, 0, 3, 3, 1 + 0j, A, sc.CUDA_C_32F, 3, 0j, C, 5, 3)


# ---- the error scale --------------------------------------------------------------------------


@pytest.mark.parametrize("name", IDS)
def test_error_scale_bounds_the_truth(name):
    """On |inputs| the plain reference cancels; the overload's scale counts every product positive."""
    op = registry.get(f"cublas::{name}")
    ov = op.overloads[0]
    assert op.tolerance.abs_scale and ov.scale is not None
    for i, case in enumerate(op.select_cases(sizes=("small",))):
        vals = materialize(case.sample.values, i, "cpu")
        truth = _reference(ov, vals)[0]
        scale = _reference(ov, vals, absolute=True)[0]
        finite = truth.isfinite()
        assert torch.equal(finite, scale.isfinite())
        assert bool((scale[finite] >= truth[finite].abs() * (1 - 1e-12)).all()), case.name


# ---- the grids --------------------------------------------------------------------------------


def both_forms(rows: list[dict], key: str, codes: set[int], code) -> None:
    assert {code(r[key]) for r in rows} == codes, key
    assert any(isinstance(r[key], str) for r in rows) and any(isinstance(r[key], int) for r in rows), key


@pytest.mark.parametrize("name", IDS)
def test_grids_draw_every_flag_quick_return_and_poison(name):
    rows = cases(name)
    both_forms(rows, "uplo", {0, 1}, sc.fill_code)
    out = "y" if name == "cublasCsymv_v2" else "C"
    assert any(r["beta"] == 0 and isinstance(r[out], OutputSpec) for r in rows)  # must not be read
    assert any(r["alpha"] == 0 and r["beta"] == 1 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] != 1 for r in rows)
    assert any(r["alpha"].imag != 0 for r in rows) and any(r["beta"].imag != 0 for r in rows)
    if name == "cublasCsymv_v2":
        assert any(r["n"] == 0 for r in rows)
        assert any(r["incx"] < 0 for r in rows) and any(r["incy"] < 0 for r in rows)
        assert any(r["lda"] > max(1, r["n"]) for r in rows)
    if name == "cublasCsymm_v2":
        both_forms(rows, "side", {0, 1}, sc.side_code)
        assert any(r["m"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)
        assert any(r["lda"] > max(1, r["m"] if left(r["side"]) else r["n"]) for r in rows)
        assert any(r["ldb"] > max(1, r["m"]) for r in rows) and any(r["ldc"] > max(1, r["m"]) for r in rows)
    if name != "cublasCsyrkEx":
        nan_a = [r for r in rows if isinstance(r["A"], Joint)]
        assert {upper(r["uplo"]) for r in nan_a} == {False, True}  # NaN outside each triangle
        if name == "cublasCsymm_v2":
            assert {left(r["side"]) for r in nan_a} == {False, True}
        assert any(not isinstance(r["A"], Joint) for r in rows)


def test_syrk_ex_grid_draws_both_type_pairs_and_transposes():
    rows = cases("cublasCsyrkEx")
    both_forms(rows, "trans", {0, 1}, op_code)  # N and T only: csyrk has no conjugate form
    assert {(r["Atype"], r["A"].dtype) for r in rows} == {(sc.CUDA_C_32F, torch.float32),
                                                          (sc.CUDA_C_8I, torch.int8)}
    assert all(r["Ctype"] == sc.CUDA_C_32F and r["C"].dtype == torch.float32 for r in rows)
    for atype in (sc.CUDA_C_32F, sc.CUDA_C_8I):
        assert {op_code(r["trans"]) for r in rows if r["Atype"] == atype} == {0, 1}
    assert any(r["k"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)
    assert any(r["lda"] > max(1, r["k"] if op_code(r["trans"]) else r["n"]) for r in rows)
    assert any(r["ldc"] > max(1, r["n"]) for r in rows)
    perf = cases("cublasCsyrkEx", "perf")
    assert {r["Atype"] for r in perf} == {sc.CUDA_C_32F, sc.CUDA_C_8I}


def test_nan_triangle_draw_matches_its_uplo():
    for up in (False, True):
        A = sc._triangle_draw(5, 7, up, torch.Generator().manual_seed(3))
        for i, j in itertools.product(range(7), range(5)):
            finite = i < 5 and (i <= j if up else i >= j)
            assert bool(A[2 * (i + j * 7)].isfinite()) == finite


def written_positions(name: str, v: dict) -> list[int]:
    """Complex elements of the output a call may write, from BLAS rules alone."""
    if name == "cublasCsymv_v2":
        if not v["n"] or (v["alpha"] == 0 and v["beta"] == 1):
            return []
        return [pos(v["n"], v["incy"], i) for i in range(v["n"])]
    if name == "cublasCsymm_v2":
        if not v["m"] or not v["n"] or (v["alpha"] == 0 and v["beta"] == 1):
            return []
        return [i + j * v["ldc"] for j in range(v["n"]) for i in range(v["m"])]
    if (v["alpha"] == 0 or v["k"] == 0) and v["beta"] == 1:
        return []
    return [i + j * v["ldc"] for j in range(v["n"]) for i in range(v["n"]) if stored(v["uplo"], i, j)]


@pytest.mark.parametrize("name", IDS)
def test_small_cases_are_interpreter_sized_and_references_keep_gaps(name):
    op = registry.get(f"cublas::{name}")
    ov = op.overloads[0]
    out = ov.writes[0]
    for i, case in enumerate(op.select_cases(sizes=("small",))):
        assert sum(v.shape[0] for v in case.sample.values.values() if hasattr(v, "shape")) <= 20_000, case.name
        vals = materialize(case.sample.values, i, "cpu")
        before = vals[out].clone()
        args, kwargs = ov.split(vals)
        ov.reference(*args, **kwargs)
        touched = torch.zeros(before.numel() // 2, dtype=torch.bool)
        touched[written_positions(name, case.sample.values)] = True
        touched = touched.repeat_interleave(2)
        same(vals[out][~touched], before[~touched])
        assert not vals[out][touched].isnan().any(), case.name
