"""cuBLAS complex levels 2/3 (issue 13): the references against brute-force loops over the netlib
reference BLAS (cgemv.f, cgeru.f, zgerc.f, cgemm.f, applied per problem of a strided batch), the
error scale, and the grids drawing the semantics that matter."""

from __future__ import annotations

import itertools

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas import level23_complex as lc
from kernelgenbench.suite.cublas.library import op_code, vector_extent
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec
from kernelgenbench.verify.correctness import _reference

NAN = float("nan")
GEMV_IDS = ("cublasCgemv_v2", "cublasCgemvStridedBatched", "cublasZgemvStridedBatched")
GER_IDS = ("cublasCgeru_v2", "cublasZgerc_v2")
GEMM_IDS = ("cublasCgemm_v2", "cublasCgemmStridedBatched", "cublasCgemmStridedBatched_64",
            "cublasZgemmStridedBatched")
BATCHED = ("cublasCgemvStridedBatched", "cublasZgemvStridedBatched", "cublasCgemmStridedBatched",
           "cublasCgemmStridedBatched_64", "cublasZgemmStridedBatched")
IDS = GEMV_IDS + GER_IDS + GEMM_IDS


def buf(n: int, seed: int) -> torch.Tensor:
    return torch.randn(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def pos(n: int, inc: int, k: int) -> int:
    """0-based storage index of logical element k (netlib: negative increments start at the end)."""
    return (0 if inc > 0 else (1 - n) * inc) + k * inc


def get(b: torch.Tensor, p: int) -> complex:
    return complex(b[2 * p].item(), b[2 * p + 1].item())


def put(b: torch.Tensor, p: int, z: complex) -> None:
    b[2 * p], b[2 * p + 1] = z.real, z.imag


def op_elem(b: torch.Tensor, trans, base: int, ld: int, i: int, j: int) -> complex:
    """op(M)[i, j] of a column-major complex matrix starting at complex element base."""
    code = op_code(trans)
    if code == 0:
        return get(b, base + i + j * ld)
    z = get(b, base + j + i * ld)
    return z.conjugate() if code == 2 else z


def same(a: torch.Tensor, b: torch.Tensor) -> None:
    torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


def cases(name: str, size: str = "small") -> list[dict]:
    return [c.sample.values for c in registry.get(f"cublas::{name}").cases if c.size == size]


# ---- references against brute-force loops -----------------------------------------------------


def loop_gemv(trans, m, n, alpha, A, lda, sa, x, incx, sx, beta, y, incy, sy, batch):
    xlen, ylen = (n, m) if op_code(trans) == 0 else (m, n)
    if m == 0 or n == 0 or (alpha == 0 and beta == 1):
        return
    for b in range(batch):
        for i in range(ylen):
            acc = sum(op_elem(A, trans, b * sa, lda, i, j) * get(x, b * sx + pos(xlen, incx, j)) for j in range(xlen))
            p = b * sy + pos(ylen, incy, i)
            put(y, p, alpha * acc + (beta * get(y, p) if beta != 0 else 0))


@pytest.mark.parametrize("trans", [0, 1, 2, "C"])
@pytest.mark.parametrize("m,n,pad,incx,incy,sa,sx,sy,batch", [
    (3, 4, 0, 1, 1, None, None, None, 1), (4, 3, 2, -2, 1, 3, None, 2, 3), (5, 2, 1, 1, -3, "0", "0", None, 2),
    (0, 3, 0, 1, 1, None, None, None, 2), (3, 3, 0, 1, 1, None, None, None, 0)])
@pytest.mark.parametrize("alpha,beta", [(1.5 - 0.5j, 0.25 + 1j), (2 + 1j, 0j), (0j, -1 + 0.5j), (0j, 1 + 0j)])
def test_gemv_reference_matches_loop(trans, m, n, pad, incx, incy, sa, sx, sy, batch, alpha, beta):
    xlen, ylen = (n, m) if op_code(trans) == 0 else (m, n)
    lda = max(1, m) + pad
    sa, sx, sy = (lc._stride(s, one) for s, one in ((sa, lda * n), (sx, vector_extent(xlen, incx)),
                                                       (sy, vector_extent(ylen, incy))))
    A = buf(2 * lc._batch_len(lda * n, sa, batch), 1)
    x = buf(2 * lc._batch_len(vector_extent(xlen, incx), sx, batch), 2)
    y0 = buf(2 * lc._batch_len(vector_extent(ylen, incy), sy, batch), 3)
    if beta == 0:
        y0 = torch.full_like(y0, NAN)  # beta == 0: y is not read; unaddressed positions keep their NaN
        want = y0.clone()
        for b in range(batch if m and n else 0):
            for i in range(ylen):
                put(want, b * sy + pos(ylen, incy, i), 0j)
    else:
        want = y0.clone()
    loop_gemv(trans, m, n, alpha, A, lda, sa, x, incx, sx, beta, want, incy, sy, batch)
    got = y0.clone()
    lc.gemv_batched_reference(trans, m, n, alpha, A, lda, sa, x, incx, sx, beta, got, incy, sy, batch)
    same(got, want)
    if batch == 1 and sa == lda * n:
        plain = y0.clone()
        lc.gemv_reference(trans, m, n, alpha, A, lda, x, incx, beta, plain, incy)
        same(plain, want)


@pytest.mark.parametrize("conj", [False, True])
@pytest.mark.parametrize("m,n,pad,incx,incy", [(3, 4, 0, 1, 1), (4, 3, 2, -2, 1), (5, 2, 1, 3, -1), (0, 3, 0, 1, 1)])
@pytest.mark.parametrize("alpha", [1.5 - 0.5j, 0j])
def test_ger_reference_matches_loop(conj, m, n, pad, incx, incy, alpha):
    lda = max(1, m) + pad
    x, y = buf(2 * vector_extent(m, incx), 1), buf(2 * vector_extent(n, incy), 2)
    A = buf(2 * lda * n, 3)
    want = A.clone()
    if alpha != 0:
        for i, j in itertools.product(range(m), range(n)):
            yj = get(y, pos(n, incy, j))
            put(want, i + j * lda, get(want, i + j * lda) + alpha * get(x, pos(m, incx, i)) * (yj.conjugate() if conj
                                                                                              else yj))
    got = A.clone()
    lc._ger(conj, False)(m, n, alpha, x, incx, y, incy, got, lda)
    same(got, want)


@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 2), (2, 1), ("C", "C"), ("T", "N")])
@pytest.mark.parametrize("m,n,k,pads,strides,batch", [
    (3, 4, 5, (0, 0, 0), (None, None, None), 1), (4, 3, 2, (1, 2, 3), (2, "0", 5), 3),
    (2, 3, 0, (0, 0, 0), (None, None, None), 2), (3, 2, 4, (0, 0, 0), ("0", None, 1), 2),
    (3, 3, 3, (0, 0, 0), (None, None, None), 0)])
