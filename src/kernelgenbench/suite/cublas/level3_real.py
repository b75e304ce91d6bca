"""Real BLAS level 3 and cuBLAS extensions: geam, dgmm, syrk, trsm, strided-batched gemm, SgemmEx.

Each reference follows the netlib reference BLAS (ssyrk.f, strsm.f, sgemm.f) where the routine is
BLAS, and the cuBLAS documentation for the extensions (geam, dgmm, the strided-batched gemms,
cublasSgemmEx), on the column-major flat buffers of `family.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import MATMUL_TOLERANCE
from ..spec import Joint, Operator, Overload, Size, Tolerance
from .family import (
    ENUM_DOC,
    OP_N,
    blas_operator,
    matrix_spec,
    matrix_view,
    op_code,
    op_matrix,
    params,
    pointer_doc,
    poisoned,
    samples,
    signature,
    vector_spec,
    vector_view,
)
from .level3 import _stored, sgemm_reference
from .library import diag_code, fill_code, matrix_extent, side_code

SIDE_LEFT, SIDE_RIGHT = 0, 1
FILL_LOWER, FILL_UPPER = 0, 1
DIAG_NON_UNIT, DIAG_UNIT = 0, 1
CUDA_R_32F, CUDA_R_16F, CUDA_R_8I, CUDA_R_16BF = 0, 2, 3, 14
DATA_TYPES: dict[int, torch.dtype] = {CUDA_R_32F: torch.float32, CUDA_R_16F: torch.float16,
                                      CUDA_R_8I: torch.int8, CUDA_R_16BF: torch.bfloat16}

FLAG_DOC = (
    "side is a cublasSideMode_t (0 = CUBLAS_SIDE_LEFT, 1 = CUBLAS_SIDE_RIGHT, or 'L' / 'R'); uplo is a "
    "cublasFillMode_t (0 = CUBLAS_FILL_MODE_LOWER, 1 = CUBLAS_FILL_MODE_UPPER, or 'L' / 'U'); diag is a "
    "cublasDiagType_t (0 = CUBLAS_DIAG_NON_UNIT, 1 = CUBLAS_DIAG_UNIT, or 'N' / 'U'). Flags arrive as an "
    "int or a one-letter str; both forms are used."
)
# float64 routines: the truth is float64 too, so the floor carries the reordering of long sums
FLOAT64_MATMUL = Tolerance(k_rms=50.0, k_max=100.0, floor_ulps=64.0, abs_scale=True)


def _check_ld(**lds: tuple[int, int]) -> None:
    for name, (ld, rows) in lds.items():
        if ld < max(1, rows):
            raise ValueError(f"{name}={ld} < max(1, {rows})")


def batched_len(rows: int, cols: int, ld: int, stride: int, batch: int) -> int:
    """Elements of a strided batch of column-major matrices as the suite allocates it."""
    return max(batch - 1, 0) * stride + ld * max(cols, 0)


# ---- geam ----------------------------------------------------------------------------------------


def geam_reference(transa: Any, transb: Any, m: int, n: int, alpha: Any, A: torch.Tensor, lda: int, beta: Any,
                   B: torch.Tensor, ldb: int, C: torch.Tensor, ldc: int) -> None:
    """cuBLAS geam: C := alpha * op(A) + beta * op(B); C is never read."""
    _check_ld(lda=(lda, _stored(transa, m, n)[0]), ldb=(ldb, _stored(transb, m, n)[0]), ldc=(ldc, m))
    if m <= 0 or n <= 0:
        return
    out = torch.zeros((m, n), dtype=C.dtype, device=C.device)
    if alpha != 0:
        out = out + alpha * op_matrix(A, transa, m, n, lda)
    if beta != 0:
        out = out + beta * op_matrix(B, transb, m, n, ldb)
    matrix_view(C, m, n, ldc).copy_(out)


GEAM_PARAMS = params([("transa", "int | str"), ("transb", "int | str"), ("m", "int"), ("n", "int"),
                      ("alpha", "float"), ("A", "Tensor"), ("lda", "int"), ("beta", "float"), ("B", "Tensor"),
                      ("ldb", "int"), ("C", "Tensor"), ("ldc", "int")], writes="C")

GEAM = Overload(
    name="cublasSgeam", func_name="cublasSgeam", params=GEAM_PARAMS,
    signature=signature("cublasSgeam", GEAM_PARAMS), reference=geam_reference,
    doc=(
        "C := alpha * op(A) + beta * op(B), all m x n column-major float32 (cuBLAS extension). A is stored "
        "m x n (lda >= max(1, m)) when transa is N and n x m (lda >= max(1, n)) when transa is T or C; B "
        "likewise with transb and ldb; ldc >= max(1, m). C is only written, never read (it may hold NaN); "
        "rows m..ldc-1 of each column of C are padding and must stay unchanged. alpha and beta are Python "
        "floats; alpha == beta == 0 sets C to zero. When m == 0 or n == 0 the routine returns at once. "
        f"{ENUM_DOC} {pointer_doc(torch.float32)} So A has lda*n (N) or lda*m (T/C) elements, B likewise, "
        "and C has ldc*n."
    ),
)

# (transa, transb, m, n, lda pad, ldb pad, ldc pad, alpha, beta, C drawn finite instead of NaN)
GEAM_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 0, 1, 1, 0, 0, 0, 1.0, 1.0, False),
        (0, 0, 7, 13, 0, 2, 1, 1.5, -0.5, True),
        (1, 0, 33, 17, 3, 0, 0, -1.25, 2.0, False),
        (0, 1, 20, 9, 0, 1, 3, 0.5, 0.75, True),
        (1, 1, 19, 40, 1, 2, 0, 2.0, -1.0, False),
        ("C", "N", 16, 24, 0, 0, 2, 1.0, 1.0, True),
        ("N", "C", 9, 5, 2, 0, 0, -0.5, 0.25, False),
        ("T", "T", 64, 33, 0, 0, 0, 1.0, 0.0, False),
        (1, 0, 12, 10, 0, 0, 1, 1.0, 0.0, True),
        (0, 0, 12, 10, 0, 0, 0, 0.0, -2.0, False),
        (0, 2, 8, 8, 0, 0, 4, 0.0, 0.0, True),
        (0, 0, 0, 5, 0, 0, 0, 1.0, 1.0, True),
        (1, 1, 6, 0, 0, 0, 0, 1.0, 1.0, True),
    ],
    "large": [
        (0, 0, 4096, 4096, 0, 0, 0, 1.0, 1.0, False),
        (1, 0, 3001, 2047, 3, 0, 5, 1.5, -0.5, True),
        (0, 1, 1021, 4099, 0, 1, 0, 1.0, 0.0, False),
    ],
    "perf": [
        (0, 0, 8192, 8192, 0, 0, 0, 1.0, 1.0, False),
        (1, 0, 8192, 8192, 0, 0, 0, 1.0, 0.0, False),
        (1, 1, 4096, 14336, 0, 0, 0, 0.5, -0.5, False),
    ],
}


def geam_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(ta: Any, tb: Any, m: int, n: int, pa: int, pb: int, pc: int, alpha: float, beta: float,
            finite_c: bool) -> dict[str, Any]:
        (ar, ac), (br, bc) = _stored(ta, m, n), _stored(tb, m, n)
        lda, ldb, ldc = max(1, ar) + pa, max(1, br) + pb, max(1, m) + pc
        c = matrix_spec(m, n, ldc)
        return {"transa": ta, "transb": tb, "m": m, "n": n, "alpha": alpha, "A": matrix_spec(ar, ac, lda),
                "lda": lda, "beta": beta, "B": matrix_spec(br, bc, ldb), "ldb": ldb,
                "C": c if finite_c else poisoned(c), "ldc": ldc}

    return iter(samples(row(*r) for r in GEAM_ROWS[size]))


# ---- dgmm ----------------------------------------------------------------------------------------


def dgmm_reference(mode: Any, m: int, n: int, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int,
                   C: torch.Tensor, ldc: int) -> None:
    """cuBLAS dgmm: C := A @ diag(x) (right) or diag(x) @ A (left); incx == 0 repeats x[0]."""
    _check_ld(lda=(lda, m), ldc=(ldc, m))
    if m <= 0 or n <= 0:
        return
    left = side_code(mode) == SIDE_LEFT
    count = m if left else n
    xs = x[:1].expand(count) if incx == 0 else vector_view(x, count, incx)
    a = matrix_view(A, m, n, lda)
    matrix_view(C, m, n, ldc).copy_(a * xs[:, None] if left else a * xs[None, :])


DGMM_PARAMS = params([("mode", "int | str"), ("m", "int"), ("n", "int"), ("A", "Tensor"), ("lda", "int"),
                      ("x", "Tensor"), ("incx", "int"), ("C", "Tensor"), ("ldc", "int")], writes="C")

DGMM = Overload(
    name="cublasSdgmm", func_name="cublasSdgmm", params=DGMM_PARAMS,
    signature=signature("cublasSdgmm", DGMM_PARAMS), reference=dgmm_reference,
    doc=(
        "C := A @ diag(x) when mode is CUBLAS_SIDE_RIGHT (1 or 'R') and diag(x) @ A when mode is "
        "CUBLAS_SIDE_LEFT (0 or 'L'), where A and C are m x n column-major float32 (lda, ldc >= max(1, m)) "
        "and x has m elements (left) or n (right) (cuBLAS extension). C is only written, never read (it "
        "may hold NaN); rows m..ldc-1 of each column of C are padding and must stay unchanged. incx may be "
        "negative (the vector is walked backwards, as in BLAS) or 0, in which case every element of x is "
        "x[0] (x then has 1 element). When m == 0 or n == 0 the routine returns at once. "
        f"{pointer_doc(torch.float32)} So A has lda*n elements and C has ldc*n."
    ),
)

# (mode, m, n, lda pad, incx, ldc pad, C drawn finite instead of NaN)
DGMM_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 1, 1, 0, 1, 0, False),
        (0, 7, 13, 2, 1, 1, True),
        (1, 7, 13, 0, 1, 0, False),
        ("L", 33, 17, 0, -1, 3, True),
        ("R", 20, 9, 1, 2, 0, False),
        (1, 19, 40, 0, -3, 2, True),
        (0, 16, 24, 0, 0, 0, False),
        (1, 9, 5, 3, 0, 1, True),
        (0, 64, 33, 0, 2, 0, False),
        (0, 0, 5, 0, 1, 0, True),
        (1, 6, 0, 0, -1, 0, True),
    ],
    "large": [
        (1, 4096, 4096, 0, 1, 0, False),
        (0, 3001, 2047, 3, -2, 5, True),
    ],
    "perf": [
        (1, 8192, 8192, 0, 1, 0, False),
        (0, 16384, 4096, 0, 1, 0, False),
    ],
}


def dgmm_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(mode: Any, m: int, n: int, pa: int, incx: int, pc: int, finite_c: bool) -> dict[str, Any]:
        lda, ldc = max(1, m) + pa, max(1, m) + pc
        count = m if side_code(mode) == SIDE_LEFT else n
        c = matrix_spec(m, n, ldc)
        return {"mode": mode, "m": m, "n": n, "A": matrix_spec(m, n, lda), "lda": lda,
                "x": vector_spec(count, incx), "incx": incx, "C": c if finite_c else poisoned(c), "ldc": ldc}

    return iter(samples(row(*r) for r in DGMM_ROWS[size]))


# ---- syrk ----------------------------------------------------------------------------------------


def _triangle(n: int, upper: bool, device: torch.device) -> torch.Tensor:
    i = torch.arange(n, device=device)
    return (i[:, None] <= i[None, :]) if upper else (i[:, None] >= i[None, :])


def syrk_reference(uplo: Any, trans: Any, n: int, k: int, alpha: Any, A: torch.Tensor, lda: int, beta: Any,
                   C: torch.Tensor, ldc: int) -> None:
    """Reference BLAS ssyrk: only the uplo triangle of C is read or written; quick return when n == 0
    or ((alpha == 0 or k == 0) and beta == 1); C is not read when beta == 0."""
    _check_ld(lda=(lda, _stored(trans, n, k)[0]), ldc=(ldc, n))
    upper = fill_code(uplo) == FILL_UPPER
    if n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return
    c = matrix_view(C, n, n, ldc)
    if alpha == 0 or k <= 0:
        new = torch.zeros((n, n), dtype=C.dtype, device=C.device)
    else:
        a = op_matrix(A, trans, n, k, lda)
        new = alpha * (a @ a.t())
    if beta != 0:
        new = new + beta * c
    c.copy_(torch.where(_triangle(n, upper, C.device), new, c))


SYRK_PARAMS = params([("uplo", "int | str"), ("trans", "int | str"), ("n", "int"), ("k", "int"),
                      ("alpha", "float"), ("A", "Tensor"), ("lda", "int"), ("beta", "float"), ("C", "Tensor"),
                      ("ldc", "int")], writes="C")

SYRK = Overload(
    name="cublasSsyrk_v2", func_name="cublasSsyrk_v2", params=SYRK_PARAMS,
    signature=signature("cublasSsyrk_v2", SYRK_PARAMS), reference=syrk_reference,
    doc=(
        "Symmetric rank-k update C := alpha * op(A) @ op(A)^T + beta * C, where C is n x n column-major "
        "float32 (ldc >= max(1, n)) and op(A) is n x k: A is stored n x k (lda >= max(1, n)) when trans is "
        "N and k x n (lda >= max(1, k)) when trans is T or C. Only the triangle of C named by uplo "
        "(diagonal included) is read and written; the other triangle and the padding rows n..ldc-1 must "
        "stay unchanged. Compute in full float32 precision (no TF32). When beta == 0 the triangle is not "
        "read (it may hold NaN). When k == 0 or alpha == 0, the triangle := beta * itself and A is not "
        "read. When n == 0, or (k == 0 or alpha == 0) and beta == 1, the routine returns at once. "
        f"{FLAG_DOC} {ENUM_DOC} {pointer_doc(torch.float32)} So A has lda*k (N) or lda*n (T/C) elements "
        "and C has ldc*n."
    ),
)

# (uplo, trans, n, k, lda pad, ldc pad, alpha, beta, C arrives all-NaN)
SYRK_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 0, 1, 1, 0, 0, 1.0, 0.0, False),
        (0, 0, 13, 7, 2, 1, 1.5, -0.5, False),
        (1, 0, 17, 33, 0, 3, -1.25, 1.0, False),
        (0, 1, 33, 17, 3, 0, 0.5, 0.0, True),
        (1, 1, 20, 9, 0, 2, 2.0, 0.75, False),
        ("U", "C", 16, 40, 1, 0, 1.0, 1.0, False),
        ("L", "T", 24, 5, 0, 1, -0.5, 2.0, False),
        ("U", "N", 40, 64, 0, 0, 1.0, 0.0, True),
        (1, 0, 9, 0, 0, 1, 1.0, 0.5, False),
        (0, 1, 8, 0, 0, 0, 1.0, 0.0, True),
        (1, 0, 12, 10, 0, 0, 0.0, -1.0, False),
        (0, 0, 10, 6, 0, 2, 0.0, 1.0, False),
        (0, 0, 0, 5, 0, 0, 1.0, 0.5, False),
    ],
    "large": [
        (0, 0, 1024, 2048, 0, 0, 1.0, 0.0, True),
        (1, 1, 1023, 511, 1, 3, 1.5, -0.5, False),
    ],
    "perf": [
        (0, 0, 4096, 4096, 0, 0, 1.0, 0.0, False),
        (1, 1, 8192, 2048, 0, 0, 1.0, 1.0, False),
    ],
}


def syrk_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(uplo: Any, trans: Any, n: int, k: int, pa: int, pc: int, alpha: float, beta: float,
            poison: bool) -> dict[str, Any]:
        ar, ac = _stored(trans, n, k)
        lda, ldc = max(1, ar) + pa, max(1, n) + pc
        c = matrix_spec(n, n, ldc)
        return {"uplo": uplo, "trans": trans, "n": n, "k": k, "alpha": alpha, "A": matrix_spec(ar, ac, lda),
                "lda": lda, "beta": beta, "C": poisoned(c) if poison else c, "ldc": ldc}

    return iter(samples(row(*r) for r in SYRK_ROWS[size]))


# ---- trsm ----------------------------------------------------------------------------------------


def trsm_reference(side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, alpha: Any, A: torch.Tensor,
                   lda: int, B: torch.Tensor, ldb: int) -> None:
    """Reference BLAS strsm: only the uplo triangle of A is read, and not its diagonal when diag is
    unit; B := 0 without reading A when alpha == 0; quick return when m == 0 or n == 0."""
    left = side_code(side) == SIDE_LEFT
    upper = fill_code(uplo) == FILL_UPPER
    unit = diag_code(diag) == DIAG_UNIT
    ka = m if left else n
    _check_ld(lda=(lda, ka), ldb=(ldb, m))
    if m <= 0 or n <= 0:
        return
    b = matrix_view(B, m, n, ldb)
    if alpha == 0:
        b.zero_()
        return
    eye = torch.eye(ka, dtype=torch.bool, device=B.device)
    keep = _triangle(ka, upper, B.device) & ~eye if unit else _triangle(ka, upper, B.device)
    t = torch.where(keep, matrix_view(A, ka, ka, lda), torch.zeros((), dtype=B.dtype, device=B.device))
    if unit:
        t = t + eye.to(B.dtype)
    transposed = op_code(trans) != OP_N
    a = t.t() if transposed else t
    x = torch.linalg.solve_triangular(a, alpha * b, upper=upper != transposed, left=left)
    b.copy_(x)


TRSM_PARAMS = params([("side", "int | str"), ("uplo", "int | str"), ("trans", "int | str"),
                      ("diag", "int | str"), ("m", "int"), ("n", "int"), ("alpha", "float"), ("A", "Tensor"),
                      ("lda", "int"), ("B", "Tensor"), ("ldb", "int")], writes="B")

TRSM = Overload(
    name="cublasStrsm_v2", func_name="cublasStrsm_v2", params=TRSM_PARAMS,
    signature=signature("cublasStrsm_v2", TRSM_PARAMS), reference=trsm_reference,
    doc=(
        "Triangular solve with many right-hand sides, float32 column-major: solves op(A) @ X = alpha * B "
        "(side left) or X @ op(A) = alpha * B (side right) for X and overwrites B (m x n, ldb >= max(1, m)) "
        "with it. A is triangular, m x m when side is left and n x n when right (lda >= max(1, that "
        "order)); op(A) = A for N and A^T for T or C. Only the triangle of A named by uplo is read; when "
        "diag is unit the diagonal is taken as ones and not read either (the unread parts of A may hold "
        "NaN). Rows m..ldb-1 of each column of B are padding and must stay unchanged. When alpha == 0, B "
        "is set to zero and A is not read; when m == 0 or n == 0 the routine returns at once. "
        f"{FLAG_DOC} {ENUM_DOC} {pointer_doc(torch.float32)} So A has lda*m (left) or lda*n (right) "
        "elements and B has ldb*n."
    ),
)

# Diagonal entries have magnitude in [1, 2] (1 when unit) and each off-diagonal entry at most
# 1/(2*order), so every row and column of the triangle is diagonally dominant by a factor 2:
# ||A^-1|| <= 2 and cond(A) <= 5 in the infinity norm, and a backward-stable float32 solve is
# within a few times 5 * eps of the truth per element. The floor allows 32 ulps of |X|.
TRSM_TOLERANCE = Tolerance(k_rms=10.0, k_max=20.0, floor_ulps=32.0)


def _triangular_draw(order: int, ld: int, upper: bool, unit: bool, gen: torch.Generator) -> torch.Tensor:
    """A well-conditioned triangle (see TRSM_TOLERANCE); NaN wherever the routine must not read."""
    dev = gen.device
    off = (torch.rand((order, order), generator=gen, device=dev) * 2 - 1) / (2 * order)
    sign = torch.where(torch.rand(order, generator=gen, device=dev) < 0.5, -1.0, 1.0)
    dg = sign * (1 + torch.rand(order, generator=gen, device=dev))
    eye = torch.eye(order, dtype=torch.bool, device=dev)
    tri = _triangle(order, upper, dev)
    nan = torch.full((), math.nan, device=dev)
    full = torch.where(eye, nan if unit else dg, torch.where(tri, off, nan))
    buf = torch.full((ld * order,), math.nan, dtype=torch.float32, device=dev)
    if order:
        buf.as_strided((order, order), (1, ld)).copy_(full)
    return buf


# (side, uplo, trans, diag, m, n, lda pad, ldb pad, alpha)
TRSM_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 0, 0, 0, 1, 1, 0, 0, 1.0),
        (0, 0, 0, 0, 13, 7, 2, 1, 1.5),
        (0, 1, 0, 1, 17, 9, 0, 3, -0.5),
        (0, 0, 1, 0, 20, 5, 1, 0, 2.0),
        (0, 1, 2, 1, 9, 16, 0, 0, 1.0),
        (1, 0, 0, 1, 7, 13, 0, 2, 1.25),
        (1, 1, 0, 0, 11, 19, 3, 0, -1.0),
        (1, 0, "T", 0, 16, 33, 0, 1, 0.75),
        (1, 1, "C", "U", 5, 24, 1, 0, 1.0),
        ("L", "U", "N", "N", 40, 3, 0, 0, 0.5),
        ("R", "L", "T", "U", 6, 40, 0, 0, 1.0),
        (0, 0, 0, 0, 8, 6, 0, 1, 0.0),
        (0, 1, 0, 0, 0, 5, 0, 0, 1.0),
        (1, 0, 1, 1, 5, 0, 0, 0, 1.0),
    ],
    "large": [
        (0, 0, 0, 0, 512, 256, 0, 0, 1.0),
        (1, 1, 1, 1, 129, 500, 1, 3, -1.5),
    ],
    "perf": [
        (0, 0, 0, 0, 1024, 4096, 0, 0, 1.0),
        (1, 1, 1, 0, 4096, 1024, 0, 0, 1.0),
    ],
}


def trsm_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, pa: int, pb: int,
            alpha: float) -> dict[str, Any]:
        order = m if side_code(side) == SIDE_LEFT else n
        lda, ldb = max(1, order) + pa, max(1, m) + pb
        upper, unit = fill_code(uplo) == FILL_UPPER, diag_code(diag) == DIAG_UNIT
        a = Joint((lda * order,), torch.float32, (), partial(_triangular_draw, order, lda, upper, unit),
                  f"{'upper' if upper else 'lower'}{' unit' if unit else ''} triangle {order}x{order} ld {lda}")
        return {"side": side, "uplo": uplo, "trans": trans, "diag": diag, "m": m, "n": n, "alpha": alpha,
                "A": a, "lda": lda, "B": matrix_spec(m, n, ldb), "ldb": ldb}

    return iter(samples(row(*r) for r in TRSM_ROWS[size]))


# ---- strided-batched gemm ------------------------------------------------------------------------


def _batch(buf: torch.Tensor, rows: int, cols: int, ld: int, stride: int, count: int) -> torch.Tensor:
    """The (count, rows, cols) view of a strided batch; stride 0 repeats one matrix."""
    need = max(count - 1, 0) * stride + matrix_extent(rows, cols, ld)
    if buf.dim() != 1 or buf.numel() < need:
        raise ValueError(f"batch buffer: expected at least {need} elements, got {list(buf.shape)}")
    return buf.as_strided((count, rows, cols), (stride, 1, ld))


def gemm_batched_reference(transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any, A: torch.Tensor,
                           lda: int, strideA: int, B: torch.Tensor, ldb: int, strideB: int, beta: Any,
                           C: torch.Tensor, ldc: int, strideC: int, batchCount: int) -> None:
    """cuBLAS gemmStridedBatched: sgemm.f on each of batchCount matrix triples, matrix i starting at
    i * stride of its buffer; quick returns as sgemm.f, and batchCount == 0 returns at once."""
    (ar, ac), (br, bc) = _stored(transa, m, k), _stored(transb, k, n)
    _check_ld(lda=(lda, ar), ldb=(ldb, br), ldc=(ldc, m))
    if batchCount <= 0 or m <= 0 or n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return
    c = _batch(C, m, n, ldc, strideC, batchCount)
    if alpha == 0 or k <= 0:
        prod = torch.zeros(c.shape, dtype=C.dtype, device=C.device)
    else:
        a = _batch(A, ar, ac, lda, strideA, batchCount)
        b = _batch(B, br, bc, ldb, strideB, batchCount)
        a = a.transpose(1, 2) if op_code(transa) != OP_N else a
        b = b.transpose(1, 2) if op_code(transb) != OP_N else b
        prod = alpha * (a.to(C.dtype) @ b.to(C.dtype))
    c.copy_(prod if beta == 0 else prod + beta * c)


def _batched_params(scalar: str, count: str) -> tuple:
    return params([("transa", "int | str"), ("transb", "int | str"), ("m", count), ("n", count), ("k", count),
                   ("alpha", scalar), ("A", "Tensor"), ("lda", count), ("strideA", "int"), ("B", "Tensor"),
                   ("ldb", count), ("strideB", "int"), ("beta", scalar), ("C", "Tensor"), ("ldc", count),
                   ("strideC", "int"), ("batchCount", count)], writes="C")


def batched_overload(name: str, dtype: torch.dtype, extra: str) -> Overload:
    ps = _batched_params("float", "int")
    dt = str(dtype).replace("torch.", "")
    return Overload(
        name=name, func_name=name, params=ps, signature=signature(name, ps), reference=gemm_batched_reference,
        doc=(
            f"For i in 0..batchCount-1: C_i := alpha * op(A_i) @ op(B_i) + beta * C_i, all column-major {dt}, "
            "where A_i starts at element i*strideA of A, B_i at i*strideB of B and C_i at i*strideC of C "
            "(a stride of 0 uses the same matrix for every i; strides may exceed the matrix, leaving gaps "
            "between matrices that must stay unchanged). op(A_i) is m x k, op(B_i) k x n, C_i m x n. A_i is "
            "stored m x k (lda >= max(1, m)) when transa is N and k x m (lda >= max(1, k)) when T or C; B_i "
            "is stored k x n (ldb >= max(1, k)) when transb is N and n x k (ldb >= max(1, n)) when T or C; "
            "ldc >= max(1, m); the C_i do not overlap. Writes C in place and returns None; rows m..ldc-1 of "
            f"each column are padding and must stay unchanged. {extra} When beta == 0, C is not read (it may "
            "hold NaN). When k == 0 or alpha == 0, C_i := beta * C_i and A and B are not read. When m == 0, "
            "n == 0 or batchCount == 0 the routine returns at once. "
            f"{ENUM_DOC} {pointer_doc(dtype)} A buffer holds (batchCount-1)*stride + ld*cols elements "
            "(ld*cols when batchCount is 0 or 1), cols being the stored matrix's column count."
        ),
    )


# (transa, transb, m, n, k, lda pad, ldb pad, ldc pad, A stride extra (None: 0), B stride extra,
#  C stride extra, batch, alpha, beta, C arrives all-NaN)
BATCHED_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1.0, 0.0, False),
        (0, 0, 7, 13, 5, 0, 0, 0, 0, 0, 0, 3, 1.5, -0.5, False),
        (1, 0, 17, 9, 33, 3, 0, 1, 5, 0, 7, 2, -1.25, 1.0, False),
        (0, 1, 20, 11, 7, 0, 1, 2, None, 0, 3, 4, 0.5, 0.0, True),
        (1, 1, 9, 16, 19, 1, 2, 0, 0, None, 0, 3, 2.0, 0.75, False),
        ("C", "N", 16, 8, 24, 0, 0, 0, 2, 2, 2, 2, 1.0, 1.0, False),
        ("N", "C", 8, 24, 16, 2, 0, 1, 0, 0, 0, 2, -0.5, 2.0, False),
        ("T", "T", 32, 32, 32, 0, 0, 0, 0, 0, 0, 2, 1.0, 0.0, True),
        (0, 0, 9, 11, 0, 0, 0, 1, 0, 0, 0, 2, 1.0, 0.5, False),
        (1, 0, 12, 10, 20, 0, 0, 0, 0, 0, 4, 2, 0.0, -1.0, False),
        (0, 0, 6, 5, 4, 0, 0, 0, 0, 0, 0, 0, 1.0, 0.5, False),
        (0, 1, 0, 5, 4, 0, 0, 0, 0, 0, 0, 2, 1.0, 0.5, False),
    ],
    "large": [
        (0, 0, 512, 512, 512, 0, 0, 0, 0, 0, 0, 8, 1.0, 0.0, False),
        (1, 0, 257, 129, 1023, 1, 0, 3, 17, None, 5, 5, 1.5, -0.5, False),
    ],
    "perf": [
        (0, 0, 1024, 1024, 1024, 0, 0, 0, 0, 0, 0, 16, 1.0, 0.0, False),
        (1, 0, 128, 128, 4096, 0, 0, 0, 0, 0, 0, 256, 1.0, 0.0, False),
        (0, 0, 4096, 128, 128, 0, 0, 0, 0, 0, 0, 64, 1.0, 1.0, False),
    ],
}


def _batched_row(dtype: torch.dtype, ta: Any, tb: Any, m: int, n: int, k: int, pa: int, pb: int, pc: int,
                 xa: int | None, xb: int | None, xc: int, batch: int, alpha: float, beta: float,
                 poison: bool) -> dict[str, Any]:
    (ar, ac), (br, bc) = _stored(ta, m, k), _stored(tb, k, n)
    lda, ldb, ldc = max(1, ar) + pa, max(1, br) + pb, max(1, m) + pc
    sa = 0 if xa is None else lda * ac + xa
    sb = 0 if xb is None else ldb * bc + xb
    sc = ldc * n + xc
    c = matrix_spec(1, batched_len(m, n, ldc, sc, batch), 1, dtype)
    return {"transa": ta, "transb": tb, "m": m, "n": n, "k": k, "alpha": alpha,
            "A": matrix_spec(1, batched_len(ar, ac, lda, sa, batch), 1, dtype), "lda": lda, "strideA": sa,
            "B": matrix_spec(1, batched_len(br, bc, ldb, sb, batch), 1, dtype), "ldb": ldb, "strideB": sb,
            "beta": beta, "C": poisoned(c) if poison else c, "ldc": ldc, "strideC": sc, "batchCount": batch}


def batched_sampler(dtype: torch.dtype, extra_perf: tuple[tuple[Any, ...], ...] = ()):
    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = BATCHED_ROWS[size] + (list(extra_perf) if size == "perf" else [])
        return iter(samples(_batched_row(dtype, *r) for r in rows))

    return sampler


# One perf case of the _64 routine addresses past 2^31 elements: A's stride is 2^31 + 1024 (an int64
# argument), so A holds about 2.15e9 float64 (17 GiB); cheap in flops, it proves 64-bit addressing.
BIG_STRIDE = 2**31 + 1024
DGEMM64_BIG = (0, 0, 4096, 256, 4096, 0, 0, 0, BIG_STRIDE - 4096 * 4096, 0, 0, 2, 1.0, 0.0, False)

# cuBLAS's Hgemm may accumulate in fp16 (its products round to fp16 per step), so its error grows with
# k; a float32-accumulating candidate is then far inside the matmul tolerance, and a null fails it.
FP16_NOTE = ("alpha and beta are Python floats (cuBLAS takes them as __half; the drawn values are exact in "
             "fp16). cuBLAS may accumulate in fp16; accumulating in float32 and rounding once is fine.")


# ---- SgemmEx -------------------------------------------------------------------------------------


def sgemm_ex_reference(transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any, A: torch.Tensor, Atype: int,
                       lda: int, B: torch.Tensor, Btype: int, ldb: int, beta: Any, C: torch.Tensor, Ctype: int,
                       ldc: int) -> None:
    """sgemm.f with A and B widened to C's precision: cuBLAS computes SgemmEx in float32."""
    sgemm_reference(transa, transb, m, n, k, alpha, A.to(C.dtype), lda, B.to(C.dtype), ldb, beta, C, ldc)


