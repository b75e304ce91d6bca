"""cuBLAS real level 2 (issue 13): the references against brute-force loops over the netlib
reference BLAS (sger.f, dsyr2.f, strsv.f, dsbmv.f, stbmv.f, dgemv.f per batch), and the grids
drawing the semantics that matter (every flag, negative increments, quick returns, ld > minimum,
poisoned y, NaN in unreferenced storage, broadcast and gapped batch strides)."""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas import level2_real as l2
from kernelgenbench.suite.cublas import library
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import Joint, OutputSpec

NAN = float("nan")
IDS = ("cublasSger_v2", "cublasDsyr2_v2", "cublasStrsv_v2", "cublasDsbmv_v2", "cublasStbmv_v2",
       "cublasSgemvStridedBatched", "cublasDgemvStridedBatched")
SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions" / "cublas"


def buf(n: int, seed: int) -> torch.Tensor:
    return torch.randn(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def pos(n: int, inc: int, k: int) -> int:
    """0-based storage index of logical element k (netlib: negative increments start at the end)."""
    return (0 if inc > 0 else (1 - n) * inc) + k * inc


def same(a: torch.Tensor, b: torch.Tensor) -> None:
    torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10, equal_nan=True)


def cases(name: str, size: str = "small") -> list[dict]:
    return [c.sample.values for c in registry.get(f"cublas::{name}").cases if c.size == size]


def upper(uplo) -> bool:
    return l2.fill_code(uplo) == l2.FILL_UPPER


# ---- brute-force loops (1-based Fortran index arithmetic turned 0-based) -------------------------


def loop_ger(m, n, alpha, x, incx, y, incy, A, lda):
    A = A.tolist()
    if m > 0 and n > 0 and alpha != 0:
        for j in range(n):
            for i in range(m):
                A[i + j * lda] += alpha * x[pos(m, incx, i)].item() * y[pos(n, incy, j)].item()
    return torch.tensor(A, dtype=torch.float64)


def loop_syr2(uplo, n, alpha, x, incx, y, incy, A, lda):
    A = A.tolist()
    if n > 0 and alpha != 0:
        for j in range(n):
            for i in (range(j + 1) if upper(uplo) else range(j, n)):
                xi, xj = x[pos(n, incx, i)].item(), x[pos(n, incx, j)].item()
                yi, yj = y[pos(n, incy, i)].item(), y[pos(n, incy, j)].item()
                A[i + j * lda] += alpha * (xi * yj + yi * xj)
    return torch.tensor(A, dtype=torch.float64)


def loop_trsv(uplo, trans, diag, n, A, lda, x, incx):
    """strsv.f's substitution on op(A) element by element, never touching unreferenced storage."""
    x = x.tolist()
    t, unit = l2.op_code(trans) != 0, l2.diag_code(diag) == 1

    def m(i, j):  # op(A)[i, j]
        return A[(j + i * lda) if t else (i + j * lda)].item()

    forward = upper(uplo) == t  # op(A) lower
    order = range(n) if forward else range(n - 1, -1, -1)
    for i in order:
        s = x[pos(n, incx, i)]
        for j in (range(i) if forward else range(i + 1, n)):
            s -= m(i, j) * x[pos(n, incx, j)]
        x[pos(n, incx, i)] = s if unit else s / m(i, i)
    return torch.tensor(x, dtype=torch.float64)


def band_at(uplo, k, lda, r, c):
    """Storage index of element (r, c) of a band matrix (dsbmv.f / stbmv.f), or None outside the band."""
    if upper(uplo):
        return k + r - c + c * lda if 0 <= c - r <= k else None
    return r - c + c * lda if 0 <= r - c <= k else None


def loop_sbmv(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy):
    y = y.tolist()
    if n == 0 or (alpha == 0 and beta == 1):
        return torch.tensor(y, dtype=torch.float64)
    for i in range(n):
        acc = 0.0
        for j in range(n):
            p = band_at(uplo, k, lda, i, j)
            if p is None:
                p = band_at(uplo, k, lda, j, i)
            if p is not None:
                acc += A[p].item() * x[pos(n, incx, j)].item()
        iy = pos(n, incy, i)
        y[iy] = alpha * acc + (0.0 if beta == 0 else beta * y[iy])
    return torch.tensor(y, dtype=torch.float64)


