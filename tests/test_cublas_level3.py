"""cuBLAS level 3 real/half routines: references against element loops, and the grids' coverage.

The loops follow the reference BLAS (ssyrk.f, strsm.f, sgemm.f) and cuBLAS's documented formulas
(geam, dgmm, strided batches) element by element with 0-based column-major addressing.
"""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas import family
from kernelgenbench.suite.cublas import level3_real as l3
from kernelgenbench.suite.spec import Joint, OutputSpec, TensorSpec, Tolerance
from kernelgenbench.verify.tolerance import compare

from .test_cublas_specs import buf, loop_gemm, same

NAN = float("nan")
ROUTINES = ("cublasSgeam", "cublasSdgmm", "cublasSsyrk_v2", "cublasStrsm_v2", "cublasSgemmStridedBatched",
            "cublasDgemmStridedBatched", "cublasDgemmStridedBatched_64", "cublasHgemmStridedBatched",
            "cublasSgemmEx")


def cases(name: str, size: str = "small") -> list[dict]:
    return [dict(c.sample.values) for c in registry.get(f"cublas::{name}").cases if c.size == size]


def t(flag) -> bool:
    return family.op_code(flag) != 0


# ---- loops ---------------------------------------------------------------------------------------


def op_at(M, trans, ld, i, j):
    return (M[j + i * ld] if t(trans) else M[i + j * ld]).item()


def loop_geam(ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc):
    C = C.tolist()
    for j in range(n):
        for i in range(m):
            C[i + j * ldc] = alpha * op_at(A, ta, lda, i, j) + beta * op_at(B, tb, ldb, i, j)
    return torch.tensor(C, dtype=torch.float64)


def loop_dgmm(mode, m, n, A, lda, x, incx, C, ldc):
    C = C.tolist()
    count = m if l3.side_code(mode) == 0 else n
    for j in range(n):
        for i in range(m):
            p = i if l3.side_code(mode) == 0 else j
            ix = p * incx if incx >= 0 else (count - 1 - p) * -incx
            C[i + j * ldc] = A[i + j * lda].item() * x[ix].item()
    return torch.tensor(C, dtype=torch.float64)


def loop_syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
    C = C.tolist()
    if n == 0 or ((alpha == 0 or k == 0) and beta == 1):
        return torch.tensor(C, dtype=torch.float64)
    for j in range(n):
        for i in range(n):
            if (i > j) if l3.fill_code(uplo) == 1 else (i < j):
                continue
            acc = sum(op_at(A, trans, lda, i, p) * op_at(A, trans, lda, j, p) for p in range(k)) if alpha else 0.0
            C[i + j * ldc] = alpha * acc + (0.0 if beta == 0 else beta * C[i + j * ldc])
    return torch.tensor(C, dtype=torch.float64)


def tri_at(A, lda, uplo, diag, i, j):
    """Element (i, j) of the triangular matrix strsm.f sees."""
    if i == j and l3.diag_code(diag) == 1:
        return 1.0
    inside = i <= j if l3.fill_code(uplo) == 1 else i >= j
    return A[i + j * lda].item() if inside else 0.0


def loop_trsm_residual(side, uplo, trans, diag, m, n, alpha, A, lda, X, B, ldb):
    """max |op(A) X - alpha B| (left) or |X op(A) - alpha B| (right), by loops."""
    left = l3.side_code(side) == 0
    order = m if left else n

    def opa(i, j):
        return tri_at(A, lda, uplo, diag, j, i) if t(trans) else tri_at(A, lda, uplo, diag, i, j)

    worst = 0.0
    for j in range(n):
        for i in range(m):
            if left:
                v = sum(opa(i, p) * X[p + j * ldb].item() for p in range(order))
            else:
                v = sum(X[i + p * ldb].item() * opa(p, j) for p in range(order))
            worst = max(worst, abs(v - alpha * B[i + j * ldb].item()))
    return worst


def triangle(order, ld, uplo, diag, seed):
    gen = torch.Generator().manual_seed(seed)
    return l3._triangular_draw(order, ld, l3.fill_code(uplo) == 1, l3.diag_code(diag) == 1, gen).double()


# ---- references against loops -------------------------------------------------------------------