EX_PARAMS = params([("transa", "int | str"), ("transb", "int | str"), ("m", "int"), ("n", "int"), ("k", "int"),
                    ("alpha", "float"), ("A", "Tensor"), ("Atype", "int"), ("lda", "int"), ("B", "Tensor"),
                    ("Btype", "int"), ("ldb", "int"), ("beta", "float"), ("C", "Tensor"), ("Ctype", "int"),
                    ("ldc", "int")], writes="C")

SGEMM_EX = Overload(
    name="cublasSgemmEx", func_name="cublasSgemmEx", params=EX_PARAMS,
    signature=signature("cublasSgemmEx", EX_PARAMS), reference=sgemm_ex_reference,
    doc=(
        "C := alpha * op(A) @ op(B) + beta * C with op(A) m x k, op(B) k x n and C m x n, all column-major, "
        "computed in float32 whatever the storage types. Atype, Btype and Ctype are cudaDataType_t ints "
        "naming the element type of each buffer: 0 = CUDA_R_32F (float32), 2 = CUDA_R_16F (float16), "
        "14 = CUDA_R_16BF (bfloat16), 3 = CUDA_R_8I (int8). The supported combinations (Atype = Btype) "
        "are 16BF -> 16BF, 16F -> 16F, and 8I, 16BF, 16F or 32F -> 32F; A, B and C are tensors of those "
        "dtypes. Multiply in full float32 precision (no TF32 for float32 data; 16-bit and int8 products "
        "are exact in float32), accumulate in float32, and round to Ctype once when storing. A is stored "
        "m x k (lda >= max(1, m)) when transa is N and k x m (lda >= max(1, k)) when T or C; B is stored "
        "k x n (ldb >= max(1, k)) when transb is N and n x k (ldb >= max(1, n)) when T or C; ldc >= max(1, m). "
        "Writes C in place and returns None; rows m..ldc-1 of each column of C are padding and must stay "
        "unchanged. alpha and beta are Python floats. When beta == 0, C is not read (it may hold NaN). When "
        "k == 0 or alpha == 0, C := beta * C and A and B are not read. When m == 0 or n == 0 the routine "
        f"returns at once. {ENUM_DOC} {pointer_doc(torch.float32).replace('float32 ', '')} So A has lda*k "
        "(N) or lda*m (T/C) elements, B has ldb*n (N) or ldb*k (T/C), and C has ldc*n."
    ),
)

