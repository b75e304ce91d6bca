"""Batched BLAS through arrays of device pointers: cublas?gemmBatched, ?gemvBatched, ?trsmBatched.

Each batch entry is the non-batched routine on the matrices its pointers address (suite/cublas/
pointers.py), with the same flags, quick returns and beta == 0 rule; batchCount == 0 does nothing.
Semantics: the cuBLAS documentation of cublas<t>gemmBatched, cublas<t>gemvBatched and
cublas<t>trsmBatched, and the reference BLAS's sgemm.f / sgemv.f / dtrsm.f for each entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import MATMUL_TOLERANCE, SUM_TOLERANCE
from ..spec import Joint, Operator, Overload, Param, Size, Tolerance
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
from .library import diag_code, fill_code, side_code, vector_extent
from .pointers import ARRAY_DOC, Entries, entries, layout, pointers, pool, pool_param

DTYPES: dict[str, torch.dtype] = {"H": torch.float16, "S": torch.float32, "D": torch.float64}
# float64 output, float64 truth: the native result can be the truth itself, so the floor decides;
# 256 ulps of the |A||B| scale hold any blocked summation order, an fp32 downgrade (~5e8) fails.
FLOAT64_MATMUL = Tolerance(k_rms=50.0, k_max=100.0, floor_ulps=256.0, abs_scale=True)


def stored_shape(trans: Any, rows: int, cols: int) -> tuple[int, int]:
    return (rows, cols) if op_code(trans) == OP_N else (cols, rows)


def batch_count(batchCount: int) -> int:
    if batchCount < 0:
        raise ValueError(f"batchCount={batchCount} < 0")
    return batchCount


# ---- gemmBatched -------------------------------------------------------------------------------

def gemm_batched_reference(transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any, Aarray: torch.Tensor,
                           lda: int, Barray: torch.Tensor, ldb: int, beta: Any, Carray: torch.Tensor, ldc: int,
                           batchCount: int) -> None:
    """Each entry b: C[b] := alpha * op(A[b]) @ op(B[b]) + beta * C[b], as sgemm.f: a quick return when C is
    empty or ((alpha == 0 or k == 0) and beta == 1); C is not read when beta == 0, nor A and B when
    alpha == 0 or k == 0."""
    count = batch_count(batchCount)
    a_rows, a_cols = stored_shape(transa, m, k)
    b_rows, b_cols = stored_shape(transb, k, n)
    for name, ld, rows in (("lda", lda, a_rows), ("ldb", ldb, b_rows), ("ldc", ldc, m)):
        if ld < max(1, rows):
            raise ValueError(f"{name}={ld} < max(1, {rows})")
    As = entries(Aarray, count, matrix_len(a_rows, a_cols, lda))
    Bs = entries(Barray, count, matrix_len(b_rows, b_cols, ldb))
    Cs = entries(Carray, count, matrix_len(m, n, ldc))
    if count == 0 or m <= 0 or n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return
    c_at = matrix_layout(m, n, ldc)
    if alpha == 0 or k <= 0:
        prod = torch.zeros((count, m, n), dtype=Cs.pool.dtype, device=Cs.pool.device)
    else:
        prod = alpha * (As.read(*op_layout(transa, m, k, lda)) @ Bs.read(*op_layout(transb, k, n, ldb)))
    Cs.write(*c_at, prod if beta == 0 else prod + beta * Cs.read(*c_at))


GEMM_PARAMS = (
    *(Param(n, t) for n, t in [("transa", "int | str"), ("transb", "int | str"), ("m", "int"), ("n", "int"),
                               ("k", "int"), ("alpha", "float"), ("Aarray", "Tensor"), ("lda", "int"),
                               ("Barray", "Tensor"), ("ldb", "int"), ("beta", "float"), ("Carray", "Tensor"),
                               ("ldc", "int"), ("batchCount", "int")]),
    pool_param("A_pool", "Aarray"), pool_param("B_pool", "Barray"), pool_param("C_pool", "Carray", writes=True),
)

# (transa, transb, m, n, k, lda pad, ldb pad, ldc pad, alpha, beta, C all-NaN, batchCount,
#  distinct A, distinct B, gap, reversed)
GemmRow = tuple[Any, Any, int, int, int, int, int, int, float, float, bool, int, int, int, int, bool]
GEMM_BATCHED: dict[str, list[GemmRow]] = {
    "small": [
        (0, 0, 3, 4, 5, 0, 0, 0, 1.0, 0.0, True, 3, 3, 3, 0, False),
        (1, 0, 7, 5, 9, 1, 0, 2, 1.5, -0.5, False, 4, 2, 4, 3, True),
        ("N", "T", 5, 6, 4, 0, 2, 1, -1.0, 1.0, False, 5, 5, 1, 2, False),
        ("C", "C", 4, 3, 6, 2, 1, 0, 0.5, 2.0, False, 2, 1, 2, 5, True),
        (2, 1, 9, 2, 17, 0, 0, 3, 1.0, 0.0, True, 3, 3, 2, 1, False),
        (1, 1, 33, 17, 40, 1, 2, 3, 1.25, 0.75, False, 3, 2, 3, 1, True),
        (0, 0, 4, 3, 0, 0, 0, 1, 1.0, 0.5, False, 3, 3, 3, 2, False),
        (0, 1, 4, 4, 4, 0, 0, 0, 0.0, -1.0, False, 2, 2, 2, 1, False),
        (1, 0, 5, 3, 6, 0, 0, 2, 0.0, 0.0, True, 2, 1, 1, 2, False),
        (0, 0, 6, 5, 7, 0, 0, 1, 0.0, 1.0, False, 2, 2, 2, 1, False),
        (0, 1, 0, 5, 4, 0, 0, 0, 1.0, 0.5, False, 3, 3, 3, 2, False),
        (1, 0, 6, 0, 4, 0, 0, 0, 1.0, 0.5, False, 3, 3, 3, 2, False),
        (0, 0, 4, 4, 4, 0, 0, 0, 1.0, 0.0, False, 0, 0, 0, 3, False),
    ],
    "large": [
        (0, 0, 256, 192, 320, 1, 0, 3, 1.5, -0.5, False, 24, 6, 24, 17, True),
        (1, 1, 100, 300, 129, 0, 2, 0, 1.0, 0.0, True, 40, 40, 1, 0, False),
    ],
    "perf": [
        (0, 0, 128, 128, 128, 0, 0, 0, 1.0, 0.0, False, 2048, 2048, 2048, 0, False),
        (1, 0, 64, 512, 256, 0, 0, 0, 1.0, 1.0, False, 1024, 1024, 1024, 0, False),
        (0, 1, 512, 512, 64, 0, 0, 0, 1.0, 0.0, False, 256, 256, 256, 0, False),
    ],
}


# One perf case of the _64 routine addresses past 2^31 elements within one matrix: A's leading
# dimension 2^25 + 64 over 65 columns spans 2,147,487,808 float32 (8.6 GB, all but 16 KiB padding),
# two entries point at it; cheap in flops, it proves 64-bit offsets.
GEMM64_BIG = (0, 0, 64, 64, 65, 2**25, 0, 0, 1.0, 0.0, False, 2, 1, 2, 0, False)


def gemm_batched_sampler(prec: str, extra_perf: tuple[tuple[Any, ...], ...] = ()):
    dtype = DTYPES[prec]
    # Every matrix starts 16-byte aligned, as an allocation does: libcublas's Hgemm reads half pairs
    # and faults on a matrix at an odd fp16 offset (misaligned address, seen on the H200).
    align = 16 // dtype.itemsize

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(ta: Any, tb: Any, m: int, n: int, k: int, pa: int, pb: int, pc: int, alpha: float, beta: float,
                poison: bool, count: int, da: int, db: int, gap: int, rev: bool) -> dict[str, Any]:
            a_rows, a_cols = stored_shape(ta, m, k)
            b_rows, b_cols = stored_shape(tb, k, n)
            lda, ldb, ldc = max(1, a_rows) + pa, max(1, b_rows) + pb, max(1, m) + pc
            a_off, a_len = layout(count, matrix_len(a_rows, a_cols, lda), da, gap, rev, align)
            b_off, b_len = layout(count, matrix_len(b_rows, b_cols, ldb), db, gap, not rev, align)
            c_off, c_len = layout(count, matrix_len(m, n, ldc), count, gap, rev, align)
            return {"A_pool": pool(a_len, dtype), "B_pool": pool(b_len, dtype), "C_pool": pool(c_len, dtype, poison),
                    "transa": ta, "transb": tb, "m": m, "n": n, "k": k, "alpha": alpha,
                    "Aarray": pointers("A_pool", a_off, da, gap, rev), "lda": lda,
                    "Barray": pointers("B_pool", b_off, db, gap, not rev), "ldb": ldb, "beta": beta,
                    "Carray": pointers("C_pool", c_off, count, gap, rev), "ldc": ldc, "batchCount": count}

        return iter(samples(row(*r) for r in GEMM_BATCHED[size] + (list(extra_perf) if size == "perf" else [])))

    return sampler


def gemm_batched_overload(name: str, prec: str) -> Overload:
    dt = str(DTYPES[prec]).replace("torch.", "")
    precision = ("Compute in full float32 precision (no TF32 or lower-precision products)." if prec == "S"
                 else "Compute in float64." if prec == "D" else "Accumulate in at least float16.")
    return Overload(
        name=name,
        func_name=name,
        params=GEMM_PARAMS,
        signature=signature(name, GEMM_PARAMS[:14]),
        reference=gemm_batched_reference,
        doc=(
            f"For each b < batchCount: C[b] := alpha * op(A[b]) @ op(B[b]) + beta * C[b], where A[b], B[b] "
            f"and C[b] are the column-major {dt} matrices whose addresses are Aarray[b], Barray[b] and "
            "Carray[b]; op(A[b]) is m x k, op(B[b]) k x n, C[b] m x n. A[b] is stored m x k (lda >= max(1, m)) "
            "when transa is N and k x m (lda >= max(1, k)) when T or C; B[b] is stored k x n (ldb >= max(1, k)) "
            "when transb is N and n x k (ldb >= max(1, n)) when T or C; ldc >= max(1, m), and rows m..ldc-1 of "
            f"each column of C[b] are padding that must stay unchanged. {precision} alpha and beta are Python "
            "floats. When beta == 0, C[b] is not read (it may hold NaN) and is set to alpha * op(A[b]) @ op(B[b]). "
            "When k == 0 or alpha == 0, C[b] := beta * C[b] (0 when beta == 0) and A, B are not read. When "
            "m == 0, n == 0 or batchCount == 0, or (k == 0 or alpha == 0) and beta == 1, the routine returns at "
            f"once. Writes through Carray and returns None. {ENUM_DOC} {ARRAY_DOC}"
        ),
    )


def gemm_batched_operator(name: str, prec: str) -> Operator:
    dt = {"H": "half", "S": "single", "D": "double"}[prec]
    wide = name.endswith("_64")
    return blas_operator(
        name, "blas3_batched",
        f"cuBLAS {dt}-precision batched matrix product through arrays of device pointers: C[b] := alpha * "
        "op(A[b]) @ op(B[b]) + beta * C[b] for every batch entry, column-major, C written in place.",
        gemm_batched_overload(name, prec), gemm_batched_sampler(prec, (GEMM64_BIG,) if wide else ()),
        tolerance=FLOAT64_MATMUL if prec == "D" else MATMUL_TOLERANCE,
        notes="Negative batchCount and leading dimensions below the minimum (CUBLAS_STATUS_INVALID_VALUE) are "
              "not drawn; output pointers never repeat (cuBLAS leaves overlapping outputs undefined)."
              + (" One perf case addresses past 2^31 elements within one matrix (8.6 GB of A)." if wide else ""),
    )


# ---- gemvBatched -------------------------------------------------------------------------------

def gemv_batched_reference(trans: Any, m: int, n: int, alpha: Any, Aarray: torch.Tensor, lda: int,
                           xarray: torch.Tensor, incx: int, beta: Any, yarray: torch.Tensor, incy: int,
                           batchCount: int) -> None:
    """Each entry b: y[b] := alpha * op(A[b]) @ x[b] + beta * y[b], as sgemv.f: a quick return on an empty A
    or (alpha == 0 and beta == 1); y is not read when beta == 0."""
    count = batch_count(batchCount)
    if lda < max(1, m):
        raise ValueError(f"lda={lda} < max(1, m={m})")
    xlen, ylen = (n, m) if op_code(trans) == OP_N else (m, n)
    As = entries(Aarray, count, matrix_len(m, n, lda))
    xs = entries(xarray, count, vector_extent(xlen, incx))
    ys = entries(yarray, count, vector_extent(ylen, incy))
    if count == 0 or m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return
    if alpha == 0:
        prod = torch.zeros((count, ylen), dtype=ys.pool.dtype, device=ys.pool.device)
    else:
        a, x = As.read(*op_layout(trans, ylen, xlen, lda)), xs.read_vectors(xlen, incx)
        prod = alpha * (a @ x[..., None])[..., 0]
    ys.write_vectors(ylen, incy, prod if beta == 0 else prod + beta * ys.read_vectors(ylen, incy))


GEMV_PARAMS = (
    *(Param(n, t) for n, t in [("trans", "int | str"), ("m", "int"), ("n", "int"), ("alpha", "float"),
                               ("Aarray", "Tensor"), ("lda", "int"), ("xarray", "Tensor"), ("incx", "int"),
                               ("beta", "float"), ("yarray", "Tensor"), ("incy", "int"), ("batchCount", "int")]),
    pool_param("A_pool", "Aarray"), pool_param("x_pool", "xarray"), pool_param("y_pool", "yarray", writes=True),
)

# (trans, m, n, lda pad, incx, incy, alpha, beta, y all-NaN, batchCount, distinct A, distinct x, gap, reversed)
GemvRow = tuple[Any, int, int, int, int, int, float, float, bool, int, int, int, int, bool]
GEMV_BATCHED: dict[str, list[GemvRow]] = {
    "small": [
        (0, 5, 7, 0, 1, 1, 1.0, 0.0, True, 3, 3, 3, 0, False),
        (1, 9, 4, 2, 2, -1, 1.5, -0.5, False, 4, 2, 4, 3, True),
        ("N", 6, 33, 1, -2, 3, -1.0, 1.0, False, 3, 1, 3, 2, False),
        ("T", 17, 5, 0, -1, -2, 0.5, 0.0, True, 2, 2, 1, 1, True),
        ("C", 4, 6, 3, 3, 1, 2.0, 0.25, False, 5, 5, 2, 1, False),
        (2, 40, 30, 1, 1, 2, 1.0, 1.0, False, 2, 1, 2, 4, True),
        (0, 6, 5, 0, 1, 1, 0.0, -1.0, False, 2, 2, 2, 1, False),
        (1, 4, 5, 0, 1, 1, 0.0, 0.0, True, 2, 2, 2, 1, False),
        (0, 4, 5, 0, 1, 1, 0.0, 1.0, False, 2, 2, 2, 1, False),
        (0, 0, 5, 0, 1, 1, 1.0, 0.5, False, 3, 3, 3, 2, False),
        (1, 5, 0, 0, 1, 1, 1.0, 0.5, False, 3, 3, 3, 2, False),
        (0, 4, 4, 0, 1, 1, 1.0, 0.0, False, 0, 0, 0, 3, False),
    ],
    "large": [
        (0, 1000, 700, 3, 1, -2, 1.5, -0.5, False, 12, 4, 12, 9, True),
        (1, 513, 2049, 0, 2, 1, 1.0, 0.0, True, 16, 16, 1, 0, False),
    ],
    "perf": [
        (0, 1024, 1024, 0, 1, 1, 1.0, 0.0, False, 256, 256, 256, 0, False),
        (1, 4096, 128, 0, 1, 1, 1.0, 0.0, False, 512, 512, 512, 0, False),
        (0, 128, 128, 0, 1, 1, 1.0, 1.0, False, 8192, 8192, 8192, 0, False),
    ],
}


def gemv_batched_sampler(prec: str):
    dtype = DTYPES[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(trans: Any, m: int, n: int, pad: int, incx: int, incy: int, alpha: float, beta: float,
                poison: bool, count: int, da: int, dx: int, gap: int, rev: bool) -> dict[str, Any]:
            xlen, ylen = (n, m) if op_code(trans) == OP_N else (m, n)
            lda = max(1, m) + pad
            a_off, a_len = layout(count, matrix_len(m, n, lda), da, gap, rev)
            x_off, x_len = layout(count, vector_extent(xlen, incx), dx, gap, not rev)
            y_off, y_len = layout(count, vector_extent(ylen, incy), count, gap, rev)
            return {"A_pool": pool(a_len, dtype), "x_pool": pool(x_len, dtype), "y_pool": pool(y_len, dtype, poison),
                    "trans": trans, "m": m, "n": n, "alpha": alpha,
                    "Aarray": pointers("A_pool", a_off, da, gap, rev), "lda": lda,
                    "xarray": pointers("x_pool", x_off, dx, gap, not rev), "incx": incx, "beta": beta,
                    "yarray": pointers("y_pool", y_off, count, gap, rev), "incy": incy, "batchCount": count}

        return iter(samples(row(*r) for r in GEMV_BATCHED[size]))

    return sampler


def gemv_batched_overload(name: str, prec: str) -> Overload:
    dt = str(DTYPES[prec]).replace("torch.", "")
    return Overload(
        name=name,
        func_name=name,
        params=GEMV_PARAMS,
        signature=signature(name, GEMV_PARAMS[:12]),
        reference=gemv_batched_reference,
        doc=(
            f"For each b < batchCount: y[b] := alpha * op(A[b]) @ x[b] + beta * y[b], where A[b] is the m x n "
            f"column-major {dt} matrix at Aarray[b] (lda >= max(1, m)), x[b] and y[b] the vectors at xarray[b] "
            "and yarray[b]; op(A) = A when trans is N and A^T when T or C. For N, x[b] has n logical elements "
            "and y[b] m; for T/C, x[b] has m and y[b] n. Element k of a vector with increment inc (nonzero, "
            "maybe negative) is at address + k*inc*itemsize when inc > 0 and address + (len-1-k)*|inc|*itemsize "
            "when inc < 0 (the reference-BLAS rule). alpha and beta are Python floats. When beta == 0, y[b] is "
            "not read (it may hold NaN). When alpha == 0, y[b] := beta * y[b] and A, x are not read. When m == 0, "
            "n == 0 or batchCount == 0, or alpha == 0 and beta == 1, the routine returns at once. Writes through "
            f"yarray and returns None. {ENUM_DOC} {ARRAY_DOC}"
        ),
    )


def gemv_batched_operator(name: str, prec: str) -> Operator:
    dt = {"S": "single", "D": "double"}[prec]
    return blas_operator(
        name, "blas2_batched",
        f"cuBLAS {dt}-precision batched matrix-vector product through arrays of device pointers: y[b] := "
        "alpha * op(A[b]) @ x[b] + beta * y[b] for every batch entry, strided vectors, y written in place.",
        gemv_batched_overload(name, prec), gemv_batched_sampler(prec),
        tolerance=Tolerance(floor_ulps=256.0, abs_scale=True) if prec == "D" else SUM_TOLERANCE,
        notes="Negative batchCount, zero increments and lda below the minimum (CUBLAS_STATUS_INVALID_VALUE) are "
              "not drawn; output pointers never repeat (cuBLAS leaves overlapping outputs undefined).",
    )


# ---- trsmBatched -------------------------------------------------------------------------------

SIDE_LEFT, SIDE_RIGHT = 0, 1
FILL_LOWER, FILL_UPPER = 0, 1
DIAG_NON_UNIT, DIAG_UNIT = 0, 1
TRSM_ENUM_DOC = (
    "side, uplo and diag are cublasSideMode_t / cublasFillMode_t / cublasDiagType_t values given as an int or "
    "a letter: side 0 = 'L' (CUBLAS_SIDE_LEFT), 1 = 'R' (RIGHT); uplo 0 = 'L' (CUBLAS_FILL_MODE_LOWER), "
    "1 = 'U' (UPPER); diag 0 = 'N' (CUBLAS_DIAG_NON_UNIT), 1 = 'U' (UNIT)."
)


def trsm_batched_reference(side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, alpha: Any,
                           Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, batchCount: int) -> None:
    """Each entry b: B[b] := X solving op(A[b]) X = alpha B[b] (left) or X op(A[b]) = alpha B[b] (right),
    as dtrsm.f: only the uplo triangle of A is read, not its diagonal when diag is unit; when alpha == 0,
    B := 0 and neither A nor B is read; m == 0 or n == 0 returns at once."""
    count = batch_count(batchCount)
    left, upper = side_code(side) == SIDE_LEFT, fill_code(uplo) == FILL_UPPER
    unit, transposed = diag_code(diag) == DIAG_UNIT, op_code(trans) != OP_N
    k = m if left else n
    for name, ld, rows in (("lda", lda, k), ("ldb", ldb, m)):
        if ld < max(1, rows):
            raise ValueError(f"{name}={ld} < max(1, {rows})")
    As = entries(Aarray, count, matrix_len(k, k, lda))
    Bs = entries(Barray, count, matrix_len(m, n, ldb))
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
    op = tri.mT if transposed else tri
    Bs.write(*b_at, torch.linalg.solve_triangular(op, alpha * Bs.read(*b_at), upper=upper != transposed, left=left))


def _triangular_pool(gen: torch.Generator, *, length: int, k: int, lda: int, offsets: tuple[int, ...],
                     upper: bool, unit: bool, dtype: torch.dtype) -> torch.Tensor:
    """NaN everywhere no read may reach (the other triangle, a unit diagonal, padding rows, gaps); each
    distinct matrix well conditioned: diagonal of magnitude in [1, 2] with a random sign, off-diagonal
    entries in (-1/k, 1/k), so every row's off-diagonal sum stays below the diagonal."""
    dev, f64 = gen.device, torch.float64
    pool = torch.full((length,), float("nan"), dtype=f64, device=dev)
    slots = Entries(pool, tuple(sorted(set(offsets))))  # every distinct matrix drawn at once
    count = len(slots.offsets)
    off = (torch.rand((count, k, k), generator=gen, dtype=f64, device=dev) * 2 - 1) / max(k, 1)
    sign = torch.where(torch.rand((count, k), generator=gen, dtype=f64, device=dev) < 0.5, -1.0, 1.0)
    diag = torch.diag_embed(sign * (1 + torch.rand((count, k), generator=gen, dtype=f64, device=dev)))
    mat = (off.triu(1) if upper else off.tril(-1)) + (0 if unit else diag)
    keep = torch.ones(k, k, dtype=torch.bool, device=dev).triu(1 if unit else 0)
    keep = keep if upper else keep.t()
    if count:
        slots.write(*matrix_layout(k, k, lda), torch.where(keep, mat, float("nan")))
    return pool.to(dtype)