@pytest.mark.parametrize("alpha,beta", [(1.5 - 0.5j, 0.25 + 1j), (2 + 1j, 0j), (0j, -1 + 0.5j), (0j, 1 + 0j)])
def test_gemm_reference_matches_loop(ta, tb, m, n, k, pads, strides, batch, alpha, beta):
    a_rows, a_cols = lc._stored(ta, m, k)
    b_rows, b_cols = lc._stored(tb, k, n)
    lda, ldb, ldc = max(1, a_rows) + pads[0], max(1, b_rows) + pads[1], max(1, m) + pads[2]
    sa, sb, sc = (lc._stride(s, one) for s, one in zip(strides, (lda * a_cols, ldb * b_cols, ldc * n)))
    A = buf(2 * lc._batch_len(lda * a_cols, sa, batch), 1)
    B = buf(2 * lc._batch_len(ldb * b_cols, sb, batch), 2)
    C0 = buf(2 * lc._batch_len(ldc * n, sc, batch), 3)
    if beta == 0:
        C0 = torch.full_like(C0, NAN)
    want = C0.clone()
    if not ((alpha == 0 or k == 0) and beta == 1):
        for b, i, j in itertools.product(range(batch), range(m), range(n)):
            acc = sum(op_elem(A, ta, b * sa, lda, i, p) * op_elem(B, tb, b * sb, ldb, p, j) for p in range(k))
            q = b * sc + i + j * ldc
            put(want, q, alpha * acc + (beta * get(want, q) if beta != 0 else 0))
    got = C0.clone()
    lc.gemm_batched_reference(ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, got, ldc, sc, batch)
    same(got, want)
    if batch == 1:
        plain = C0.clone()
        lc.gemm_reference(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, plain, ldc)
        same(plain, want)