# (Atype = Btype, Ctype, transa, transb, m, n, k, lda pad, ldb pad, ldc pad, alpha, beta, C all-NaN)
EX_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (CUDA_R_32F, CUDA_R_32F, 0, 0, 7, 13, 5, 0, 0, 0, 1.5, -0.5, False),
        (CUDA_R_16F, CUDA_R_32F, 1, 0, 33, 17, 65, 3, 0, 1, -1.25, 1.0, False),
        (CUDA_R_16BF, CUDA_R_32F, 0, 1, 20, 9, 31, 0, 2, 0, 0.5, 0.0, True),
        (CUDA_R_8I, CUDA_R_32F, "T", "N", 16, 24, 40, 0, 0, 2, 1.0, 0.5, False),
        (CUDA_R_8I, CUDA_R_32F, 0, 0, 9, 5, 13, 1, 0, 0, -0.5, 0.0, True),
        (CUDA_R_16F, CUDA_R_16F, 0, 0, 19, 40, 37, 1, 2, 3, 2.0, 0.75, False),
        (CUDA_R_16F, CUDA_R_16F, "C", "C", 32, 32, 64, 0, 0, 0, 1.0, 0.0, True),
        (CUDA_R_16BF, CUDA_R_16BF, 1, 1, 17, 9, 33, 0, 1, 0, 1.0, -1.0, False),
        (CUDA_R_16BF, CUDA_R_16BF, "N", "T", 8, 16, 24, 2, 0, 1, 0.5, 0.0, True),
        (CUDA_R_32F, CUDA_R_32F, 1, 1, 12, 10, 0, 0, 0, 1, 1.0, 0.5, False),
        (CUDA_R_16F, CUDA_R_32F, 0, 0, 12, 10, 20, 0, 0, 0, 0.0, -1.0, False),
        (CUDA_R_16BF, CUDA_R_32F, 0, 1, 0, 5, 4, 0, 0, 0, 1.0, 0.5, False),
    ],
    "large": [
        (CUDA_R_16F, CUDA_R_32F, 0, 0, 1024, 1024, 4096, 0, 0, 0, 1.0, 0.0, False),
        (CUDA_R_16BF, CUDA_R_16BF, 1, 0, 1001, 511, 1023, 1, 0, 3, 1.5, -0.5, False),
        (CUDA_R_8I, CUDA_R_32F, 0, 1, 257, 255, 2048, 0, 5, 0, 1.0, 1.0, False),
    ],
    "perf": [
        (CUDA_R_16BF, CUDA_R_32F, 1, 0, 4096, 4096, 4096, 0, 0, 0, 1.0, 0.0, False),
        (CUDA_R_16F, CUDA_R_16F, 1, 0, 14336, 2048, 4096, 0, 0, 0, 1.0, 0.0, False),
        (CUDA_R_8I, CUDA_R_32F, 0, 1, 4096, 4096, 4096, 0, 0, 0, 1.0, 0.0, False),
    ],
}