def loop_tbmv(uplo, trans, diag, n, k, A, lda, x, incx):
    xs = [x[pos(n, incx, j)].item() for j in range(n)]
    out = x.tolist()
    t, unit = l2.op_code(trans) != 0, l2.diag_code(diag) == 1
    for i in range(n):
        acc = 0.0
        for j in range(n):
            r, c = (j, i) if t else (i, j)
            if unit and r == c:
                acc += xs[j]
                continue
            p = band_at(uplo, k, lda, r, c)
            if p is not None:
                acc += A[p].item() * xs[j]
        out[pos(n, incx, i)] = acc
    return torch.tensor(out, dtype=torch.float64)


def loop_gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    y = y.tolist()
    t = l2.op_code(trans)
    if m == 0 or n == 0 or (alpha == 0 and beta == 1):
        return torch.tensor(y, dtype=torch.float64)
    xlen, ylen = (n, m) if t == 0 else (m, n)
    for r in range(ylen):
        acc = sum((A[r + c * lda] if t == 0 else A[c + r * lda]).item() * x[pos(xlen, incx, c)].item()
                  for c in range(xlen))
        iy = pos(ylen, incy, r)
        y[iy] = alpha * acc + (0.0 if beta == 0 else beta * y[iy])
    return torch.tensor(y, dtype=torch.float64)


# ---- references against the loops -------------------------------------------------------------

INCS = [(1, 1), (-1, 2), (2, -3), (-2, -1)]


@pytest.mark.parametrize("m,n,pad", [(0, 3, 0), (3, 0, 1), (1, 1, 0), (5, 4, 2), (4, 6, 0)])
@pytest.mark.parametrize("incx,incy", INCS)
@pytest.mark.parametrize("alpha", [1.5, 0.0])
def test_ger_matches_loops(m, n, pad, incx, incy, alpha):
    lda = max(1, m) + pad
    x, y, A = buf(l2.vector_extent(m, incx), 1), buf(l2.vector_extent(n, incy), 2), buf(lda * n, 3)
    got = A.clone()
    l2.ger_reference(m, n, alpha, x, incx, y, incy, got, lda)
    same(got, loop_ger(m, n, alpha, x, incx, y, incy, A, lda))


@pytest.mark.parametrize("uplo", [0, 1, "L", "U"])
@pytest.mark.parametrize("n,pad", [(0, 0), (1, 0), (5, 2), (6, 0)])
@pytest.mark.parametrize("incx,incy", INCS)
def test_syr2_matches_loops_and_keeps_the_other_triangle(uplo, n, pad, incx, incy):
    lda = max(1, n) + pad
    x, y, A = buf(l2.vector_extent(n, incx), 4), buf(l2.vector_extent(n, incy), 5), buf(lda * n, 6)
    got = A.clone()
    l2.syr2_reference(uplo, n, -0.75, x, incx, y, incy, got, lda)
    same(got, loop_syr2(uplo, n, -0.75, x, incx, y, incy, A, lda))
    stored = l2.triangle_mask(n, lda, uplo, False)
    same(got[~stored], A[~stored])  # the other triangle and the rows past n
    if n > 1:
        assert not torch.equal(got[stored], A[stored])
    got0 = A.clone()
    l2.syr2_reference(uplo, n, 0.0, torch.full_like(x, NAN), incx, y, incy, got0, lda)  # quick return
    same(got0, A)


def _triangular(n, lda, uplo, diag, seed):
    gen = torch.Generator().manual_seed(seed)
    return l2.triangular_draw(n, lda, uplo, l2.diag_code(diag) == 1, torch.float64).draw(gen)