TRSM_PARAMS = (
    *(Param(n, t) for n, t in [("side", "int | str"), ("uplo", "int | str"), ("trans", "int | str"),
                               ("diag", "int | str"), ("m", "int"), ("n", "int"), ("alpha", "float"),
                               ("Aarray", "Tensor"), ("lda", "int"), ("Barray", "Tensor"), ("ldb", "int"),
                               ("batchCount", "int")]),
    pool_param("A_pool", "Aarray"), pool_param("B_pool", "Barray", writes=True),
)

# (side, uplo, trans, diag, m, n, lda pad, ldb pad, alpha, B all-NaN, batchCount, distinct A, gap, reversed)
TrsmRow = tuple[Any, Any, Any, Any, int, int, int, int, float, bool, int, int, int, bool]
TRSM_BATCHED: dict[str, list[TrsmRow]] = {
    "small": [
        (0, 0, 0, 0, 5, 3, 0, 0, 1.0, False, 3, 3, 0, False),
        (0, 1, 0, 1, 6, 4, 2, 1, 1.5, False, 2, 2, 3, True),
        ("L", "L", "T", "N", 7, 2, 1, 0, -0.5, False, 3, 1, 1, False),
        ("L", "U", "C", "U", 4, 5, 0, 2, 2.0, False, 2, 2, 2, False),
        (1, 0, 0, 1, 3, 6, 0, 1, 1.0, False, 3, 2, 1, True),
        (1, 1, 0, 0, 4, 5, 3, 0, 0.75, False, 2, 2, 0, False),
        ("R", "L", 1, "U", 5, 4, 0, 0, -1.0, False, 2, 2, 2, True),
        ("R", "U", "T", 0, 2, 7, 1, 2, 1.0, False, 4, 2, 1, False),
        (0, 0, 1, 0, 33, 9, 1, 1, 1.0, False, 2, 2, 1, False),
        (1, 1, 1, 0, 6, 20, 0, 3, 0.5, False, 2, 1, 2, True),
        (0, 1, 0, 0, 5, 4, 0, 0, 0.0, False, 2, 2, 1, False),
        (0, 0, 0, 0, 0, 4, 0, 0, 1.0, False, 2, 2, 2, False),
        (1, 0, 0, 0, 4, 0, 0, 0, 1.0, False, 2, 2, 2, False),
        (0, 0, 0, 0, 4, 4, 0, 0, 1.0, False, 0, 0, 2, False),
    ],
    "large": [
        (0, 0, 0, 0, 200, 300, 1, 3, 1.5, False, 6, 3, 5, True),
        (1, 1, 1, 1, 150, 120, 0, 0, -1.0, False, 8, 8, 0, False),
    ],
    "perf": [
        (0, 0, 0, 0, 64, 64, 0, 0, 1.0, False, 4096, 4096, 0, False),
        (1, 1, 1, 0, 128, 128, 0, 0, 1.0, False, 1024, 1024, 0, False),
    ],
}