def test_transpose_and_conjugate_transpose_differ():
    A, x = buf(2 * 16, 1), buf(2 * 4, 2)
    outs = []
    for trans in (1, 2):
        y = torch.zeros(8, dtype=torch.float64)
        lc.gemv_reference(trans, 4, 4, 1 + 0j, A, 4, x, 1, 0j, y, 1)
        outs.append(y)
    assert not torch.allclose(outs[0], outs[1])
    Au, Ac = buf(2 * 9, 3), buf(2 * 9, 3)
    xv, yv = buf(6, 4), buf(6, 5)
    lc._ger(False, False)(3, 3, 1 + 0j, xv, 1, yv, 1, Au, 3)
    lc._ger(True, False)(3, 3, 1 + 0j, xv, 1, yv, 1, Ac, 3)
    assert not torch.allclose(Au, Ac)


# ---- the error scale --------------------------------------------------------------------------


@pytest.mark.parametrize("name", IDS)
def test_error_scale_bounds_the_truth(name):
    """On |inputs| the plain reference cancels; the overload's scale counts every product positive."""
    op = registry.get(f"cublas::{name}")
    ov = op.overloads[0]
    assert op.tolerance.abs_scale and ov.scale is not None
    for spec in cases(name)[:6]:
        vals = {}
        for i, (k, v) in enumerate(spec.items()):
            if isinstance(v, OutputSpec):
                vals[k] = torch.full(v.shape, NAN, dtype=v.dtype)
            elif hasattr(v, "shape"):
                vals[k] = buf(v.shape[0], i).to(v.dtype)
            else:
                vals[k] = v
        truth = _reference(ov, vals)[0]
        scale = _reference(ov, vals, absolute=True)[0]
        finite = truth.isfinite()
        assert torch.equal(finite, scale.isfinite())
        assert bool((scale[finite] >= truth[finite].abs() * (1 - 1e-12)).all()), spec


# ---- the grids --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GEMV_IDS + GEMM_IDS)
def test_grids_draw_every_flag_and_quick_return(name):
    rows = cases(name)
    flag_keys = ("trans",) if "gemv" in name else ("transa", "transb")
    for key in flag_keys:
        assert {op_code(r[key]) for r in rows} == {0, 1, 2}, key
        assert any(isinstance(r[key], str) for r in rows) and any(isinstance(r[key], int) for r in rows)
    if "gemm" in name:
        pairs = {(op_code(r["transa"]), op_code(r["transb"])) for r in rows}
        assert {(0, 0), (2, 0), (0, 2), (2, 2)} <= pairs, pairs
        assert any(r["k"] == 0 for r in rows)
    assert any(r["m"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] == 1 for r in rows)
    assert any(r["alpha"] == 0 and r["beta"] != 1 for r in rows)
    out = "y" if "gemv" in name else "C"
    assert any(r["beta"] == 0 and isinstance(r[out], OutputSpec) for r in rows)  # poisoned: must not be read
    assert any(isinstance(r["alpha"], complex) and r["alpha"].imag != 0 for r in rows)
    assert any(isinstance(r["beta"], complex) and r["beta"].imag != 0 for r in rows)
    if "gemv" in name:
        assert any(r["lda"] > max(1, r["m"]) for r in rows)
        assert any(r["incx"] < 0 for r in rows) and any(r["incy"] < 0 for r in rows)
    else:
        assert any(r["lda"] > max(1, lc._stored(r["transa"], r["m"], r["k"])[0]) for r in rows)
        assert any(r["ldb"] > max(1, lc._stored(r["transb"], r["k"], r["n"])[0]) for r in rows)
        assert any(r["ldc"] > max(1, r["m"]) for r in rows)


