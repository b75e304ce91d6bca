"""The cuBLAS references against hand-written float64 BLAS loops, and the records' shape.

The loops follow the netlib reference BLAS (saxpy.f, dgemv.f, sgemm.f) element by element, with
0-based column-major addressing, so a wrong stride, transpose or quick return shows up here.
"""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas import family, level1, level2, level3, library
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec

NAN = float("nan")
IDS = ("cublas::cublasSaxpy_v2", "cublas::cublasDgemv_v2", "cublas::cublasSgemm_v2")


def buf(n: int, seed: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.randn(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


def start(n: int, inc: int) -> int:
    return 0 if inc > 0 else (1 - n) * inc


def loop_axpy(n, alpha, x, incx, y, incy):
    y = y.tolist()
    if n > 0 and alpha != 0:
        for k in range(n):
            y[start(n, incy) + k * incy] += alpha * x[start(n, incx) + k * incx].item()
    return torch.tensor(y, dtype=torch.float64)


def loop_gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    y = y.tolist()
    t = family.op_code(trans)
    if m == 0 or n == 0 or (alpha == 0 and beta == 1):
        return torch.tensor(y, dtype=torch.float64)
    xlen, ylen = (n, m) if t == 0 else (m, n)
    for r in range(ylen):
        acc = 0.0
        for c in range(xlen):
            a = A[r + c * lda] if t == 0 else A[c + r * lda]
            acc += a.item() * x[start(xlen, incx) + c * incx].item()
        iy = start(ylen, incy) + r * incy
        y[iy] = alpha * acc + (0.0 if beta == 0 else beta * y[iy])
    return torch.tensor(y, dtype=torch.float64)


def loop_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    C = C.tolist()
    a_t, b_t = family.op_code(ta) != 0, family.op_code(tb) != 0
    if m == 0 or n == 0 or ((alpha == 0 or k == 0) and beta == 1):
        return torch.tensor(C, dtype=torch.float64)
    for j in range(n):
        for i in range(m):
            acc = 0.0
            if alpha != 0:
                for p in range(k):
                    a = A[p + i * lda] if a_t else A[i + p * lda]
                    b = B[j + p * ldb] if b_t else B[p + j * ldb]
                    acc += a.item() * b.item()
            C[i + j * ldc] = alpha * acc + (0.0 if beta == 0 else beta * C[i + j * ldc])
    return torch.tensor(C, dtype=torch.float64)


def same(a: torch.Tensor, b: torch.Tensor) -> None:
    torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("n,alpha,incx,incy", [
    (1, 1.0, 1, 1), (7, 1.5, 1, 1), (33, -0.75, -1, 1), (9, 2.0, 2, -3), (5, -2.5, -3, -2), (0, 1.0, 1, 1),
])
def test_saxpy_matches_loops(n, alpha, incx, incy):
    x, y = buf(family.vector_extent(n, incx), 1), buf(family.vector_extent(n, incy), 2)
    want = loop_axpy(n, alpha, x, incx, y, incy)
    level1.saxpy_reference(n, alpha, x, incx, y, incy)
    same(y, want)


def test_saxpy_alpha_zero_does_not_read_x():
    x, y = torch.full((4,), NAN, dtype=torch.float64), buf(4, 3)
    before = y.clone()
    level1.saxpy_reference(4, 0.0, x, 1, y, 1)
    same(y, before)


def test_saxpy_negative_increment_walks_backwards():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    y = torch.zeros(3, dtype=torch.float64)
    level1.saxpy_reference(3, 1.0, x, -1, y, 1)
    same(y, torch.tensor([3.0, 2.0, 1.0], dtype=torch.float64))


GEMV_CASES = [
    (0, 7, 13, 9, 2, 1, 1.5, -0.5), (1, 33, 5, 33, -1, 3, -0.75, 1.0), (2, 6, 4, 8, 1, -2, 2.0, 0.0),
    ("N", 5, 6, 5, -3, -1, 0.5, 2.0), ("T", 4, 9, 7, 1, 1, 1.0, 0.0), ("C", 3, 3, 3, -2, 2, 1.0, 0.25),
    (0, 6, 6, 6, 1, 1, 0.0, -1.5), (1, 0, 5, 1, 1, 1, 1.0, 0.5), (0, 5, 0, 5, 1, 1, 1.0, 0.5),
]


@pytest.mark.parametrize("trans,m,n,lda,incx,incy,alpha,beta", GEMV_CASES)
def test_gemv_matches_loops(trans, m, n, lda, incx, incy, alpha, beta):
    xlen, ylen = (n, m) if family.op_code(trans) == 0 else (m, n)
    A, x, y = buf(lda * n, 4), buf(family.vector_extent(xlen, incx), 5), buf(family.vector_extent(ylen, incy), 6)
    want = loop_gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy)
    level2.gemv_reference(trans, m, n, alpha, A, lda, x, incx, beta, y, incy)
    same(y, want)


def test_gemv_beta_zero_ignores_nan_and_keeps_gaps():
    m, n, incy = 5, 4, -2
    y = torch.full((family.vector_extent(m, incy),), NAN, dtype=torch.float64)
    level2.gemv_reference(0, m, n, 1.0, buf(m * n, 7), m, buf(n, 8), 1, 0.0, y, incy)
    assert not y[0::2].isnan().any()
    assert y[1::2].isnan().all()


def test_gemv_rejects_small_lda():
    with pytest.raises(ValueError):
        level2.gemv_reference(0, 4, 2, 1.0, buf(8, 1), 3, buf(2, 2), 1, 0.0, buf(4, 3), 1)


@pytest.mark.parametrize("ta", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("tb", [0, 1, "C"])
def test_gemm_matches_loops_every_transpose(ta, tb):
    m, n, k, pad = 5, 4, 3, 2
    a_rows, a_cols = (m, k) if family.op_code(ta) == 0 else (k, m)
    b_rows, b_cols = (k, n) if family.op_code(tb) == 0 else (n, k)
    lda, ldb, ldc = a_rows + pad, b_rows + 1, m + pad
    A, B, C = buf(lda * a_cols, 1), buf(ldb * b_cols, 2), buf(ldc * n, 3)
    want = loop_gemm(ta, tb, m, n, k, 1.25, A, lda, B, ldb, -0.5, C, ldc)
    level3.sgemm_reference(ta, tb, m, n, k, 1.25, A, lda, B, ldb, -0.5, C, ldc)
    same(C, want)


def test_gemm_beta_zero_ignores_nan_and_keeps_padding():
    m, n, k, ldc = 3, 4, 2, 5
    C = torch.full((ldc * n,), NAN, dtype=torch.float64)
    level3.sgemm_reference(0, 0, m, n, k, 1.0, buf(m * k, 1), m, buf(k * n, 2), k, 0.0, C, ldc)
    grid = C.view(n, ldc)
    assert not grid[:, :m].isnan().any()
    assert grid[:, m:].isnan().all()


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0])
def test_gemm_k_zero_scales_c(beta):
    m, n = 4, 3
    C = buf(m * n, 4)
    want = torch.zeros_like(C) if beta == 0 else beta * C
    level3.sgemm_reference(0, 0, m, n, 0, 1.0, torch.empty(0, dtype=torch.float64), m,
                           buf(n, 5), 1, beta, C, m)
    same(C, want)