def trsm_batched_sampler(prec: str):
    dtype = DTYPES[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, pa: int, pb: int, alpha: float,
                poison: bool, count: int, da: int, gap: int, rev: bool) -> dict[str, Any]:
            k = m if side_code(side) == SIDE_LEFT else n
            lda, ldb = max(1, k) + pa, max(1, m) + pb
            a_off, a_len = layout(count, matrix_len(k, k, lda), da, gap, rev)
            b_off, b_len = layout(count, matrix_len(m, n, ldb), count, gap, not rev)
            upper, unit = fill_code(uplo) == FILL_UPPER, diag_code(diag) == DIAG_UNIT
            a_pool = Joint((a_len,), dtype, (), partial(_triangular_pool, length=a_len, k=k, lda=lda, offsets=a_off,
                                                       upper=upper, unit=unit, dtype=dtype),
                           f"{'upper' if upper else 'lower'}{' unit' if unit else ''} triangular, well conditioned")
            return {"A_pool": a_pool, "B_pool": pool(b_len, dtype, poison),
                    "side": side, "uplo": uplo, "trans": trans, "diag": diag, "m": m, "n": n, "alpha": alpha,
                    "Aarray": pointers("A_pool", a_off, da, gap, rev), "lda": lda,
                    "Barray": pointers("B_pool", b_off, count, gap, not rev), "ldb": ldb, "batchCount": count}

        return iter(samples(row(*r) for r in TRSM_BATCHED[size]))

    return sampler