@pytest.mark.parametrize("ta,tb,m,n,pa,pb,pc,alpha,beta", [
    (0, 0, 5, 4, 0, 1, 2, 1.5, -0.5), (1, 0, 3, 6, 2, 0, 0, -1.0, 2.0), ("N", "T", 4, 4, 0, 0, 1, 0.5, 0.0),
    ("C", "C", 6, 3, 1, 1, 0, 0.0, 1.0), (2, 1, 2, 7, 0, 2, 3, 1.0, 1.0),
])
def test_geam_matches_loops(ta, tb, m, n, pa, pb, pc, alpha, beta):
    (ar, ac), (br, bc) = ((n, m) if t(ta) else (m, n)), ((n, m) if t(tb) else (m, n))
    lda, ldb, ldc = ar + pa, br + pb, m + pc
    A, B, C = buf(lda * ac, 1), buf(ldb * bc, 2), buf(ldc * n, 3)
    want = loop_geam(ta, tb, m, n, alpha, A, lda, beta, B, ldb, C.clone(), ldc)
    l3.geam_reference(ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc)
    same(C, want)


def test_geam_never_reads_c():
    C = torch.full((12,), NAN, dtype=torch.float64)
    l3.geam_reference(0, 0, 3, 3, 1.0, buf(9, 1), 3, 1.0, buf(9, 2), 3, C, 4)
    grid = C.view(3, 4)
    assert not grid[:, :3].isnan().any() and grid[:, 3].isnan().all()


@pytest.mark.parametrize("mode,m,n,pa,incx,pc", [
    (0, 5, 4, 1, 1, 0), (1, 5, 4, 0, 2, 1), ("L", 3, 6, 0, -1, 2), ("R", 4, 3, 2, -3, 0), (0, 4, 2, 0, 0, 1),
    (1, 2, 5, 0, 0, 0),
])
def test_dgmm_matches_loops(mode, m, n, pa, incx, pc):
    count = m if l3.side_code(mode) == 0 else n
    lda, ldc = m + pa, m + pc
    A, x, C = buf(lda * n, 4), buf(family.vector_extent(count, incx), 5), buf(ldc * n, 6)
    want = loop_dgmm(mode, m, n, A, lda, x, incx, C.clone(), ldc)
    l3.dgmm_reference(mode, m, n, A, lda, x, incx, C, ldc)
    same(C, want)


@pytest.mark.parametrize("uplo", [0, 1, "L", "U"])
@pytest.mark.parametrize("trans,alpha,beta,k", [(0, 1.25, -0.5, 3), (1, -1.0, 2.0, 4), ("C", 0.5, 0.0, 2),
                                                (0, 0.0, 1.5, 3), (1, 1.0, 0.5, 0)])
def test_syrk_matches_loops_and_keeps_other_triangle(uplo, trans, alpha, beta, k):
    n, pad = 5, 2
    lda, ldc = (k if t(trans) else n) + 1, n + pad
    A, C = buf(lda * (n if t(trans) else k), 7), buf(ldc * n, 8)
    want = loop_syrk(uplo, trans, n, k, alpha, A, lda, beta, C.clone(), ldc)
    l3.syrk_reference(uplo, trans, n, k, alpha, A, lda, beta, C, ldc)
    same(C, want)


def test_syrk_beta_zero_ignores_nan_in_its_triangle_only():
    n, ldc = 4, 5
    C = torch.full((ldc * n,), NAN, dtype=torch.float64)
    l3.syrk_reference("L", "N", n, 3, 1.0, buf(n * 3, 1), n, 0.0, C, ldc)
    grid = C.view(n, ldc)  # grid[j, i] = C[i, j]
    for j in range(n):
        for i in range(ldc):
            assert grid[j, i].isnan().item() == (i >= n or i < j)


@pytest.mark.parametrize("side", [0, 1, "L", "R"])
@pytest.mark.parametrize("uplo,trans,diag", [(0, 0, 0), (1, 1, 1), ("L", "C", "U"), ("U", "N", "N")])
def test_trsm_solves_by_loops_and_skips_unread_parts(side, uplo, trans, diag):
    m, n, pa, pb, alpha = 5, 4, 2, 1, 1.5
    order = m if l3.side_code(side) == 0 else n
    lda, ldb = order + pa, m + pb
    A, B = triangle(order, lda, uplo, diag, 3), buf(ldb * n, 9)
    assert A.isnan().any()  # the other triangle (and a unit diagonal) hold NaN
    X = B.clone()
    l3.trsm_reference(side, uplo, trans, diag, m, n, alpha, A, lda, X, ldb)
    assert not X.isnan().any()
    assert loop_trsm_residual(side, uplo, trans, diag, m, n, alpha, A, lda, X, B, ldb) < 1e-12
    same(X.view(n, ldb)[:, m:], B.view(n, ldb)[:, m:])


