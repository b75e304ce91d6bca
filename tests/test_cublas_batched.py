"""cuBLAS batched routines through arrays of device pointers (issue 13): the pointer contract (copies
of a case point into their own pools, the judge catches writes through wrong pointers and changed
pointer arrays), the references against brute-force loops over sgemm.f / sgemv.f / dtrsm.f per entry, and the
grids drawing the semantics that matter."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import torch

from kernelgenbench import api
from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas.pointers import entries, layout
from kernelgenbench.suite.inputs import clone_values, materialize, pointees
from kernelgenbench.suite.spec import Joint, OutputSpec
from kernelgenbench.verify.correctness import _reference, case_inputs
from kernelgenbench.verify.verdict import Status

GEMM_IDS = ("cublasDgemmBatched", "cublasSgemmBatched_64", "cublasHgemmBatched")
GEMV_IDS = ("cublasSgemvBatched", "cublasDgemvBatched")
TRSM_IDS = ("cublasDtrsmBatched",)
COMPLEX_IDS = ("cublasZgemmBatched", "cublasZgemvBatched", "cublasCgemvBatched_64", "cublasZtrsmBatched")
SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions" / "cublas"


def _op(trans) -> int:
    return {"N": 0, "T": 1, "C": 2}[trans] if isinstance(trans, str) else trans


def _small(name: str) -> list[dict]:
    return [dict(c.sample.values) for c in registry.get(f"cublas::{name}").select_cases(sizes=("small",))]


def _drawn(values: dict, seed: int = 7) -> dict:
    return materialize(values, seed, "cpu")


def _offsets(t: torch.Tensor, pool: torch.Tensor) -> list[int]:
    return [(a - pool.data_ptr()) // pool.element_size() for a in t.tolist()]


def test_layout_repeats_gaps_and_order():
    offsets, length = layout(5, 4, 2, 3)
    assert offsets == (3, 10, 3, 10, 3) and length == 3 + 2 * 7
    assert layout(3, 4, 3, 0, reverse=True)[0] == (8, 4, 0)
    assert layout(0, 4, 0, 2) == ((), 2)
    assert layout(3, 5, 3, 1, align=8) == ((8, 16, 24), 30)  # 16-byte starts of fp16 matrices


def test_half_matrices_start_16_byte_aligned():
    """libcublas's Hgemm faults on a matrix at an odd fp16 offset: the pools never place one there."""
    for size in ("small", "large"):
        for case in registry.get("cublas::cublasHgemmBatched").select_cases(sizes=(size,)):
            values = case_inputs(case, 0, "cpu")
            for array, into in (("Aarray", "A_pool"), ("Barray", "B_pool"), ("Carray", "C_pool")):
                assert all(o % 8 == 0 for o in _offsets(values[array], values[into])), case.name


def test_pointer_arrays_address_their_pools_and_copies_point_into_the_copies():
    values = _drawn(_small("cublasSgemvBatched")[1])
    for array, into in (("Aarray", "A_pool"), ("xarray", "x_pool"), ("yarray", "y_pool")):
        assert values[array].dtype == torch.int64 and pointees(values[array])[0] == into
    copy = clone_values(values)
    for array, into in (("Aarray", "A_pool"), ("yarray", "y_pool")):
        assert copy[into].data_ptr() != values[into].data_ptr()
        assert _offsets(copy[array], copy[into]) == _offsets(values[array], values[into])
    # the float64 reference writes into its own copy, never into the candidate's pools
    before = values["y_pool"].clone()
    _reference(registry.get("cublas::cublasSgemvBatched").overloads[0], values)
    assert torch.equal(values["y_pool"], before)


def test_pools_are_not_passed():
    ov = registry.get("cublas::cublasDgemmBatched").overloads[0]
    values = _drawn(_small("cublasDgemmBatched")[0])
    args, kwargs = ov.split(values)
    assert len(args) == 14 and not kwargs and ov.writes == ("C_pool",)
    assert "pool" not in ov.signature