def trsm_batched_overload(name: str, prec: str) -> Overload:
    dt = str(DTYPES[prec]).replace("torch.", "")
    return Overload(
        name=name,
        func_name=name,
        params=TRSM_PARAMS,
        signature=signature(name, TRSM_PARAMS[:12]),
        reference=trsm_batched_reference,
        doc=(
            f"For each b < batchCount, with A[b] and B[b] the column-major {dt} matrices at Aarray[b] and "
            "Barray[b]: solves op(A[b]) X = alpha * B[b] when side is left (A[b] is m x m, lda >= max(1, m)) or "
            "X op(A[b]) = alpha * B[b] when side is right (A[b] is n x n, lda >= max(1, n)), and overwrites "
            "B[b] (m x n, ldb >= max(1, m)) with X. A[b] is triangular: only its uplo triangle is read (the "
            "other may hold anything, NaN included), and its diagonal is not read but taken as ones when diag "
            "is unit. op(A) = A when trans is N and A^T when T or C. alpha is a Python float; when alpha == 0, "
            "B[b] := 0 and A is not read. When m == 0, n == 0 or batchCount == 0 "
            f"the routine returns at once. Returns None. {TRSM_ENUM_DOC} {ENUM_DOC} {ARRAY_DOC}"
        ),
    )