def test_gemm_alpha_zero_does_not_read_a_or_b():
    m, n, k = 3, 3, 3
    nan = torch.full((9,), NAN, dtype=torch.float64)
    C = buf(9, 6)
    want = -1.0 * C
    level3.sgemm_reference(0, 0, m, n, k, 0.0, nan, m, nan.clone(), k, -1.0, C, m)
    same(C, want)


def test_gemm_quick_returns_leave_c_alone():
    C = buf(6, 7)
    before = C.clone()
    level3.sgemm_reference(0, 0, 0, 3, 2, 1.0, buf(2, 1), 1, buf(6, 2), 2, 0.5, C, 2)
    level3.sgemm_reference(0, 0, 2, 3, 0, 1.0, buf(0, 1), 2, buf(3, 2), 1, 1.0, C, 2)
    same(C, before)


def test_gemm_float32_matches_float64_closely():
    m, n, k = 7, 5, 33
    A, B, C = buf(m * k, 1), buf(k * n, 2), buf(m * n, 3)
    c64, c32 = C.clone(), C.to(torch.float32)
    level3.sgemm_reference(0, 0, m, n, k, 1.5, A, m, B, k, 0.5, c64, m)
    level3.sgemm_reference(0, 0, m, n, k, 1.5, A.float(), m, B.float(), k, 0.5, c32, m)
    assert c32.dtype == torch.float32
    torch.testing.assert_close(c32.double(), c64, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bad", [3, -1, "X", True, 1.0])
def test_op_code_rejects_unknown_flags(bad):
    with pytest.raises(ValueError):
        family.op_code(bad)


def test_op_code_accepts_ints_and_letters():
    assert [family.op_code(v) for v in (0, 1, 2, "N", "t", "C")] == [0, 1, 2, 0, 1, 2]


# ---- the records ------------------------------------------------------------------------------


def test_records_are_registered():
    for oid in IDS:
        op = registry.get(oid)
        assert op.source == "cublas" and op.baseline is library.baseline
        assert {c.size for c in op.cases} == {"small", "large", "perf"}
    assert set(IDS) <= {op.id for op in registry.specified("cublas")}  # other groups add theirs


def test_sgemv_twin_is_float32_and_unpublished():
    op = level2.gemv_operator("S")
    assert op.id == "cublas::cublasSgemv_v2" and op.id not in registry.all_ids("cublas")
    assert all(v.dtype == torch.float32 for c in op.cases for v in c.sample.values.values()
               if isinstance(v, (TensorSpec, OutputSpec)))


def _addressed(ov_name: str, v: dict) -> dict[str, int]:
    """Elements each tensor argument must hold for the call, from BLAS rules alone."""
    if ov_name == "cublasSaxpy_v2":
        return {"x": family.vector_extent(v["n"], v["incx"]), "y": family.vector_extent(v["n"], v["incy"])}
    if ov_name.endswith("gemv_v2"):
        xl, yl = (v["n"], v["m"]) if family.op_code(v["trans"]) == 0 else (v["m"], v["n"])
        return {"A": family.matrix_extent(v["m"], v["n"], v["lda"]),
                "x": family.vector_extent(xl, v["incx"]), "y": family.vector_extent(yl, v["incy"])}
    ar, ac = (v["m"], v["k"]) if family.op_code(v["transa"]) == 0 else (v["k"], v["m"])
    br, bc = (v["k"], v["n"]) if family.op_code(v["transb"]) == 0 else (v["n"], v["k"])
    return {"A": family.matrix_extent(ar, ac, v["lda"]), "B": family.matrix_extent(br, bc, v["ldb"]),
            "C": family.matrix_extent(v["m"], v["n"], v["ldc"])}


@pytest.mark.parametrize("oid", IDS)
def test_cases_follow_the_signature_and_hold_enough_storage(oid):
    op = registry.get(oid)
    ov = op.overloads[0]
    names = [p.name for p in ov.params]
    assert ov.writes == (ov.params[[p.writes for p in ov.params].index(True)].name,)
    for case in op.cases:
        v = case.sample.values
        assert list(v) == names
        for name, need in _addressed(ov.name, v).items():
            assert v[name].shape[0] >= need, (case.name, name)
        enums = [v[p] for p in ("trans", "transa", "transb") if p in v]
        assert all(isinstance(e, (int, str)) for e in enums)


@pytest.mark.parametrize("oid", IDS)
def test_enums_use_both_forms_and_beta_zero_gets_poisoned_output(oid):
    op = registry.get(oid)
    small = [c.sample.values for c in op.cases if c.size == "small"]
    if oid != "cublas::cublasSaxpy_v2":
        flags = [v.get("trans", v.get("transa")) for v in small]
        assert any(isinstance(f, str) for f in flags) and any(isinstance(f, int) for f in flags)
        out = op.overloads[0].writes[0]
        assert any(isinstance(v[out], OutputSpec) and v["beta"] == 0 for v in small)


@pytest.mark.parametrize("oid", IDS)
def test_small_cases_are_interpreter_sized(oid):
    op = registry.get(oid)
    for case in op.select_cases(sizes=("small",)):
        total = sum(math.prod(v.shape) for v in case.sample.values.values() if isinstance(v, (TensorSpec, OutputSpec)))
        assert total <= 20_000, case.name


@pytest.mark.parametrize("oid", IDS)
def test_reference_runs_on_every_small_case_and_only_writes_addressed_elements(oid):
    op = registry.get(oid)
    ov = op.overloads[0]
    out = ov.writes[0]
    for i, case in enumerate(op.select_cases(sizes=("small",))):
        vals = materialize(case.sample.values, i, "cpu")
        before = vals[out].clone()
        args, kwargs = ov.split(vals)
        ov.reference(*args, **kwargs)
        touched = torch.zeros_like(before, dtype=torch.bool)
        v = case.sample.values
        if ov.name == "cublasSaxpy_v2":
            n, inc = v["n"], v["incy"]
            idx = [start(n, inc) + k * inc for k in range(n)] if n > 0 and v["alpha"] != 0 else []
        elif ov.name.endswith("gemv_v2"):
            yl = v["m"] if family.op_code(v["trans"]) == 0 else v["n"]
            live = v["m"] > 0 and v["n"] > 0
            idx = [start(yl, v["incy"]) + k * v["incy"] for k in range(yl)] if live else []
        else:
            idx = [i + j * v["ldc"] for j in range(v["n"]) for i in range(v["m"])]
        touched[idx] = True
        assert torch.equal(vals[out][~touched].isnan(), before[~touched].isnan()), case.name
        same(vals[out][~touched & ~before.isnan()], before[~touched & ~before.isnan()])
        if v.get("beta") == 0:
            assert not vals[out][touched].isnan().any(), case.name


def test_no_baseline_on_cpu():
    for oid in IDS:
        op = registry.get(oid)
        ov = op.overloads[0]
        assert op.baseline("cpu", ov) is None
        assert op.native("cpu", ov) is ov.reference


def test_library_reports_extents_like_blas():
    assert library.vector_extent(0, -3) == 0
    assert library.vector_extent(4, -3) == 10
    assert library.matrix_extent(3, 4, 5) == 18
    assert library.matrix_extent(0, 4, 5) == 0


def test_every_64_bit_routine_addresses_past_2_31_elements_in_a_perf_case():
    """The _64 API exists for sizes past int32: each such routine has a perf case (on the GPU) whose
    operand, in the real view a kernel indexes, holds more than 2^31 elements."""
    wide = [op for op in registry.specified() if op.source == "cublas" and op.id.endswith("_64")]
    assert len(wide) == 4
    for op in wide:
        sizes = [math.prod(v.shape) for c in op.cases if c.size == "perf"
                 for v in c.sample.values.values() if isinstance(v, TensorSpec)]
        assert max(sizes) > 2**31, op.id