def _brute_gemm(s: dict, v: dict) -> torch.Tensor:
    """sgemm.f for every entry, element by element, on float64 copies of the pools."""
    A, B, C = (v[k].double().clone() for k in ("A_pool", "B_pool", "C_pool"))
    ta, tb, m, n, k = _op(s["transa"]), _op(s["transb"]), s["m"], s["n"], s["k"]
    lda, ldb, ldc, alpha, beta = s["lda"], s["ldb"], s["ldc"], s["alpha"], s["beta"]
    oa, ob, oc = (_offsets(v[k], v[p]) for k, p in (("Aarray", "A_pool"), ("Barray", "B_pool"),
                                                     ("Carray", "C_pool")))
    for b in range(s["batchCount"]):
        if m == 0 or n == 0 or ((alpha == 0 or k == 0) and beta == 1):
            continue
        for i in range(m):
            for j in range(n):
                acc = 0.0
                if alpha != 0:
                    for p in range(k):
                        a = A[oa[b] + (i + p * lda if ta == 0 else p + i * lda)]
                        bb = B[ob[b] + (p + j * ldb if tb == 0 else j + p * ldb)]
                        acc += float(a) * float(bb)
                old = 0.0 if beta == 0 else beta * float(C[oc[b] + i + j * ldc])
                C[oc[b] + i + j * ldc] = alpha * acc + old
    return C


def _brute_gemv(s: dict, v: dict) -> torch.Tensor:
    """sgemv.f for every entry, element by element (negative increments start at the far end)."""
    A, x, y = (v[k].double().clone() for k in ("A_pool", "x_pool", "y_pool"))
    t, m, n, lda = _op(s["trans"]), s["m"], s["n"], s["lda"]
    incx, incy, alpha, beta = s["incx"], s["incy"], s["alpha"], s["beta"]
    oa, ox, oy = (_offsets(v[k], v[p]) for k, p in (("Aarray", "A_pool"), ("xarray", "x_pool"),
                                                     ("yarray", "y_pool")))
    xlen, ylen = (n, m) if t == 0 else (m, n)

    def pos(length: int, inc: int, e: int) -> int:
        return (0 if inc > 0 else (1 - length) * inc) + e * inc

    for b in range(s["batchCount"]):
        if m == 0 or n == 0 or (alpha == 0 and beta == 1):
            continue
        for o in range(ylen):
            acc = 0.0
            if alpha != 0:
                for p in range(xlen):
                    a = A[oa[b] + (o + p * lda if t == 0 else p + o * lda)]
                    acc += float(a) * float(x[ox[b] + pos(xlen, incx, p)])
            at = oy[b] + pos(ylen, incy, o)
            y[at] = alpha * acc + (0.0 if beta == 0 else beta * float(y[at]))
    return y


def _brute_trsm(s: dict, v: dict, cplx: bool = False) -> torch.Tensor:
    """?trsm.f for every entry: substitution element by element, reading only the uplo triangle
    (complex: pointers address complex elements, op = C conjugates)."""
    A, B = (_cplx(v[k]) if cplx else v[k].double().tolist() for k in ("A_pool", "B_pool"))
    left, upper = s["side"] in (0, "L"), s["uplo"] in (1, "U")
    t, unit, m, n = _op(s["trans"]) != 0, s["diag"] in (1, "U"), s["m"], s["n"]
    conj = cplx and _op(s["trans"]) == 2
    lda, ldb, alpha = s["lda"], s["ldb"], s["alpha"]
    oa, ob = ([o // (2 if cplx else 1) for o in _offsets(v[a], v[p])] for a, p in (("Aarray", "A_pool"),
                                                                                   ("Barray", "B_pool")))
    k = m if left else n
    for e in range(s["batchCount"]):
        if m == 0 or n == 0:
            continue

        def a(i: int, j: int, e: int = e) -> float:  # op(A)[i, j], from the stored triangle only
            r, c = (j, i) if t else (i, j)
            if r == c and unit:
                return 1.0
            assert r == c or (r < c) == upper, "read outside the triangle"
            value = A[oa[e] + r + c * lda]
            return value.conjugate() if conj else value

        def at(i: int, j: int, e: int = e) -> int:
            return ob[e] + i + j * ldb

        if alpha == 0:
            for i in range(m):
                for j in range(n):
                    B[at(i, j)] = 0.0
            continue
        lower = upper == t  # op(A) lower triangular
        order = list(range(k)) if (lower if left else not lower) else list(range(k - 1, -1, -1))
        for j in range(n if left else m):
            for i in order:
                if left:  # sum_l op(A)[i, l] X[l, j] = alpha B[i, j]
                    known = [l_ for l_ in range(k) if (l_ < i if lower else l_ > i)]
                    acc = alpha * B[at(i, j)] - sum(a(i, l_) * B[at(l_, j)] for l_ in known)
                    B[at(i, j)] = acc / a(i, i)
                else:  # sum_l X[j, l] op(A)[l, i] = alpha B[j, i]
                    known = [l_ for l_ in range(k) if (l_ > i if lower else l_ < i)]
                    acc = alpha * B[at(j, i)] - sum(B[at(j, l_)] * a(l_, i) for l_ in known)
                    B[at(j, i)] = acc / a(i, i)
    if cplx:
        return torch.view_as_real(torch.tensor(B, dtype=torch.complex128)).flatten()
    return torch.tensor(B, dtype=torch.float64)