def trsm_batched_operator(name: str, prec: str) -> Operator:
    return blas_operator(
        name, "blas3_batched",
        "cuBLAS double-precision batched triangular solve through arrays of device pointers: op(A[b]) X = "
        "alpha * B[b] or X op(A[b]) = alpha * B[b] for every batch entry, B overwritten with X.",
        trsm_batched_overload(name, prec), trsm_batched_sampler(prec),
        tolerance=Tolerance(floor_ulps=256.0),
        notes="Judged against a float64 triangular solve on well-conditioned matrices (diagonally dominant "
              "triangles); the unread triangle, a unit diagonal and padding hold NaN. Singular A, negative "
              "batchCount and leading dimensions below the minimum are not drawn; output pointers never repeat. "
              "With alpha == 0 libcublas reads B (a NaN there stays NaN, seen on the H200) where dtrsm.f sets "
              "B to 0 unread: that case draws a finite B, so both readings give 0.",
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasDgemmBatched": partial(gemm_batched_operator, "cublasDgemmBatched", "D"),
    "cublasSgemmBatched_64": partial(gemm_batched_operator, "cublasSgemmBatched_64", "S"),
    "cublasHgemmBatched": partial(gemm_batched_operator, "cublasHgemmBatched", "H"),
    "cublasSgemvBatched": partial(gemv_batched_operator, "cublasSgemvBatched", "S"),
    "cublasDgemvBatched": partial(gemv_batched_operator, "cublasDgemvBatched", "D"),
    "cublasDtrsmBatched": partial(trsm_batched_operator, "cublasDtrsmBatched", "D"),
}