def test_trsm_alpha_zero_zeroes_b_without_reading_a():
    A = torch.full((16,), NAN, dtype=torch.float64)
    B = buf(20, 1)
    l3.trsm_reference(0, 0, 0, 0, 4, 4, 0.0, A, 4, B, 5)
    assert (B.view(4, 5)[:, :4] == 0).all() and not B.isnan().any()


def test_triangle_draw_is_well_conditioned():
    for uplo, diag in ((0, 0), (1, 0), (0, 1), (1, 1)):
        A = triangle(64, 67, uplo, diag, 11)
        t_ = torch.tensor([[tri_at(A, 67, uplo, diag, i, j) for j in range(64)] for i in range(64)])
        assert torch.linalg.cond(t_, p=math.inf) <= 5.0


def loop_batched(ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch):
    C = C.clone()
    for i in range(batch):
        a, b, c = A[i * sa:], B[i * sb:], C[i * sc:]
        c.copy_(loop_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
    return C


@pytest.mark.parametrize("ta,tb,xa,xb,xc,batch,alpha,beta", [
    (0, 0, 0, 0, 0, 3, 1.5, -0.5), (1, 0, None, 2, 3, 3, 1.0, 1.0), ("N", "C", 4, None, 1, 2, -1.0, 0.0),
    ("T", "T", 1, 1, 2, 2, 0.0, 2.0), (0, 1, 0, 0, 0, 0, 1.0, 0.5), (1, 1, 0, 0, 5, 2, 1.0, 1.0),
])
def test_gemm_batched_matches_loops(ta, tb, xa, xb, xc, batch, alpha, beta):
    m, n, k = 4, 3, 5
    (ar, ac), (br, bc) = ((k, m) if t(ta) else (m, k)), ((n, k) if t(tb) else (k, n))
    lda, ldb, ldc = ar + 1, br, m + 2
    sa = 0 if xa is None else lda * ac + xa
    sb = 0 if xb is None else ldb * bc + xb
    sc = ldc * n + xc
    A, B = buf(l3.batched_len(ar, ac, lda, sa, batch), 1), buf(l3.batched_len(br, bc, ldb, sb, batch), 2)
    C = buf(l3.batched_len(m, n, ldc, sc, batch), 3)
    want = loop_batched(ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch)
    l3.gemm_batched_reference(ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch)
    same(C, want)


def test_sgemm_ex_widens_int8():
    A = torch.tensor([1, -2, 3, 4], dtype=torch.int8)
    B = torch.tensor([5, 6, -7, 8], dtype=torch.int8)
    C = torch.full((4,), NAN, dtype=torch.float64)
    l3.sgemm_ex_reference(0, 0, 2, 2, 2, 1.0, A, 3, 2, B, 3, 2, 0.0, C, 0, 2)
    want = loop_gemm(0, 0, 2, 2, 2, 1.0, A.double(), 2, B.double(), 2, 0.0, torch.zeros(4, dtype=torch.float64), 2)
    same(C, want)


# ---- the grids draw the semantics ----------------------------------------------------------------


def test_every_routine_is_registered_with_three_tiers():
    for name in ROUTINES:
        op = registry.get(f"cublas::{name}")
        assert {c.size for c in op.cases} == {"small", "large", "perf"}, name
        assert 8 <= len(op.select_cases(sizes=("small",))) <= 25, name


def test_geam_grid():
    rows = cases("cublasSgeam")
    assert {family.op_code(r["transa"]) for r in rows} == {0, 1, 2}
    assert {family.op_code(r["transb"]) for r in rows} == {0, 1, 2}
    assert any(isinstance(r["transa"], str) for r in rows)
    assert any(isinstance(r["C"], OutputSpec) for r in rows) and any(isinstance(r["C"], TensorSpec) for r in rows)
    assert any(r["alpha"] == 0 for r in rows) and any(r["beta"] == 0 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] == 0 for r in rows)
    assert any(r["ldc"] > r["m"] for r in rows)
    assert any(r["m"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)


def test_dgmm_grid():
    rows = cases("cublasSdgmm")
    assert {l3.side_code(r["mode"]) for r in rows} == {0, 1}
    assert any(isinstance(r["mode"], str) for r in rows)
    incs = {r["incx"] for r in rows}
    assert 0 in incs and any(i < 0 for i in incs) and any(i > 1 for i in incs)
    assert any(r["ldc"] > r["m"] for r in rows) and any(r["lda"] > r["m"] for r in rows)
    assert any(isinstance(r["C"], OutputSpec) for r in rows)


def test_syrk_grid():
    rows = cases("cublasSsyrk_v2")
    assert {l3.fill_code(r["uplo"]) for r in rows} == {0, 1}
    assert {family.op_code(r["trans"]) for r in rows} == {0, 1, 2}
    assert any(r["k"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] == 1 for r in rows)
    assert any(isinstance(r["C"], OutputSpec) and r["beta"] == 0 for r in rows)
    assert any(r["ldc"] > r["n"] for r in rows)


def test_trsm_grid():
    rows = cases("cublasStrsm_v2")
    assert {l3.side_code(r["side"]) for r in rows} == {0, 1}
    assert {l3.fill_code(r["uplo"]) for r in rows} == {0, 1}
    assert {family.op_code(r["trans"]) for r in rows} == {0, 1, 2}
    assert {l3.diag_code(r["diag"]) for r in rows} == {0, 1}
    combos = {(l3.side_code(r["side"]), l3.fill_code(r["uplo"]), t(r["trans"])) for r in rows}
    assert len(combos) == 8
    assert all(isinstance(r["A"], Joint) for r in rows)
    assert any(r["alpha"] == 0 for r in rows) and any(r["m"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)
    assert any(r["ldb"] > r["m"] for r in rows) and any(r["lda"] > max(r["m"], 1) for r in rows)


@pytest.mark.parametrize("name", ["cublasSgemmStridedBatched", "cublasDgemmStridedBatched",
                                  "cublasDgemmStridedBatched_64", "cublasHgemmStridedBatched"])
def test_batched_grid(name):
    rows = cases(name)
    assert {family.op_code(r["transa"]) for r in rows} == {0, 1, 2}
    assert {family.op_code(r["transb"]) for r in rows} == {0, 1, 2}
    assert any(r["strideA"] == 0 for r in rows) and any(r["strideB"] == 0 for r in rows)
    assert any(r["strideC"] > r["ldc"] * r["n"] for r in rows)
    assert any(r["strideA"] > r["lda"] * (r["m"] if t(r["transa"]) else r["k"]) for r in rows)
    assert any(r["batchCount"] == 0 for r in rows) and any(r["k"] == 0 for r in rows)
    assert any(isinstance(r["C"], OutputSpec) and r["beta"] == 0 for r in rows)
    assert any(r["alpha"] == 0 for r in rows)


def test_dgemm_64_big_case_is_perf_only():
    big = [r for size in ("small", "large", "perf") for r in cases("cublasDgemmStridedBatched_64", size)
           if r["A"].shape[0] > 2**31]
    assert len(big) == 1 and big[0]["strideA"] > 2**31 - 1
    assert big[0] in cases("cublasDgemmStridedBatched_64", "perf")


def test_sgemm_ex_grid_draws_every_documented_combination():
    rows = cases("cublasSgemmEx")
    combos = {(r["Atype"], r["Btype"], r["Ctype"]) for r in rows}
    assert combos == {(0, 0, 0), (2, 2, 0), (14, 14, 0), (3, 3, 0), (2, 2, 2), (14, 14, 14)}
    for r in rows:
        assert r["A"].dtype == l3.DATA_TYPES[r["Atype"]] and r["C"].dtype == l3.DATA_TYPES[r["Ctype"]]
    assert {family.op_code(r["transa"]) for r in rows} == {0, 1, 2}


def test_hgemm_tolerance_passes_float32_accumulation_and_fails_null():
    """Against an fp16-accumulating native, float32 accumulation passes and zeros fail."""
    tol = registry.get("cublas::cublasHgemmStridedBatched").tolerance
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(64, 512, generator=g).half(), torch.randn(512, 48, generator=g).half()
    truth = a.double() @ b.double()
    native = torch.zeros(64, 48, dtype=torch.float16)
    for p in range(512):  # fp16 accumulation, rounded at every step
        native = (native.float() + a[:, p:p + 1].float() * b[p:p + 1, :].float()).half()
    scale = a.double().abs() @ b.double().abs()
    good = (a.float() @ b.float()).half()
    assert compare(good, truth, native, tol, scale).ok
    assert not compare(torch.zeros_like(good), truth, native, tol, scale).ok
    assert isinstance(tol, Tolerance) and tol.abs_scale