def _ex_spec(dtype: torch.dtype, rows: int, cols: int, ld: int):
    spec = matrix_spec(rows, cols, ld, dtype)
    if dtype == torch.int8:  # small integers: every float32 sum of their products is exact
        return type(spec)(spec.shape, dtype, low=-16, high=16)
    return spec


def ex_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(ab: int, ct: int, ta: Any, tb: Any, m: int, n: int, k: int, pa: int, pb: int, pc: int, alpha: float,
            beta: float, poison: bool) -> dict[str, Any]:
        (ar, ac), (br, bc) = _stored(ta, m, k), _stored(tb, k, n)
        lda, ldb, ldc = max(1, ar) + pa, max(1, br) + pb, max(1, m) + pc
        c = matrix_spec(m, n, ldc, DATA_TYPES[ct])
        return {"transa": ta, "transb": tb, "m": m, "n": n, "k": k, "alpha": alpha,
                "A": _ex_spec(DATA_TYPES[ab], ar, ac, lda), "Atype": ab, "lda": lda,
                "B": _ex_spec(DATA_TYPES[ab], br, bc, ldb), "Btype": ab, "ldb": ldb, "beta": beta,
                "C": poisoned(c) if poison else c, "Ctype": ct, "ldc": ldc}

    return iter(samples(row(*r) for r in EX_ROWS[size]))