@pytest.mark.parametrize("uplo", [0, 1, "U"])
@pytest.mark.parametrize("trans", [0, 1, 2, "T"])
@pytest.mark.parametrize("diag", [0, 1, "U", "N"])
@pytest.mark.parametrize("n,pad,incx", [(0, 0, 1), (1, 0, 1), (6, 2, -2), (7, 0, 3)])
def test_trsv_matches_substitution(uplo, trans, diag, n, pad, incx):
    lda = max(1, n) + pad
    A, b = _triangular(n, lda, uplo, diag, 7), buf(l2.vector_extent(n, incx), 8)
    got = b.clone()
    l2.trsv_reference(uplo, trans, diag, n, A, lda, got, incx)
    want = loop_trsv(uplo, trans, diag, n, A, lda, b, incx)
    assert not want.isnan().any()  # the loop never reads the NaN unreferenced storage
    same(got, want)


def test_trsv_draw_is_well_conditioned_with_nan_where_unreferenced():
    for uplo in (0, 1):
        for diag in (0, 1):
            n, lda = 40, 43
            A = _triangular(n, lda, uplo, diag, 9)
            ref = l2.triangle_mask(n, lda, uplo, diag == 1)
            assert A[ref].isfinite().all() and A[~ref].isnan().all()
            t = l2.triangle_of(A, uplo, diag, n, lda)
            assert torch.linalg.cond(t, p=float("inf")) <= 6
            if diag == 1:  # the diagonal itself is NaN in storage: reading it fails a candidate
                assert A[torch.arange(n) * (lda + 1)].isnan().all()


@pytest.mark.parametrize("uplo", [0, 1, "L"])
@pytest.mark.parametrize("n,k,pad", [(0, 2, 0), (1, 0, 0), (6, 2, 1), (5, 7, 0), (7, 0, 2)])
@pytest.mark.parametrize("incx,incy", INCS[:3])
@pytest.mark.parametrize("alpha,beta", [(1.5, -0.5), (1.0, 0.0), (0.0, 2.0), (0.0, 1.0)])
def test_sbmv_matches_loops(uplo, n, k, pad, incx, incy, alpha, beta):
    lda = k + 1 + pad
    A = l2.band_draw(n, k, lda, uplo, False, torch.float64).draw(torch.Generator().manual_seed(10))
    x, y = buf(l2.vector_extent(n, incx), 11), buf(l2.vector_extent(n, incy), 12)
    if beta == 0:
        y = torch.full_like(y, NAN)  # not read
    got = y.clone()
    l2.sbmv_reference(uplo, n, k, alpha, A, lda, x, incx, beta, got, incy)
    same(got, loop_sbmv(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy))


@pytest.mark.parametrize("uplo", [0, 1])
@pytest.mark.parametrize("trans", [0, 1, "C"])
@pytest.mark.parametrize("diag", [0, 1])
@pytest.mark.parametrize("n,k,pad,incx", [(0, 1, 0, 1), (1, 0, 0, 1), (6, 2, 1, -2), (5, 7, 0, 1), (7, 3, 0, 2)])
def test_tbmv_matches_loops(uplo, trans, diag, n, k, pad, incx):
    lda = k + 1 + pad
    A = l2.band_draw(n, k, lda, uplo, diag == 1, torch.float64).draw(torch.Generator().manual_seed(13))
    x = buf(l2.vector_extent(n, incx), 14)
    got = x.clone()
    l2.tbmv_reference(uplo, trans, diag, n, k, A, lda, got, incx)
    want = loop_tbmv(uplo, trans, diag, n, k, A, lda, x, incx)
    assert not want.isnan().any()
    same(got, want)


def test_band_mask_follows_the_reference_blas_layout():
    n, k, lda = 5, 2, 4
    up = l2.band_mask(n, k, lda, "U", False).reshape(n, lda)  # row j = column j of the storage
    lo = l2.band_mask(n, k, lda, "L", False).reshape(n, lda)
    for j in range(n):
        for r in range(lda):
            assert bool(up[j, r]) == (r <= k and 0 <= j - k + r < n)  # A(j-k+r, j)
            assert bool(lo[j, r]) == (r <= k and j + r < n)  # A(j+r, j)
    assert not l2.band_mask(n, k, lda, "U", True).reshape(n, lda)[:, k].any()  # unit: diagonal row k
    assert not l2.band_mask(n, k, lda, "L", True).reshape(n, lda)[:, 0].any()  # unit: diagonal row 0


