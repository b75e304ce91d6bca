"""Complex batched BLAS through arrays of device pointers: cublasZgemmBatched, cublasZgemvBatched,
cublasCgemvBatched_64, cublasZtrsmBatched.

The pointer contract of suite/cublas/pointers.py with the complex one of suite/cublas/complex.py:
each pool is an interleaved real tensor, and a pointer is the address of a complex element (so
consecutive complex elements are 2 * itemsize bytes apart). op = C conjugates, unlike T. The same
grids as the real routines, with complex alpha and beta (0 and 1 kept exact: they decide the quick
returns and whether C/y is read). Semantics: cuBLAS's cublas<t>gemmBatched / gemvBatched /
trsmBatched, and the reference BLAS's zgemm.f / zgemv.f / ztrsm.f per entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import SUM_TOLERANCE
from ..spec import Joint, Operator, Overload, Param, Size, Tolerance
from .batched import (
    FLOAT64_MATMUL,
    GEMM_BATCHED,
    GEMV_BATCHED,
    TRSM_BATCHED,
    TRSM_ENUM_DOC,
    batch_count,
    stored_shape,
)
from .complex import REAL, bound_matmul, complex_pointer_doc
from .family import (
    ENUM_DOC,
    OP_N,
    blas_operator,
    matrix_layout,
    matrix_len,
    op_code,
    op_layout,
    samples,
    signature,
)
from .library import OP_C, diag_code, fill_code, side_code, vector_extent
from .pointers import ARRAY_DOC, Entries, entries, layout, pointers, pool, pool_param

COMPLEX_ARRAY_DOC = (
    "With complex data, each pointer is the address of a complex element: element (i, j) of a matrix is the "
    "(real, imaginary) pair at address + (i + j*ld) * 2 * itemsize bytes, where itemsize is the real "
    "type's; cast the address to a pointer to the real type and read positions 2*p and 2*p + 1."
)


def _cx(v: float) -> complex:
    """A grid's real scalar as a complex one; 0 and 1 stay exact (they decide quick returns)."""
    return complex(v, 0.0 if v in (0.0, 1.0) else 0.5)


def _cop(es: Entries, trans: Any, rows: int, cols: int, ld: int, bound: bool) -> torch.Tensor:
    """Every entry's op(M); conjugated for C, except for an error bound (on |inputs|, where conjugation
    would only flip signs that the bound counts positive)."""
    view = es.read(*op_layout(trans, rows, cols, ld))
    return view.conj() if op_code(trans) == OP_C and not bound else view


def _scaled(s: complex, z: torch.Tensor, bound: bool) -> torch.Tensor:
    """s * z, or its bound: every real product counted positive."""
    if not bound:
        return s * z
    sr, si = abs(complex(s).real), abs(complex(s).imag)
    return torch.complex(sr * z.real + si * z.imag, sr * z.imag + si * z.real)


def _pool_entries(array: torch.Tensor, count: int, extent: int) -> Entries:
    return entries(array, count, extent, complex_data=True)


def _complex_layout(count: int, extent: int, distinct: int, gap: int, rev: bool) -> tuple[tuple[int, ...], int]:
    """`layout` in complex elements, returned in the pool's real elements."""
    offsets, length = layout(count, extent, distinct, gap, rev)
    return tuple(2 * o for o in offsets), 2 * length


# ---- gemmBatched -------------------------------------------------------------------------------