def _cplx(pool: torch.Tensor) -> list[complex]:
    flat = pool.double().tolist()
    return [complex(flat[2 * i], flat[2 * i + 1]) for i in range(len(flat) // 2)]


def _brute_zgemm(s: dict, v: dict) -> torch.Tensor:
    """zgemm.f for every entry on complex elements (pointers address complex elements)."""
    A, B, C = (_cplx(v[k]) for k in ("A_pool", "B_pool", "C_pool"))
    ta, tb, m, n, k = _op(s["transa"]), _op(s["transb"]), s["m"], s["n"], s["k"]
    lda, ldb, ldc, alpha, beta = s["lda"], s["ldb"], s["ldc"], s["alpha"], s["beta"]
    oa, ob, oc = ([o // 2 for o in _offsets(v[a], v[p])] for a, p in (("Aarray", "A_pool"), ("Barray", "B_pool"),
                                                                        ("Carray", "C_pool")))
    for e in range(s["batchCount"]):
        if m == 0 or n == 0 or ((alpha == 0 or k == 0) and beta == 1):
            continue
        for i in range(m):
            for j in range(n):
                acc = 0j
                for p in range(k if alpha != 0 else 0):
                    a = A[oa[e] + (i + p * lda if ta == 0 else p + i * lda)]
                    b = B[ob[e] + (p + j * ldb if tb == 0 else j + p * ldb)]
                    acc += (a.conjugate() if ta == 2 else a) * (b.conjugate() if tb == 2 else b)
                at = oc[e] + i + j * ldc
                C[at] = alpha * acc + (0 if beta == 0 else beta * C[at])
    return torch.view_as_real(torch.tensor(C, dtype=torch.complex128)).flatten()


def _brute_zgemv(s: dict, v: dict) -> torch.Tensor:
    """zgemv.f for every entry (conjugated A for op = C, negative increments from the far end)."""
    A, x, y = (_cplx(v[k]) for k in ("A_pool", "x_pool", "y_pool"))
    t, m, n, lda = _op(s["trans"]), s["m"], s["n"], s["lda"]
    incx, incy, alpha, beta = s["incx"], s["incy"], s["alpha"], s["beta"]
    oa, ox, oy = ([o // 2 for o in _offsets(v[a], v[p])] for a, p in (("Aarray", "A_pool"), ("xarray", "x_pool"),
                                                                        ("yarray", "y_pool")))
    xlen, ylen = (n, m) if t == 0 else (m, n)

    def pos(length: int, inc: int, e: int) -> int:
        return (0 if inc > 0 else (1 - length) * inc) + e * inc

    for e in range(s["batchCount"]):
        if m == 0 or n == 0 or (alpha == 0 and beta == 1):
            continue
        for o in range(ylen):
            acc = 0j
            for p in range(xlen if alpha != 0 else 0):
                a = A[oa[e] + (o + p * lda if t == 0 else p + o * lda)]
                acc += (a.conjugate() if t == 2 else a) * x[ox[e] + pos(xlen, incx, p)]
            at = oy[e] + pos(ylen, incy, o)
            y[at] = alpha * acc + (0 if beta == 0 else beta * y[at])
    return torch.view_as_real(torch.tensor(y, dtype=torch.complex128)).flatten()


@pytest.mark.parametrize("name,brute,out", [("cublasZgemmBatched", _brute_zgemm, "C_pool"),
                                            ("cublasZgemvBatched", _brute_zgemv, "y_pool"),
                                            ("cublasCgemvBatched_64", _brute_zgemv, "y_pool"),
                                            ("cublasZtrsmBatched", partial(_brute_trsm, cplx=True), "B_pool"),
                                            ("cublasSgemmBatched_64", _brute_gemm, "C_pool"),
                                            ("cublasSgemvBatched", _brute_gemv, "y_pool"),
                                            ("cublasDtrsmBatched", _brute_trsm, "B_pool")])
def test_references_match_brute_force(name, brute, out):
    ov = registry.get(f"cublas::{name}").overloads[0]
    for s in _small(name):
        if max(s.get("m", 0), s.get("n", 0), s.get("k", 0)) > 20:
            continue
        v = _drawn(s)
        got = _reference(ov, v)[0]
        want = brute(s, v)
        assert torch.allclose(got, want, rtol=1e-9, atol=1e-9, equal_nan=True), s


def test_reference_dereferences_the_addresses_it_is_given():
    v = _drawn(_small("cublasDgemvBatched")[2])
    got = entries(v["Aarray"], v["batchCount"], 3)
    pool = got.pool
    assert pool.data_ptr() == v["A_pool"].data_ptr()
    assert [pool.data_ptr() + o * pool.element_size() for o in got.offsets] == v["Aarray"].tolist()


@pytest.mark.parametrize("name", GEMM_IDS)
def test_gemm_grid_draws_the_semantics(name):
    rows = _small(name)
    for flag in ("transa", "transb"):
        assert {_op(r[flag]) for r in rows} == {0, 1, 2} and {type(r[flag]) for r in rows} == {int, str}
    assert any(isinstance(r["C_pool"], OutputSpec) and r["beta"] == 0 and r["alpha"] != 0 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] == 0 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] == 1 for r in rows)
    assert any(r["k"] == 0 for r in rows) and any(r["m"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)
    assert any(r["batchCount"] == 0 for r in rows)
    assert any(r["ldc"] > max(1, r["m"]) for r in rows) and any(r["lda"] > max(1, r["m"], r["k"]) for r in rows)
    arrays = [(r["Aarray"], r["Barray"], r["Carray"]) for r in rows]
    assert all(isinstance(a, Joint) for t in arrays for a in t)
    ds = [(r["Aarray"].what, r["Barray"].what) for r in rows]
    assert any("1 distinct" in a or "1 distinct" in b for a, b in ds)  # one matrix for every entry
    assert any("gap 0" not in r["Carray"].what for r in rows) and any("reversed" in r["Carray"].what for r in rows)
    assert all(f"{r['batchCount']} distinct" in r["Carray"].what for r in rows)  # outputs never repeat


@pytest.mark.parametrize("name", GEMV_IDS)
def test_gemv_grid_draws_the_semantics(name):
    rows = _small(name)
    assert {_op(r["trans"]) for r in rows} == {0, 1, 2} and {type(r["trans"]) for r in rows} == {int, str}
    assert any(r["incx"] < 0 for r in rows) and any(r["incy"] < 0 for r in rows)
    assert any(abs(r["incx"]) > 1 for r in rows) and any(abs(r["incy"]) > 1 for r in rows)
    assert any(isinstance(r["y_pool"], OutputSpec) and r["beta"] == 0 and r["alpha"] != 0 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] == 1 for r in rows) and any(r["alpha"] == 0 and r["beta"] == 0
                                                                         for r in rows)
    assert any(r["m"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)
    assert any(r["batchCount"] == 0 for r in rows) and any(r["lda"] > max(1, r["m"]) for r in rows)
    assert any("(1 distinct" in r["Aarray"].what for r in rows)
    assert any("reversed" in r["yarray"].what for r in rows) and any("gap 0" not in r["yarray"].what for r in rows)


@pytest.mark.parametrize("name", ["cublasDtrsmBatched", "cublasZtrsmBatched"])
def test_trsm_grid_draws_the_semantics(name):
    rows = _small(name)
    for flag, letters in (("side", "LR"), ("uplo", "LU"), ("trans", "NTC"), ("diag", "NU")):
        codes = {letters.index(r[flag]) if isinstance(r[flag], str) else r[flag] for r in rows}
        assert codes == set(range(len(letters))) and {type(r[flag]) for r in rows} == {int, str}, flag
    assert any(r["alpha"] == 0 for r in rows)  # with a finite B: libcublas reads B there (see the record)
    assert any(r["m"] == 0 for r in rows) and any(r["n"] == 0 for r in rows) and any(r["batchCount"] == 0
                                                                                  for r in rows)
    assert any(r["lda"] > max(1, r["m"] if r["side"] in (0, "L") else r["n"]) for r in rows)
    assert any(r["ldb"] > max(1, r["m"]) for r in rows) and any(r["alpha"] not in (0.0, 1.0) for r in rows)
    assert any("(1 distinct" in r["Aarray"].what for r in rows)


def test_trsm_pool_is_nan_outside_the_read_triangle_and_well_conditioned():
    for s in _small("cublasDtrsmBatched"):
        if not s["m"] or not s["n"] or not s["batchCount"]:
            continue
        v = _drawn(s)
        k = s["m"] if s["side"] in (0, "L") else s["n"]
        upper, unit = s["uplo"] in (1, "U"), s["diag"] in (1, "U")
        for o in set(_offsets(v["Aarray"], v["A_pool"])):
            mat = v["A_pool"].as_strided((k, k), (1, s["lda"]), o).double()
            read = torch.ones(k, k, dtype=torch.bool).triu(1 if unit else 0)
            read = read if upper else read.t()
            assert not mat[read].isnan().any() and mat[~read].isnan().all()
            tri = torch.where(read, mat, 0.0) + (torch.eye(k, dtype=torch.float64) if unit else 0)
            assert torch.linalg.cond(tri) < 10


@pytest.mark.parametrize("name", COMPLEX_IDS)
def test_complex_grids_draw_conjugation_and_complex_scalars(name):
    rows = _small(name)
    flags = ("transa", "transb") if "gemm" in name else ("trans",)
    if "trsm" in name:
        assert all(isinstance(r["alpha"], complex) for r in rows) and any(r["alpha"].imag for r in rows)
        assert {_op(r["trans"]) for r in rows} == {0, 1, 2}
        return
    for flag in flags:
        assert {_op(r[flag]) for r in rows} == {0, 1, 2}
    assert all(isinstance(r["alpha"], complex) and isinstance(r["beta"], complex) for r in rows)
    assert any(r["alpha"].imag != 0 for r in rows) and any(r["beta"].imag != 0 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] == 1 for r in rows)
    out = "C_pool" if "gemm" in name else "y_pool"
    assert any(isinstance(r[out], OutputSpec) and r["beta"] == 0 for r in rows)