@pytest.mark.parametrize("trans", [0, "T", 2])
@pytest.mark.parametrize("m,n,pad", [(4, 3, 1), (0, 3, 0), (3, 0, 0), (1, 1, 0)])
@pytest.mark.parametrize("batch,gaps", [(3, (0, 0, 0)), (3, (None, 2, 1)), (2, (3, None, 4)), (0, (0, 0, 0))])
@pytest.mark.parametrize("alpha,beta", [(1.5, -0.5), (2.0, 0.0), (0.0, 1.0)])
def test_gemv_batched_matches_loops_per_problem(trans, m, n, pad, batch, gaps, alpha, beta):
    incx, incy = -2, 3
    xlen, ylen = (n, m) if l2.op_code(trans) == 0 else (m, n)
    lda = max(1, m) + pad
    one = (lda * n, l2.vector_extent(xlen, incx), l2.vector_extent(ylen, incy))
    sa, sx, sy = (0 if g is None else o + g for o, g in zip(one, gaps))
    A, x = buf(l2.batched_len(one[0], sa, batch), 15), buf(l2.batched_len(one[1], sx, batch), 16)
    y = buf(l2.batched_len(one[2], sy, batch), 17)
    if beta == 0:
        y = torch.full_like(y, NAN)
    got = y.clone()
    l2.gemv_batched_reference(trans, m, n, alpha, A, lda, sa, x, incx, sx, beta, got, incy, sy, batch)
    want = y.clone()
    for b in range(batch):
        seg = slice(b * sy, b * sy + one[2])
        want[seg] = loop_gemv(trans, m, n, alpha, A[b * sa:], lda, x[b * sx:], incx, beta, y[seg], incy)
    same(got, want)


def test_flag_codes_accept_ints_and_letters():
    assert [l2.fill_code(v) for v in (0, 1, "L", "U", "l", "u")] == [0, 1, 0, 1, 0, 1]
    assert [l2.diag_code(v) for v in (0, 1, "N", "U")] == [0, 1, 0, 1]
    for bad in (2, "X", True, None):
        with pytest.raises(ValueError):
            l2.fill_code(bad)
        with pytest.raises(ValueError):
            l2.diag_code(bad)


# ---- the grids --------------------------------------------------------------------------------


def test_records_registered():
    for name in IDS:
        op = registry.get(f"cublas::{name}")
        assert op.source == "cublas" and op.family == "blas2" and op.work == "compute"
        assert op.baseline is library.baseline
        assert {c.size for c in op.cases} == {"small", "large", "perf"}
        assert 10 <= len(cases(name)) <= 25
        assert (SOLUTIONS / f"{name}.py").is_file()


@pytest.mark.parametrize("name", IDS)
def test_grids_draw_negative_increments_and_padded_leading_dimensions(name):
    small = cases(name)
    incs = [v[k] for v in small for k in ("incx", "incy") if k in v]
    assert any(i < 0 for i in incs) and any(i > 1 for i in incs) and any(i == 1 for i in incs)
    rows = {"cublasSger_v2": "m", "cublasSgemvStridedBatched": "m", "cublasDgemvStridedBatched": "m"}.get(name, "n")
    if "bmv" in name:
        assert any(v["lda"] > v["k"] + 1 for v in small)
        assert any(v["k"] >= v["n"] > 0 for v in small) and any(v["k"] == 0 for v in small)
    else:
        assert any(v["lda"] > max(1, v[rows]) for v in small)