def _zgemm_batched(bound: bool, transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any,
                   Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, beta: Any, Carray: torch.Tensor,
                   ldc: int, batchCount: int) -> None:
    count = batch_count(batchCount)
    a_rows, a_cols = stored_shape(transa, m, k)
    b_rows, b_cols = stored_shape(transb, k, n)
    for name, ld, rows in (("lda", lda, a_rows), ("ldb", ldb, b_rows), ("ldc", ldc, m)):
        if ld < max(1, rows):
            raise ValueError(f"{name}={ld} < max(1, {rows})")
    As = _pool_entries(Aarray, count, matrix_len(a_rows, a_cols, lda))
    Bs = _pool_entries(Barray, count, matrix_len(b_rows, b_cols, ldb))
    Cs = _pool_entries(Carray, count, matrix_len(m, n, ldc))
    if m <= 0 or n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return
    if count == 0:
        return
    c_at = matrix_layout(m, n, ldc)
    if alpha == 0 or k <= 0:
        prod = torch.zeros((count, m, n), dtype=Cs.pool.dtype, device=Cs.pool.device)
    else:
        a, b = _cop(As, transa, m, k, lda, bound), _cop(Bs, transb, k, n, ldb, bound)
        prod = _scaled(alpha, bound_matmul(a, b) if bound else a @ b, bound)
    Cs.write(*c_at, prod if beta == 0 else prod + _scaled(beta, Cs.read(*c_at), bound))


GEMM_PARAMS = (
    *(Param(n, t) for n, t in [("transa", "int | str"), ("transb", "int | str"), ("m", "int"), ("n", "int"),
                               ("k", "int"), ("alpha", "complex"), ("Aarray", "Tensor"), ("lda", "int"),
                               ("Barray", "Tensor"), ("ldb", "int"), ("beta", "complex"), ("Carray", "Tensor"),
                               ("ldc", "int"), ("batchCount", "int")]),
    pool_param("A_pool", "Aarray"), pool_param("B_pool", "Barray"), pool_param("C_pool", "Carray", writes=True),
)


def zgemm_batched_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    dtype = REAL["Z"]

    def row(ta: Any, tb: Any, m: int, n: int, k: int, pa: int, pb: int, pc: int, alpha: float, beta: float,
            poison: bool, count: int, da: int, db: int, gap: int, rev: bool) -> dict[str, Any]:
        a_rows, a_cols = stored_shape(ta, m, k)
        b_rows, b_cols = stored_shape(tb, k, n)
        lda, ldb, ldc = max(1, a_rows) + pa, max(1, b_rows) + pb, max(1, m) + pc
        a_off, a_len = _complex_layout(count, matrix_len(a_rows, a_cols, lda), da, gap, rev)
        b_off, b_len = _complex_layout(count, matrix_len(b_rows, b_cols, ldb), db, gap, not rev)
        c_off, c_len = _complex_layout(count, matrix_len(m, n, ldc), count, gap, rev)
        return {"A_pool": pool(a_len, dtype), "B_pool": pool(b_len, dtype), "C_pool": pool(c_len, dtype, poison),
                "transa": ta, "transb": tb, "m": m, "n": n, "k": k, "alpha": _cx(alpha),
                "Aarray": pointers("A_pool", a_off, da, gap, rev), "lda": lda,
                "Barray": pointers("B_pool", b_off, db, gap, not rev), "ldb": ldb, "beta": _cx(beta),
                "Carray": pointers("C_pool", c_off, count, gap, rev), "ldc": ldc, "batchCount": count}

    return iter(samples(row(*r) for r in GEMM_BATCHED[size]))


ZGEMM_OVERLOAD = Overload(
    name="cublasZgemmBatched",
    func_name="cublasZgemmBatched",
    params=GEMM_PARAMS,
    signature=signature("cublasZgemmBatched", GEMM_PARAMS[:14]),
    reference=partial(_zgemm_batched, False),
    scale=partial(_zgemm_batched, True),
    doc=(
        "For each b < batchCount: C[b] := alpha * op(A[b]) @ op(B[b]) + beta * C[b], where A[b], B[b] and C[b] "
        "are the column-major complex128 matrices whose addresses are Aarray[b], Barray[b] and Carray[b]; "
        "op(A[b]) is m x k, op(B[b]) k x n, C[b] m x n; op(M) = M for N, M^T for T and the conjugate transpose "
        "M^H for C. A[b] is stored m x k (lda >= max(1, m)) when transa is N and k x m (lda >= max(1, k)) "
        "otherwise; B[b] is stored k x n (ldb >= max(1, k)) when transb is N and n x k (ldb >= max(1, n)) "
        "otherwise; ldc >= max(1, m), and rows m..ldc-1 of each column of C[b] are padding that must stay "
        "unchanged. Compute in float64. alpha and beta are Python complex. When beta == 0, C[b] is not read (it "
        "may hold NaN). When k == 0 or alpha == 0, C[b] := beta * C[b] (0 when beta == 0) and A, B are not read. "
        "When m == 0, n == 0 or batchCount == 0, or (k == 0 or alpha == 0) and beta == 1, the routine returns at "
        f"once. Writes through Carray and returns None. {ENUM_DOC} {ARRAY_DOC} {COMPLEX_ARRAY_DOC} "
        f"{complex_pointer_doc('Z')}"
    ),
)