def test_every_record_has_a_solution_and_a_binding():
    from kernelgenbench.suite.cublas import library

    for name in GEMM_IDS + GEMV_IDS + TRSM_IDS + COMPLEX_IDS:
        assert (SOLUTIONS / f"{name}.py").exists()
        assert name in library.PROTOTYPES and callable(getattr(library.Cublas, name))


CHEATS = {
    # right values, plus a zero between two addressed elements of y (incy > 1): untouched storage
    "a write between addressed elements": (
        "    tl.store(y_ptr + y_idx, out, mask=omask)",
        "    tl.store(y_ptr + y_idx, out, mask=omask)\n"
        "    tl.store(y_ptr + y_idx + 1, 0.0 * out, mask=omask & (outs < n_out - 1) & (incy > 1))"),
    # right values, then xarray overwritten: an input the routine only reads
    "a changed pointer array": (
        "                               ALPHA_ZERO=alpha == 0, BETA_ZERO=beta == 0)",
        "                               ALPHA_ZERO=alpha == 0, BETA_ZERO=beta == 0)\n    xarray.copy_(yarray)"),
}


@pytest.mark.parametrize("what", sorted(CHEATS))
def test_judge_catches_pointer_cheats(what, tmp_path):
    old, new = CHEATS[what]
    src = (SOLUTIONS / "cublasSgemvBatched.py").read_text()
    assert old in src
    path = tmp_path / "cheat.py"
    path.write_text(src.replace(old, new))
    v = api.verify_file(path, "cublas::cublasSgemvBatched", device="cpu", seed=2026, fail_fast=True,
                        copy_check=False)  # a solution changed on purpose
    assert v.status is Status.WRONG_RESULT, (v.status, v.reason)