@pytest.mark.parametrize("name", ["cublasDsyr2_v2", "cublasStrsv_v2", "cublasDsbmv_v2", "cublasStbmv_v2"])
def test_every_flag_value_is_drawn_as_int_and_letter(name):
    small = cases(name)
    flags = {"uplo": ({0, 1}, {"L", "U"}), "trans": ({0, 1, 2}, {"N", "T", "C"}), "diag": ({0, 1}, {"N", "U"})}
    for flag, (ints, letters) in flags.items():
        if flag not in small[0]:
            continue
        drawn = {v[flag] for v in small}
        assert ints <= drawn and drawn & letters, (flag, drawn)
    if "diag" in small[0]:
        combos = {(l2.fill_code(v["uplo"]), l2.op_code(v["trans"]) != 0, l2.diag_code(v["diag"])) for v in small}
        assert len(combos) == 8  # every uplo x transposed x diag


def test_quick_returns_are_drawn():
    assert any(v["alpha"] == 0 for v in cases("cublasSger_v2"))
    assert any(v["m"] == 0 for v in cases("cublasSger_v2")) and any(v["n"] == 0 for v in cases("cublasSger_v2"))
    assert any(v["alpha"] == 0 for v in cases("cublasDsyr2_v2")) and any(v["n"] == 0 for v in cases("cublasDsyr2_v2"))
    for name in ("cublasStrsv_v2", "cublasStbmv_v2"):
        assert any(v["n"] == 0 for v in cases(name)) and any(v["n"] == 1 for v in cases(name))
    sbmv = cases("cublasDsbmv_v2")
    assert any(v["alpha"] == 0 and v["beta"] == 1 for v in sbmv)
    assert any(v["alpha"] == 0 and v["beta"] not in (0, 1) for v in sbmv) and any(v["n"] == 0 for v in sbmv)
    for name in ("cublasSgemvStridedBatched", "cublasDgemvStridedBatched"):
        g = cases(name)
        assert any(v["batchCount"] == 0 for v in g) and any(v["alpha"] == 0 and v["beta"] == 1 for v in g)
        assert any(v["m"] == 0 for v in g) and any(v["n"] == 0 for v in g)


@pytest.mark.parametrize("name", ["cublasDsbmv_v2", "cublasSgemvStridedBatched", "cublasDgemvStridedBatched"])
def test_beta_zero_poisons_y(name):
    small = cases(name)
    assert any(isinstance(v["y"], OutputSpec) for v in small)
    assert all(v["beta"] == 0 for v in small if isinstance(v["y"], OutputSpec))


@pytest.mark.parametrize("name", ["cublasSgemvStridedBatched", "cublasDgemvStridedBatched"])
def test_batched_strides_broadcast_and_leave_gaps(name):
    small = [v for v in cases(name) if v["batchCount"] > 1 and v["m"] and v["n"]]
    assert any(v["strideA"] == 0 for v in small) and any(v["stridex"] == 0 for v in small)
    assert any(v["strideA"] == 0 and v["stridex"] == 0 for v in small)

    def ylen(v):
        return v["m"] if l2.op_code(v["trans"]) == 0 else v["n"]

    assert all(v["stridey"] >= l2.vector_extent(ylen(v), v["incy"]) for v in small)  # outputs never overlap
    assert any(v["stridey"] > l2.vector_extent(ylen(v), v["incy"]) for v in small)  # a gap between outputs
    assert any(v["strideA"] > v["lda"] * v["n"] for v in small)


@pytest.mark.parametrize("name", ["cublasStrsv_v2", "cublasDsbmv_v2", "cublasStbmv_v2"])
def test_read_only_matrices_hold_nan_where_unreferenced(name):
    op = registry.get(f"cublas::{name}")
    for i, case in enumerate(op.select_cases(sizes=("small",))):
        v = case.sample.values
        assert isinstance(v["A"], Joint)
        A = materialize(v, i, "cpu")["A"]
        unit = "diag" in v and l2.diag_code(v["diag"]) == 1
        if "bmv" in name:
            ref = l2.band_mask(v["n"], v["k"], v["lda"], v["uplo"], unit)
        else:
            ref = l2.triangle_mask(v["n"], v["lda"], v["uplo"], unit)
        assert A[ref].isfinite().all() and A[~ref].isnan().all()