# ---- gemvBatched -------------------------------------------------------------------------------

def _cgemv_batched(bound: bool, trans: Any, m: int, n: int, alpha: Any, Aarray: torch.Tensor, lda: int,
                   xarray: torch.Tensor, incx: int, beta: Any, yarray: torch.Tensor, incy: int,
                   batchCount: int) -> None:
    count = batch_count(batchCount)
    if lda < max(1, m):
        raise ValueError(f"lda={lda} < max(1, m={m})")
    xlen, ylen = (n, m) if op_code(trans) == OP_N else (m, n)
    As = _pool_entries(Aarray, count, matrix_len(m, n, lda))
    xs = _pool_entries(xarray, count, vector_extent(xlen, incx))
    ys = _pool_entries(yarray, count, vector_extent(ylen, incy))
    if m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return
    if count == 0:
        return
    if alpha == 0:
        prod = torch.zeros((count, ylen), dtype=ys.pool.dtype, device=ys.pool.device)
    else:
        a, v = _cop(As, trans, ylen, xlen, lda, bound), xs.read_vectors(xlen, incx)[..., None]
        prod = _scaled(alpha, (bound_matmul(a, v) if bound else a @ v)[..., 0], bound)
    ys.write_vectors(ylen, incy, prod if beta == 0 else prod + _scaled(beta, ys.read_vectors(ylen, incy), bound))


GEMV_PARAMS = (
    *(Param(n, t) for n, t in [("trans", "int | str"), ("m", "int"), ("n", "int"), ("alpha", "complex"),
                               ("Aarray", "Tensor"), ("lda", "int"), ("xarray", "Tensor"), ("incx", "int"),
                               ("beta", "complex"), ("yarray", "Tensor"), ("incy", "int"), ("batchCount", "int")]),
    pool_param("A_pool", "Aarray"), pool_param("x_pool", "xarray"), pool_param("y_pool", "yarray", writes=True),
)


# One perf case of CgemvBatched_64 addresses past 2^31 float32 elements within one matrix: lda 2^25 + 64
# over 33 columns spans 1,073,743,936 complex64 (2^31 + 3,968 floats of the interleaved view, 8.6 GB),
# two entries point at it; cheap in flops, it proves 64-bit offsets.
CGEMV64_BIG = (0, 64, 33, 2**25, 1, 1, 1.0, 0.0, False, 2, 1, 2, 0, False)