@pytest.mark.parametrize("name", BATCHED)
def test_batched_grids_draw_strides_and_empty_batches(name):
    rows = cases(name)
    assert any(r["batchCount"] == 0 for r in rows)
    ins = ("strideA", "stridex") if "gemv" in name else ("strideA", "strideB")
    out = "stridey" if "gemv" in name else "strideC"
    for key in ins:
        assert any(r[key] == 0 for r in rows if r["batchCount"] > 1), key
    packed = {"stridey": lambda r: vector_extent(r["n" if op_code(r["trans"]) else "m"], r["incy"]),
              "strideC": lambda r: r["ldc"] * r["n"]}[out]
    assert any(r[out] > packed(r) for r in rows if r["batchCount"] > 1)  # gaps between outputs stay untouched
    assert all(r[out] >= packed(r) for r in rows)  # outputs never overlap


def test_ger_grids_draw_signs_pads_and_quick_returns():
    for name in GER_IDS:
        rows = cases(name)
        assert any(r["incx"] < 0 for r in rows) and any(r["incy"] < 0 for r in rows)
        assert any(r["lda"] > max(1, r["m"]) for r in rows)
        assert any(r["alpha"] == 0 for r in rows) and any(r["m"] == 0 for r in rows) and any(r["n"] == 0 for r in rows)
        assert any(r["alpha"].imag != 0 for r in rows)


def test_64_bit_case_passes_int32():
    """The float32 view a candidate indexes reaches past 2^31 elements in one perf case of the _64 API."""
    perf = cases("cublasCgemmStridedBatched_64", "perf")
    assert any(2 * (r["batchCount"] - 1) * r["strideA"] > 2**31 for r in perf)
    assert all(r["strideC"] * r["batchCount"] < 2**31 for r in cases("cublasCgemmStridedBatched", "perf"))


def test_precisions_and_tolerances():
    for name in IDS:
        op = registry.get(f"cublas::{name}")
        want = torch.float32 if name.startswith("cublasC") else torch.float64
        assert all(v.dtype == want for c in op.cases for v in c.sample.values.values() if hasattr(v, "dtype"))
        if want == torch.float64:
            assert op.tolerance.floor_ulps == 256.0


def written_positions(name: str, v: dict) -> list[int]:
    """Complex elements of the output a call may write, from BLAS rules alone."""
    batch = v.get("batchCount", 1)
    if name in GER_IDS:
        return [i + j * v["lda"] for j in range(v["n"]) for i in range(v["m"])] if v["alpha"] != 0 else []
    if name in GEMV_IDS:
        ylen = v["m"] if op_code(v["trans"]) == 0 else v["n"]
        if not v["m"] or not v["n"] or (v["alpha"] == 0 and v["beta"] == 1):
            return []
        return [b * v.get("stridey", 0) + pos(ylen, v["incy"], i) for b in range(batch) for i in range(ylen)]
    if (v["alpha"] == 0 or v["k"] == 0) and v["beta"] == 1:
        return []
    return [b * v.get("strideC", 0) + i + j * v["ldc"] for b in range(batch) for j in range(v["n"])
            for i in range(v["m"])]


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