@pytest.mark.parametrize("name", IDS)
def test_cases_are_interpreter_sized(name):
    for v in cases(name):
        total = sum(math.prod(t.shape) for t in v.values() if hasattr(t, "shape"))
        assert total <= 40_000


@pytest.mark.parametrize("name", IDS)
def test_reference_writes_only_what_the_routine_addresses(name):
    """Every small case on the float64 reference: what lies outside the addressed storage (lda gaps,
    the other triangle of syr2, gaps between batched outputs, skipped increments) is unchanged."""
    op = registry.get(f"cublas::{name}")
    ov = op.overloads[0]
    for i, case in enumerate(op.select_cases(sizes=("small",))):
        vals = materialize(case.sample.values, i, "cpu")
        out = ov.writes[0]
        before = vals[out].clone()
        args, kwargs = ov.split(vals)
        ov.reference(*args, **kwargs)
        v = case.sample.values
        touched = torch.zeros(before.numel(), dtype=torch.bool)
        if name == "cublasSger_v2":
            if v["m"] and v["n"] and v["alpha"]:
                touched |= _rect(v["m"], v["n"], v["lda"])
        elif name == "cublasDsyr2_v2":
            if v["n"] and v["alpha"]:
                touched |= l2.triangle_mask(v["n"], v["lda"], v["uplo"], False)
        elif name.endswith("StridedBatched"):
            ylen = v["m"] if l2.op_code(v["trans"]) == 0 else v["n"]
            live = v["m"] and v["n"] and not (v["alpha"] == 0 and v["beta"] == 1)
            for b in range(v["batchCount"] if live else 0):
                for r in range(ylen):
                    touched[b * v["stridey"] + pos(ylen, v["incy"], r)] = True
        else:
            live = v["n"] and not (name == "cublasDsbmv_v2" and v["alpha"] == 0 and v["beta"] == 1)
            inc = v["incy"] if out == "y" else v["incx"]
            for r in range(v["n"] if live else 0):
                touched[pos(v["n"], inc, r)] = True
        same(vals[out][~touched], before[~touched])
        assert not vals[out][touched].isnan().any(), case.name


def _rect(m, n, lda):
    return (torch.arange(lda)[None, :] < m).expand(n, lda).reshape(-1)


# ---- the library binding ----------------------------------------------------------------------


@pytest.mark.parametrize("name", IDS)
def test_binding_has_the_candidates_signature(name):
    ov = registry.get(f"cublas::{name}").overloads[0]
    assert len(library.PROTOTYPES[name]) == 1 + len(ov.params)  # the handle, then the C arguments
    sig = inspect.signature(getattr(library.Cublas, name))
    assert list(sig.parameters)[1:] == [p.name for p in ov.params]
    op = registry.get(f"cublas::{name}")
    assert op.baseline("cpu", ov) is None and op.native("cpu", ov) is ov.reference
    if name.endswith("StridedBatched"):
        longs = [i for i, t in enumerate(library.PROTOTYPES[name]) if t is library.ctypes.c_longlong]
        assert [ov.params[i - 1].name for i in longs] == ["strideA", "stridex", "stridey"]


# ---- the whole chain on the interpreter -------------------------------------------------------


def test_a_trsv_that_reads_the_unit_diagonal_is_rejected(tmp_path):
    """Unit cases store NaN on the diagonal: dividing by the stored diagonal anyway fails."""
    from kernelgenbench import api
    from kernelgenbench.verify.verdict import Status

    src = (SOLUTIONS / "cublasStrsv_v2.py").read_text()
    wrong = src.replace("        if UNIT:\n            tri = tri & (r[:, None] != r[None, :])\n", "").replace(
        "            if not UNIT:\n                d = ", "            if True:\n                d = ")
    assert wrong.count("UNIT") < src.count("UNIT")
    path = tmp_path / "cand.py"
    path.write_text(wrong)
    v = api.verify_file(path, "cublas::cublasStrsv_v2", device="cpu", seed=7, timeout_s=600, fail_fast=True,
                        copy_check=False)  # a solution changed on purpose
    assert v.status is Status.WRONG_RESULT, v.reason