ALIAS_NOTE = ("cuBLAS's in-place forms (C == A with transa N and ldc == lda, C == B likewise) are not drawn: "
              "the harness hands every pointer its own tensor.")

OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasSgeam": partial(
        blas_operator, "cublasSgeam", "blas3",
        "cuBLAS single-precision matrix addition/transposition: C := alpha * op(A) + beta * op(B), column-major.",
        GEAM, geam_sampler, notes=ALIAS_NOTE,
    ),
    "cublasSdgmm": partial(
        blas_operator, "cublasSdgmm", "blas3",
        "cuBLAS single-precision diagonal scaling: C := A @ diag(x) or diag(x) @ A, column-major, strided x.",
        DGMM, dgmm_sampler, notes="The in-place form (C == A with ldc == lda) is not drawn: the harness hands "
                                  "every pointer its own tensor.",
    ),
    "cublasSsyrk_v2": partial(
        blas_operator, "cublasSsyrk_v2", "blas3",
        "cuBLAS single-precision symmetric rank-k update of one triangle of C: C := alpha * op(A) op(A)^T + "
        "beta * C, column-major, full fp32.",
        SYRK, syrk_sampler, tolerance=MATMUL_TOLERANCE,
    ),
    "cublasStrsm_v2": partial(
        blas_operator, "cublasStrsm_v2", "blas3",
        "cuBLAS single-precision triangular solve with many right-hand sides, B overwritten by the solution.",
        TRSM, trsm_sampler, tolerance=TRSM_TOLERANCE,
        notes="A is drawn diagonally dominant (cond <= 5), with NaN in every position the routine must not read.",
    ),
    "cublasSgemmStridedBatched": partial(
        blas_operator, "cublasSgemmStridedBatched", "blas3",
        "cuBLAS single-precision strided-batched matrix product, full fp32.",
        batched_overload("cublasSgemmStridedBatched", torch.float32,
                         "alpha and beta are Python floats. Compute in full float32 precision (no TF32)."),
        batched_sampler(torch.float32), tolerance=MATMUL_TOLERANCE,
    ),
    "cublasDgemmStridedBatched": partial(
        blas_operator, "cublasDgemmStridedBatched", "blas3",
        "cuBLAS double-precision strided-batched matrix product.",
        batched_overload("cublasDgemmStridedBatched", torch.float64, "alpha and beta are Python floats."),
        batched_sampler(torch.float64), tolerance=FLOAT64_MATMUL,
        notes="float64: the floor is 64 ulps of |A| |B|, since the truth is float64 too.",
    ),
    "cublasDgemmStridedBatched_64": partial(
        blas_operator, "cublasDgemmStridedBatched_64", "blas3",
        "cuBLAS double-precision strided-batched matrix product, 64-bit integer sizes and strides.",
        batched_overload("cublasDgemmStridedBatched_64", torch.float64,
                         "alpha and beta are Python floats. Sizes, leading dimensions, strides and batchCount "
                         "are 64-bit integers: offsets can exceed 2^31 elements."),
        batched_sampler(torch.float64, (DGEMM64_BIG,)), tolerance=FLOAT64_MATMUL,
        notes="float64 floor as the 32-bit routine; one perf case addresses past 2^31 elements (17 GiB of A).",
    ),
    "cublasHgemmStridedBatched": partial(
        blas_operator, "cublasHgemmStridedBatched", "blas3",
        "cuBLAS half-precision strided-batched matrix product (fp16 data, fp16 results).",
        batched_overload("cublasHgemmStridedBatched", torch.float16, FP16_NOTE),
        batched_sampler(torch.float16), tolerance=MATMUL_TOLERANCE,
    ),
    "cublasSgemmEx": partial(
        blas_operator, "cublasSgemmEx", "blas3",
        "cuBLAS mixed-precision matrix product computed in float32: fp32, fp16, bf16 or int8 operands, "
        "fp32, fp16 or bf16 C.",
        SGEMM_EX, ex_sampler, tolerance=MATMUL_TOLERANCE,
        notes="Only the combinations the cuBLAS documentation lists for cublasSgemmEx are drawn.",
    ),
}