def cgemv_batched_sampler(prec: str, extra_perf: tuple[tuple[Any, ...], ...] = ()):
    dtype = REAL[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(trans: Any, m: int, n: int, pad: int, incx: int, incy: int, alpha: float, beta: float,
                poison: bool, count: int, da: int, dx: int, gap: int, rev: bool) -> dict[str, Any]:
            xlen, ylen = (n, m) if op_code(trans) == OP_N else (m, n)
            lda = max(1, m) + pad
            a_off, a_len = _complex_layout(count, matrix_len(m, n, lda), da, gap, rev)
            x_off, x_len = _complex_layout(count, vector_extent(xlen, incx), dx, gap, not rev)
            y_off, y_len = _complex_layout(count, vector_extent(ylen, incy), count, gap, rev)
            return {"A_pool": pool(a_len, dtype), "x_pool": pool(x_len, dtype), "y_pool": pool(y_len, dtype, poison),
                    "trans": trans, "m": m, "n": n, "alpha": _cx(alpha),
                    "Aarray": pointers("A_pool", a_off, da, gap, rev), "lda": lda,
                    "xarray": pointers("x_pool", x_off, dx, gap, not rev), "incx": incx, "beta": _cx(beta),
                    "yarray": pointers("y_pool", y_off, count, gap, rev), "incy": incy, "batchCount": count}

        return iter(samples(row(*r) for r in GEMV_BATCHED[size] + (list(extra_perf) if size == "perf" else [])))

    return sampler


def cgemv_batched_overload(name: str, prec: str) -> Overload:
    cdt = "complex64" if prec == "C" else "complex128"
    return Overload(
        name=name,
        func_name=name,
        params=GEMV_PARAMS,
        signature=signature(name, GEMV_PARAMS[:12]),
        reference=partial(_cgemv_batched, False),
        scale=partial(_cgemv_batched, True),
        doc=(
            f"For each b < batchCount: y[b] := alpha * op(A[b]) @ x[b] + beta * y[b], where A[b] is the m x n "
            f"column-major {cdt} matrix at Aarray[b] (lda >= max(1, m)), x[b] and y[b] the vectors at xarray[b] "
            "and yarray[b]; op(A) = A for N, A^T for T and the conjugate transpose A^H for C. For N, x[b] has n "
            "logical elements and y[b] m; for T/C, x[b] has m and y[b] n. Element k of a vector with increment "
            "inc (nonzero, maybe negative) is complex element k*inc when inc > 0 and (len-1-k)*|inc| when "
            "inc < 0 (the reference-BLAS rule). alpha and beta are Python complex. When beta == 0, y[b] is not "
            "read (it may hold NaN). When alpha == 0, y[b] := beta * y[b] and A, x are not read. When m == 0, "
            "n == 0 or batchCount == 0, or alpha == 0 and beta == 1, the routine returns at once. Writes "
            f"through yarray and returns None. {ENUM_DOC} {ARRAY_DOC} {COMPLEX_ARRAY_DOC} "
            f"{complex_pointer_doc(prec)}"
        ),
    )


# ---- trsmBatched -------------------------------------------------------------------------------

def ztrsm_batched_reference(side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, alpha: Any,
                            Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, batchCount: int) -> None:
    """Each entry: B := X solving op(A) X = alpha B (left) or X op(A) = alpha B (right), as ztrsm.f: only
    the uplo triangle is read, not the diagonal when unit; op = C conjugates; alpha == 0 sets B := 0."""
    count = batch_count(batchCount)
    left, upper = side_code(side) == 0, fill_code(uplo) == 1
    unit, op = diag_code(diag) == 1, op_code(trans)
    k = m if left else n
    for name, ld, rows in (("lda", lda, k), ("ldb", ldb, m)):
        if ld < max(1, rows):
            raise ValueError(f"{name}={ld} < max(1, {rows})")
    As = _pool_entries(Aarray, count, matrix_len(k, k, lda))
    Bs = _pool_entries(Barray, count, matrix_len(m, n, ldb))
    if count == 0 or m <= 0 or n <= 0:
        return
    dev = Bs.pool.device
    b_at = matrix_layout(m, n, ldb)
    if alpha == 0:
        Bs.write(*b_at, torch.zeros((count, m, n), dtype=Bs.pool.dtype, device=dev))
        return
    stored = As.read(*matrix_layout(k, k, lda))
    tri = stored.triu() if upper else stored.tril()
    if unit:
        tri = torch.where(torch.eye(k, dtype=torch.bool, device=dev), 1.0, tri).to(tri.dtype)
    t = tri if op == OP_N else tri.mT.conj() if op == OP_C else tri.mT
    Bs.write(*b_at, torch.linalg.solve_triangular(t, alpha * Bs.read(*b_at), upper=upper == (op == OP_N), left=left))


def _complex_triangular_pool(gen: torch.Generator, *, length: int, k: int, lda: int, offsets: tuple[int, ...],
                             upper: bool, unit: bool, dtype: torch.dtype) -> torch.Tensor:
    """Interleaved; NaN wherever no read may reach (the other triangle, a unit diagonal, padding, gaps);
    each matrix well conditioned: a diagonal of modulus in [1, 2] at a random phase, off-diagonal
    parts in (-1/(2k), 1/(2k)), so every row's off-diagonal sum stays below the diagonal."""
    dev, f64 = gen.device, torch.float64
    pool = torch.full((length // 2,), complex("nan+nanj"), dtype=torch.complex128, device=dev)
    slots = Entries(pool, tuple(sorted({o // 2 for o in offsets})))  # every distinct matrix drawn at once
    count = len(slots.offsets)
    parts = (torch.rand((count, 2, k, k), generator=gen, dtype=f64, device=dev) * 2 - 1) / (2 * max(k, 1))
    off = torch.complex(parts[:, 0], parts[:, 1])
    modulus = 1 + torch.rand((count, k), generator=gen, dtype=f64, device=dev)
    phase = torch.rand((count, k), generator=gen, dtype=f64, device=dev) * 6.283185307179586
    mat = (off.triu(1) if upper else off.tril(-1)) + (0 if unit else torch.diag_embed(torch.polar(modulus, phase)))
    keep = torch.ones(k, k, dtype=torch.bool, device=dev).triu(1 if unit else 0)
    keep = keep if upper else keep.t()
    if count:
        slots.write(*matrix_layout(k, k, lda), torch.where(keep, mat, complex("nan+nanj")))
    return torch.view_as_real(pool).flatten().to(dtype)


TRSM_PARAMS = (
    *(Param(n, t) for n, t in [("side", "int | str"), ("uplo", "int | str"), ("trans", "int | str"),
                               ("diag", "int | str"), ("m", "int"), ("n", "int"), ("alpha", "complex"),
                               ("Aarray", "Tensor"), ("lda", "int"), ("Barray", "Tensor"), ("ldb", "int"),
                               ("batchCount", "int")]),
    pool_param("A_pool", "Aarray"), pool_param("B_pool", "Barray", writes=True),
)


def ztrsm_batched_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    dtype = REAL["Z"]

    def row(side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, pa: int, pb: int, alpha: float,
            poison: bool, count: int, da: int, gap: int, rev: bool) -> dict[str, Any]:
        k = m if side_code(side) == 0 else n
        lda, ldb = max(1, k) + pa, max(1, m) + pb
        a_off, a_len = _complex_layout(count, matrix_len(k, k, lda), da, gap, rev)
        b_off, b_len = _complex_layout(count, matrix_len(m, n, ldb), count, gap, not rev)
        upper, unit = fill_code(uplo) == 1, diag_code(diag) == 1
        a_pool = Joint((a_len,), dtype, (), partial(_complex_triangular_pool, length=a_len, k=k, lda=lda,
                                                   offsets=a_off, upper=upper, unit=unit, dtype=dtype),
                       f"{'upper' if upper else 'lower'}{' unit' if unit else ''} triangular, well conditioned")
        return {"A_pool": a_pool, "B_pool": pool(b_len, dtype, poison),
                "side": side, "uplo": uplo, "trans": trans, "diag": diag, "m": m, "n": n, "alpha": _cx(alpha),
                "Aarray": pointers("A_pool", a_off, da, gap, rev), "lda": lda,
                "Barray": pointers("B_pool", b_off, count, gap, not rev), "ldb": ldb, "batchCount": count}

    return iter(samples(row(*r) for r in TRSM_BATCHED[size]))


ZTRSM_OVERLOAD = Overload(
    name="cublasZtrsmBatched",
    func_name="cublasZtrsmBatched",
    params=TRSM_PARAMS,
    signature=signature("cublasZtrsmBatched", TRSM_PARAMS[:12]),
    reference=ztrsm_batched_reference,
    doc=(
        "For each b < batchCount, with A[b] and B[b] the column-major complex128 matrices at Aarray[b] and "
        "Barray[b]: solves op(A[b]) X = alpha * B[b] when side is left (A[b] is m x m, lda >= max(1, m)) or "
        "X op(A[b]) = alpha * B[b] when side is right (A[b] is n x n, lda >= max(1, n)), and overwrites B[b] "
        "(m x n, ldb >= max(1, m)) with X. A[b] is triangular: only its uplo triangle is read (the other may "
        "hold anything, NaN included), and its diagonal is not read but taken as ones when diag is unit. "
        "op(A) = A for N, A^T for T and the conjugate transpose A^H for C. alpha is a Python complex; when "
        "alpha == 0, B[b] := 0 and neither A nor B is read (B may hold NaN). When m == 0, n == 0 or "
        f"batchCount == 0 the routine returns at once. Returns None. {TRSM_ENUM_DOC} {ENUM_DOC} {ARRAY_DOC} "
        f"{COMPLEX_ARRAY_DOC} {complex_pointer_doc('Z')}"
    ),
)


NOTES = ("Negative batchCount, zero increments and leading dimensions below the minimum "
         "(CUBLAS_STATUS_INVALID_VALUE) are not drawn; output pointers never repeat (cuBLAS leaves overlapping "
         "outputs undefined). The error scale counts every real product positive (complex.bound_matmul).")


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasZgemmBatched": partial(
        blas_operator, "cublasZgemmBatched", "blas3_batched",
        "cuBLAS double-complex batched matrix product through arrays of device pointers: C[b] := alpha * "
        "op(A[b]) @ op(B[b]) + beta * C[b] for every batch entry, op N, T or conjugate transpose.",
        ZGEMM_OVERLOAD, zgemm_batched_sampler, tolerance=FLOAT64_MATMUL, notes=NOTES),
    "cublasZgemvBatched": partial(
        blas_operator, "cublasZgemvBatched", "blas2_batched",
        "cuBLAS double-complex batched matrix-vector product through arrays of device pointers: y[b] := "
        "alpha * op(A[b]) @ x[b] + beta * y[b], op N, T or conjugate transpose.",
        cgemv_batched_overload("cublasZgemvBatched", "Z"), cgemv_batched_sampler("Z"),
        tolerance=Tolerance(floor_ulps=256.0, abs_scale=True), notes=NOTES),
    "cublasCgemvBatched_64": partial(
        blas_operator, "cublasCgemvBatched_64", "blas2_batched",
        "cuBLAS single-complex batched matrix-vector product (64-bit sizes) through arrays of device pointers: "
        "y[b] := alpha * op(A[b]) @ x[b] + beta * y[b], op N, T or conjugate transpose.",
        cgemv_batched_overload("cublasCgemvBatched_64", "C"), cgemv_batched_sampler("C", (CGEMV64_BIG,)),
        tolerance=SUM_TOLERANCE,
        notes=NOTES + " One perf case addresses past 2^31 float32 elements within one matrix (8.6 GB of A)."),
    "cublasZtrsmBatched": partial(
        blas_operator, "cublasZtrsmBatched", "blas3_batched",
        "cuBLAS double-complex batched triangular solve through arrays of device pointers: op(A[b]) X = "
        "alpha * B[b] or X op(A[b]) = alpha * B[b] for every batch entry, op N, T or conjugate transpose.",
        ZTRSM_OVERLOAD, ztrsm_batched_sampler, tolerance=Tolerance(floor_ulps=256.0),
        notes="Judged against a float64 complex triangular solve on well-conditioned matrices; the unread "
              "triangle, a unit diagonal and padding hold NaN. Singular A, negative batchCount and leading "
              "dimensions below the minimum are not drawn; output pointers never repeat."),
}
