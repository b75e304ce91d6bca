"""Real BLAS level 2 beyond gemv: Sger, Dsyr2, Strsv, Dsbmv, Stbmv and S/D gemvStridedBatched.

Each reference follows the netlib reference BLAS (sger.f, dsyr2.f, strsv.f, dsbmv.f, stbmv.f) and
cuBLAS's documentation of cublas<t>ger/syr2/trsv/sbmv/tbmv and cublas<t>gemvStridedBatched.
Matrix storage a routine does not reference (the other triangle, a unit diagonal, the unused
corners of a band, the rows between the matrix and its leading dimension) arrives holding NaN in
the read-only matrices, so a candidate that reads it fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import SUM_TOLERANCE
from ..spec import Joint, Operator, Overload, Size, Tolerance
from .family import (
    ENUM_DOC,
    OP_N,
    PRECISIONS,
    blas_operator,
    matrix_spec,
    matrix_view,
    op_code,
    params,
    pointer_doc,
    poisoned,
    samples,
    signature,
    vector_spec,
    vector_view,
    write_vector,
)
from .level2 import FLOAT64_FLOOR, gemv_reference
from .library import diag_code, fill_code, vector_extent

FILL_LOWER, FILL_UPPER = 0, 1
DIAG_NON_UNIT, DIAG_UNIT = 0, 1
NAN = float("nan")

FLAG_DOC = (
    "uplo is a cublasFillMode_t given as an int (0 = CUBLAS_FILL_MODE_LOWER, 1 = CUBLAS_FILL_MODE_UPPER) "
    "or a letter ('L', 'U'); diag is a cublasDiagType_t given as an int (0 = CUBLAS_DIAG_NON_UNIT, "
    "1 = CUBLAS_DIAG_UNIT) or a letter ('N', 'U'); both forms are used."
)
UNREFERENCED_DOC = (
    "Storage of A that the routine does not reference (see above) may hold NaN and must not be read."
)


def _dt(prec: str) -> str:
    return str(PRECISIONS[prec]).replace("torch.", "")


def _overload(name: str, ps: Any, reference: Callable[..., None], doc: str) -> Overload:
    return Overload(name=name, func_name=name, params=ps, signature=signature(name, ps), reference=reference, doc=doc)


# ---- the masks of referenced storage ------------------------------------------------------------


def triangle_mask(n: int, lda: int, uplo: Any, unit: bool, device: torch.device | str = "cpu") -> torch.Tensor:
    """True at the storage positions of an n x n triangular matrix that trsv/syr2 reference (built on the
    device that draws: on the host, a perf case's mask cost a second of host work in a device hold)."""
    i = torch.arange(lda, device=device)[:, None]
    j = torch.arange(n, device=device)[None, :]
    keep = (i <= j) if fill_code(uplo) == FILL_UPPER else (i >= j) & (i < n)
    if unit:
        keep &= i != j
    return keep.t().reshape(-1)  # column-major: column j is the j-th run of lda


def band_mask(n: int, k: int, lda: int, uplo: Any, unit: bool, device: torch.device | str = "cpu") -> torch.Tensor:
    """True at the storage positions of a band matrix (k off-diagonals) that sbmv/tbmv reference.

    Upper (dsbmv.f, stbmv.f): A(i, j) for max(0, j-k) <= i <= j sits at row k+i-j of column j, the
    diagonal in row k. Lower: A(i, j) for j <= i <= min(n-1, j+k) sits at row i-j, the diagonal in row 0."""
    r = torch.arange(lda, device=device)[:, None]
    j = torch.arange(n, device=device)[None, :]
    if fill_code(uplo) == FILL_UPPER:
        i = j - k + r
        diag_row = k
    else:
        i = j + r
        diag_row = 0
    keep = (r <= k) & (i >= 0) & (i < n)
    if unit:
        keep &= r != diag_row
    return keep.t().reshape(-1)


def _masked(values: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    return torch.where(keep, values, torch.full_like(values, NAN))


def triangular_draw(n: int, lda: int, uplo: Any, unit: bool, dtype: torch.dtype) -> Joint:
    """A well-conditioned triangular A for trsv: off-diagonal entries uniform in +-0.5/n, so every
    row and column of the off-diagonal part sums to at most 0.5 in magnitude, and a diagonal of
    magnitude 1 to 2 with random signs (1 when unit): infinity-norm condition number at most 6, so
    a float32 solve is good to a few ulps and a candidate's error is judged against that."""

    def draw(gen: torch.Generator) -> torch.Tensor:
        dev = gen.device
        off = (torch.rand(lda * n, generator=gen, device=dev, dtype=torch.float64) * 2 - 1) * (0.5 / max(n, 1))
        mag = 1 + torch.rand(n, generator=gen, device=dev, dtype=torch.float64)
        sign = torch.where(torch.rand(n, generator=gen, device=dev) < 0.5, -1.0, 1.0).to(torch.float64)
        a = off.reshape(n, lda)  # row j of this view is column j of A
        if n:
            a[torch.arange(n, device=dev), torch.arange(n, device=dev)] = mag * sign
        return _masked(a.reshape(-1), triangle_mask(n, lda, uplo, unit, dev)).to(dtype)

    what = f"triangular {'unit' if unit else 'non-unit'} {n}x{n} lda={lda}, NaN where unreferenced"
    return Joint((lda * n,), dtype, (), draw, what)


def band_draw(n: int, k: int, lda: int, uplo: Any, unit: bool, dtype: torch.dtype) -> Joint:
    """Normal band entries in the referenced positions, NaN everywhere else."""

    def draw(gen: torch.Generator) -> torch.Tensor:
        vals = torch.randn(lda * n, generator=gen, device=gen.device, dtype=torch.float64)
        return _masked(vals, band_mask(n, k, lda, uplo, unit, gen.device)).to(dtype)

    return Joint((lda * n,), dtype, (), draw, f"band k={k} lda={lda}, NaN where unreferenced")


# ---- ger --------------------------------------------------------------------------------------


def ger_reference(m: int, n: int, alpha: Any, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                  A: torch.Tensor, lda: int) -> None:
    """sger.f: A := alpha * x @ y^T + A; quick return when m == 0, n == 0 or alpha == 0."""
    if lda < max(1, m):
        raise ValueError(f"lda={lda} < max(1, m={m})")
    if m <= 0 or n <= 0 or alpha == 0:
        return
    a = matrix_view(A, m, n, lda)
    a.copy_(a + alpha * torch.outer(vector_view(x, m, incx), vector_view(y, n, incy)))


GER_PARAMS = params([("m", "int"), ("n", "int"), ("alpha", "float"), ("x", "Tensor"), ("incx", "int"),
                     ("y", "Tensor"), ("incy", "int"), ("A", "Tensor"), ("lda", "int")], writes="A")


def ger_overload(prec: str) -> Overload:
    return _overload(
        f"cublas{prec}ger_v2", GER_PARAMS, ger_reference,
        f"The rank-1 update A := alpha * x @ y^T + A, where A is an m x n column-major {_dt(prec)} matrix with "
        "leading dimension lda >= max(1, m), x has m logical elements (increment incx) and y has n (increment "
        "incy). Writes A in place and returns None; rows m..lda-1 of each column are not touched. alpha is a "
        "Python float; the increments are nonzero and may be negative. When m == 0, n == 0 or alpha == 0 the "
        f"routine returns at once and A is unchanged. {pointer_doc(PRECISIONS[prec])} So A has lda*n elements.",
    )


# (m, n, lda - m, incx, incy, alpha)
GER: dict[str, list[tuple[int, int, int, int, int, float]]] = {
    "small": [(1, 1, 0, 1, 1, 1.0), (7, 13, 2, 1, 1, 1.5), (33, 17, 0, -1, 2, -0.75), (16, 40, 3, 2, -3, 2.0),
              (50, 3, 0, -2, -1, 0.5), (3, 64, 1, 1, 1, 1.0), (20, 20, 0, 1, 1, 0.0), (0, 5, 0, 1, 1, 1.0),
              (5, 0, 0, 1, 1, 1.0), (64, 33, 0, 3, 1, -1.25), (100, 1, 0, 1, 1, 1.0), (1, 100, 0, 1, -1, 1.0)],
    "large": [(4099, 1021, 1, -2, 3, -0.75), (4096, 4096, 0, 1, 1, 1.0)],
    "perf": [(8192, 8192, 0, 1, 1, 1.0), (4096, 14336, 0, 1, 1, 1.0), (14336, 4096, 0, 1, 1, -0.5)],
}


def ger_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = ({"m": m, "n": n, "alpha": alpha, "x": vector_spec(m, incx, dtype), "incx": incx,
                 "y": vector_spec(n, incy, dtype), "incy": incy, "A": matrix_spec(m, n, max(1, m) + pad, dtype),
                 "lda": max(1, m) + pad} for m, n, pad, incx, incy, alpha in GER[size])
        return iter(samples(rows))

    return sampler


# ---- syr2 -------------------------------------------------------------------------------------


def syr2_reference(uplo: Any, n: int, alpha: Any, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                   A: torch.Tensor, lda: int) -> None:
    """dsyr2.f: A := alpha * (x y^T + y x^T) + A on the uplo triangle only; quick return when n == 0 or
    alpha == 0."""
    if lda < max(1, n):
        raise ValueError(f"lda={lda} < max(1, n={n})")
    upper = fill_code(uplo) == FILL_UPPER
    if n <= 0 or alpha == 0:
        return
    xv, yv = vector_view(x, n, incx), vector_view(y, n, incy)
    a = matrix_view(A, n, n, lda)
    update = a + alpha * (torch.outer(xv, yv) + torch.outer(yv, xv))
    keep = torch.ones(n, n, dtype=torch.bool, device=A.device)
    keep = keep.triu() if upper else keep.tril()
    a.copy_(torch.where(keep, update, a))


SYR2_PARAMS = params([("uplo", "int | str"), ("n", "int"), ("alpha", "float"), ("x", "Tensor"), ("incx", "int"),
                      ("y", "Tensor"), ("incy", "int"), ("A", "Tensor"), ("lda", "int")], writes="A")


def syr2_overload(prec: str) -> Overload:
    return _overload(
        f"cublas{prec}syr2_v2", SYR2_PARAMS, syr2_reference,
        f"The symmetric rank-2 update A := alpha * (x @ y^T + y @ x^T) + A, where A is an n x n symmetric "
        f"column-major {_dt(prec)} matrix with leading dimension lda >= max(1, n) of which only the triangle "
        "named by uplo (diagonal included) is stored and updated: lower means elements (i, j) with i >= j, "
        "upper i <= j. The other triangle and rows n..lda-1 are not referenced and must stay unchanged. x "
        "and y have n logical elements (increments incx, incy: nonzero, may be negative). Writes A in place "
        "and returns None; alpha is a Python float. When n == 0 or alpha == 0 the routine returns at once. "
        f"{FLAG_DOC} {pointer_doc(PRECISIONS[prec])} So A has lda*n elements.",
    )


# (uplo, n, lda - n, incx, incy, alpha)
SYR2: dict[str, list[tuple[Any, int, int, int, int, float]]] = {
    "small": [(0, 1, 0, 1, 1, 1.0), (1, 7, 2, 1, 1, 1.5), ("L", 33, 0, -1, 2, -0.75), ("U", 40, 3, 2, -3, 2.0),
              (0, 50, 0, -2, -1, 0.5), (1, 64, 1, 1, 1, 1.0), (0, 20, 0, 1, 1, 0.0), (1, 0, 0, 1, 1, 1.0),
              (1, 65, 0, 3, 1, -1.25), ("L", 17, 5, 1, -1, 1.0)],
    "large": [(1, 4099, 1, -2, 3, -0.75), (0, 4096, 0, 1, 1, 1.0)],
    "perf": [(0, 8192, 0, 1, 1, 1.0), (1, 8192, 0, 1, 1, 0.5), (1, 12288, 0, 1, 1, -1.0)],
}


def syr2_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = ({"uplo": uplo, "n": n, "alpha": alpha, "x": vector_spec(n, incx, dtype), "incx": incx,
                 "y": vector_spec(n, incy, dtype), "incy": incy, "A": matrix_spec(n, n, max(1, n) + pad, dtype),
                 "lda": max(1, n) + pad} for uplo, n, pad, incx, incy, alpha in SYR2[size])
        return iter(samples(rows))

    return sampler


# ---- trsv -------------------------------------------------------------------------------------


def triangle_of(A: torch.Tensor, uplo: Any, diag: Any, n: int, lda: int) -> torch.Tensor:
    """The triangular matrix A stands for, read from its referenced storage only."""
    a = matrix_view(A, n, n, lda)
    keep = torch.ones(n, n, dtype=torch.bool, device=A.device)
    keep = keep.triu() if fill_code(uplo) == FILL_UPPER else keep.tril()
    if diag_code(diag) == DIAG_UNIT:
        keep &= ~torch.eye(n, dtype=torch.bool, device=A.device)
    t = torch.where(keep, a, torch.zeros_like(a))
    if diag_code(diag) == DIAG_UNIT:
        t = t + torch.eye(n, dtype=A.dtype, device=A.device)
    return t


def trsv_reference(uplo: Any, trans: Any, diag: Any, n: int, A: torch.Tensor, lda: int, x: torch.Tensor,
                   incx: int) -> None:
    """strsv.f: solves op(A) x = b for x, b arriving in x; quick return when n == 0."""
    if lda < max(1, n):
        raise ValueError(f"lda={lda} < max(1, n={n})")
    op = op_code(trans)
    if n <= 0:
        return
    t = triangle_of(A, uplo, diag, n, lda)
    upper = fill_code(uplo) == FILL_UPPER
    if op != OP_N:
        t, upper = t.t(), not upper
    b = vector_view(x, n, incx)
    write_vector(x, n, incx, torch.linalg.solve_triangular(t, b[:, None], upper=upper)[:, 0])


TRSV_PARAMS = params([("uplo", "int | str"), ("trans", "int | str"), ("diag", "int | str"), ("n", "int"),
                      ("A", "Tensor"), ("lda", "int"), ("x", "Tensor"), ("incx", "int")], writes="x")


def trsv_overload(prec: str) -> Overload:
    return _overload(
        f"cublas{prec}trsv_v2", TRSV_PARAMS, trsv_reference,
        f"Solves the triangular system op(A) @ x = b, where A is an n x n triangular column-major {_dt(prec)} "
        "matrix with leading dimension lda >= max(1, n), op(A) = A for trans N and A^T for T or C, and b "
        "arrives in x (n logical elements, increment incx: nonzero, may be negative); x is overwritten with "
        "the solution and None returned. uplo says which triangle of A holds the matrix (lower: elements "
        "(i, j) with i >= j; upper: i <= j); the other triangle is not referenced. With diag unit the "
        "diagonal is taken to be 1 and is not referenced. When n == 0 the routine returns at once. The "
        f"matrices are well conditioned. {UNREFERENCED_DOC} {FLAG_DOC} {ENUM_DOC} "
        f"{pointer_doc(PRECISIONS[prec])} So A has lda*n elements.",
    )


# (uplo, trans, diag, n, lda - n, incx)
TRSV: dict[str, list[tuple[Any, Any, Any, int, int, int]]] = {
    "small": [(0, 0, 0, 1, 0, 1), (0, 0, 0, 7, 2, 1), (1, 0, 0, 33, 0, -1), (0, 1, 0, 40, 0, 2),
              (1, 1, 1, 50, 3, 1), (0, 2, 1, 65, 0, -2), ("U", "N", "U", 64, 0, 1), ("L", "T", "N", 100, 1, -1),
              ("U", "C", "N", 17, 0, 3), ("L", "N", "U", 31, 0, 1), (1, 2, 0, 45, 0, 1), (0, 1, 1, 130, 0, 1),
              (1, 0, 1, 0, 0, 1), (0, "T", "U", 1, 0, 1)],
    "large": [(0, 0, 0, 2048, 0, 1), (1, 1, 1, 3001, 1, -2)],
    "perf": [(0, 0, 0, 4096, 0, 1), (1, 1, 0, 8192, 0, 1), (1, 0, 1, 8192, 0, 1)],
}


def trsv_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(uplo: Any, trans: Any, diag: Any, n: int, pad: int, incx: int) -> dict[str, Any]:
            lda = max(1, n) + pad
            return {"uplo": uplo, "trans": trans, "diag": diag, "n": n,
                    "A": triangular_draw(n, lda, uplo, diag_code(diag) == DIAG_UNIT, dtype), "lda": lda,
                    "x": vector_spec(n, incx, dtype), "incx": incx}

        return iter(samples(row(*r) for r in TRSV[size]))

    return sampler


# ---- band matrices: sbmv and tbmv ---------------------------------------------------------------


def band_diagonal(A: torch.Tensor, n: int, k: int, lda: int, uplo: Any, d: int) -> torch.Tensor:
    """The n-d values of the d-th off-diagonal held in band storage: A(t, t+d) for upper, A(t+d, t)
    for lower, t = 0..n-d-1."""
    if lda < k + 1:
        raise ValueError(f"lda={lda} < k+1={k + 1}")
    rows = A.as_strided((k + 1, n), (1, lda))
    return rows[k - d, d:] if fill_code(uplo) == FILL_UPPER else rows[d, : n - d]


def sbmv_reference(uplo: Any, n: int, k: int, alpha: Any, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int,
                   beta: Any, y: torch.Tensor, incy: int) -> None:
    """dsbmv.f: y := alpha * A @ x + beta * y, A symmetric band; quick return when n == 0 or (alpha == 0 and
    beta == 1); y is not read when beta == 0."""
    if lda < k + 1:
        raise ValueError(f"lda={lda} < k+1={k + 1}")
    if n <= 0 or (alpha == 0 and beta == 1):
        return
    xv = vector_view(x, n, incx)
    prod = torch.zeros(n, dtype=y.dtype, device=y.device)
    if alpha != 0:
        for d in range(min(k, n - 1) + 1):
            v = band_diagonal(A, n, k, lda, uplo, d)
            prod[: n - d] += v * xv[d:]
            if d:
                prod[d:] += v * xv[: n - d]
        prod = alpha * prod
    out = prod if beta == 0 else prod + beta * vector_view(y, n, incy)
    write_vector(y, n, incy, out)


SBMV_PARAMS = params([("uplo", "int | str"), ("n", "int"), ("k", "int"), ("alpha", "float"), ("A", "Tensor"),
                      ("lda", "int"), ("x", "Tensor"), ("incx", "int"), ("beta", "float"), ("y", "Tensor"),
                      ("incy", "int")], writes="y")

BAND_DOC = (
    "A is stored in the reference BLAS's band format, column-major with leading dimension lda >= k+1: for "
    "uplo upper, element (i, j) of the band (max(0, j-k) <= i <= j) is A[k+i-j + j*lda], the diagonal in "
    "row k; for uplo lower, element (i, j) (j <= i <= min(n-1, j+k)) is A[i-j + j*lda], the diagonal in "
    "row 0. Band positions outside the matrix (the top-left corner for upper, the bottom-right for "
    "lower) and rows k+1..lda-1 are not referenced."
)


def sbmv_overload(prec: str) -> Overload:
    return _overload(
        f"cublas{prec}sbmv_v2", SBMV_PARAMS, sbmv_reference,
        "y := alpha * A @ x + beta * y, where A is an n x n symmetric band matrix with k super- and k "
        f"sub-diagonals ({_dt(prec)}), of which only the triangle named by uplo is stored. {BAND_DOC} x and y "
        "have n logical elements (increments incx, incy: nonzero, may be negative). Writes y in place and "
        "returns None; alpha and beta are Python floats. When beta == 0, y is not read (it may hold NaN). "
        "When n == 0, or alpha == 0 and beta == 1, the routine returns at once. "
        f"{UNREFERENCED_DOC} {FLAG_DOC} {pointer_doc(PRECISIONS[prec])} So A has lda*n elements.",
    )


# (uplo, n, k, lda - (k+1), incx, incy, alpha, beta, y arrives all-NaN)
SBMV: dict[str, list[tuple[Any, int, int, int, int, int, float, float, bool]]] = {
    "small": [(0, 1, 0, 0, 1, 1, 1.0, 0.0, False), (1, 7, 2, 0, 1, 1, 1.5, -0.5, False),
              ("L", 33, 5, 2, -1, 2, -0.75, 1.0, False), ("U", 40, 39, 0, 2, -3, 2.0, 0.0, True),
              (0, 50, 1, 3, -2, -1, 0.5, 2.0, False), (1, 64, 70, 0, 1, 1, 1.0, 0.5, False),
              (0, 20, 3, 0, 1, 1, 0.0, -1.5, False), (1, 20, 3, 0, 1, 1, 0.0, 1.0, False),
              (0, 0, 2, 0, 1, 1, 1.0, 0.5, False), (1, 100, 0, 0, 1, -1, 1.0, 0.0, True),
              (0, 65, 16, 1, 3, 1, -1.25, 0.25, False), (1, 30, 4, 0, 1, 1, 0.0, 0.0, True)],
    "large": [(0, 100_000, 32, 0, 1, 1, 1.0, 0.0, True), (1, 50_001, 7, 3, -2, 1, -0.5, 1.5, False)],
    "perf": [(0, 1 << 20, 64, 0, 1, 1, 1.0, 0.0, False), (1, 1 << 22, 8, 0, 1, 1, 1.0, 1.0, False),
             (0, 1 << 18, 256, 0, 1, 1, 1.0, 0.0, False)],
}


def sbmv_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(uplo: Any, n: int, k: int, pad: int, incx: int, incy: int, alpha: float, beta: float,
                poison: bool) -> dict[str, Any]:
            lda = k + 1 + pad
            y = vector_spec(n, incy, dtype)
            return {"uplo": uplo, "n": n, "k": k, "alpha": alpha, "A": band_draw(n, k, lda, uplo, False, dtype),
                    "lda": lda, "x": vector_spec(n, incx, dtype), "incx": incx, "beta": beta,
                    "y": poisoned(y) if poison else y, "incy": incy}

        return iter(samples(row(*r) for r in SBMV[size]))

    return sampler


def tbmv_reference(uplo: Any, trans: Any, diag: Any, n: int, k: int, A: torch.Tensor, lda: int, x: torch.Tensor,
                   incx: int) -> None:
    """stbmv.f: x := op(A) @ x, A triangular band; quick return when n == 0."""
    if lda < k + 1:
        raise ValueError(f"lda={lda} < k+1={k + 1}")
    op, unit, upper = op_code(trans), diag_code(diag) == DIAG_UNIT, fill_code(uplo) == FILL_UPPER
    if n <= 0:
        return
    xv = vector_view(x, n, incx)
    out = xv.clone() if unit else band_diagonal(A, n, k, lda, uplo, 0) * xv
    for d in range(1, min(k, n - 1) + 1):
        v = band_diagonal(A, n, k, lda, uplo, d)  # upper: A(t, t+d); lower: A(t+d, t)
        if upper == (op == OP_N):  # row t of op(A) meets x[t+d]
            out[: n - d] += v * xv[d:]
        else:
            out[d:] += v * xv[: n - d]
    write_vector(x, n, incx, out)


TBMV_PARAMS = params([("uplo", "int | str"), ("trans", "int | str"), ("diag", "int | str"), ("n", "int"),
                      ("k", "int"), ("A", "Tensor"), ("lda", "int"), ("x", "Tensor"), ("incx", "int")], writes="x")


def tbmv_overload(prec: str) -> Overload:
    return _overload(
        f"cublas{prec}tbmv_v2", TBMV_PARAMS, tbmv_reference,
        f"x := op(A) @ x, where A is an n x n triangular band {_dt(prec)} matrix with k off-diagonals (k super-"
        "diagonals when uplo is upper, k sub-diagonals when lower), op(A) = A for trans N and A^T for T or C. "
        f"{BAND_DOC} With diag unit the diagonal is taken to be 1 and is not referenced. x has n logical "
        "elements (increment incx: nonzero, may be negative) and is overwritten with the product (every "
        "element of the product depends on the x that arrived); returns None. When n == 0 the routine "
        f"returns at once. {UNREFERENCED_DOC} {FLAG_DOC} {ENUM_DOC} {pointer_doc(PRECISIONS[prec])} So A has "
        "lda*n elements.",
    )


# (uplo, trans, diag, n, k, lda - (k+1), incx)
TBMV: dict[str, list[tuple[Any, Any, Any, int, int, int, int]]] = {
    "small": [(0, 0, 0, 1, 0, 0, 1), (0, 0, 0, 7, 2, 1, 1), (1, 0, 0, 33, 5, 0, -1), (0, 1, 0, 40, 3, 0, 2),
              (1, 1, 1, 50, 49, 2, 1), (0, 2, 1, 65, 8, 0, -2), ("U", "N", "U", 64, 70, 0, 1),
              ("L", "T", "N", 100, 1, 1, -1), ("U", "C", "N", 17, 16, 0, 3), ("L", "N", "U", 31, 0, 0, 1),
              (1, 2, 0, 45, 7, 0, 1), (0, 1, 1, 130, 12, 0, 1), (1, 0, 1, 0, 3, 0, 1), (0, "T", "U", 1, 0, 0, 1)],
    "large": [(0, 0, 0, 100_000, 32, 0, 1), (1, 1, 1, 50_001, 7, 3, -2)],
    "perf": [(0, 0, 0, 1 << 22, 32, 0, 1), (1, 1, 0, 1 << 20, 128, 0, 1), (0, 1, 1, 1 << 20, 8, 0, 1)],
}


def tbmv_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(uplo: Any, trans: Any, diag: Any, n: int, k: int, pad: int, incx: int) -> dict[str, Any]:
            lda = k + 1 + pad
            return {"uplo": uplo, "trans": trans, "diag": diag, "n": n, "k": k,
                    "A": band_draw(n, k, lda, uplo, diag_code(diag) == DIAG_UNIT, dtype), "lda": lda,
                    "x": vector_spec(n, incx, dtype), "incx": incx}

        return iter(samples(row(*r) for r in TBMV[size]))

    return sampler


# ---- gemvStridedBatched ------------------------------------------------------------------------


def batched_len(one: int, stride: int, batch: int) -> int:
    """Storage of `batch` operands of `one` elements each, `stride` elements apart (0: all one operand)."""
    return 0 if batch <= 0 else (batch - 1) * stride + one


def gemv_batched_reference(trans: Any, m: int, n: int, alpha: Any, A: torch.Tensor, lda: int, strideA: int,
                           x: torch.Tensor, incx: int, stridex: int, beta: Any, y: torch.Tensor, incy: int,
                           stridey: int, batchCount: int) -> None:
    """gemv (dgemv.f's quick returns and beta == 0 rule) on each of batchCount (A, x, y) triples."""
    if lda < max(1, m):
        raise ValueError(f"lda={lda} < max(1, m={m})")
    for b in range(max(batchCount, 0)):
        gemv_reference(trans, m, n, alpha, A[b * strideA:], lda, x[b * stridex:], incx, beta, y[b * stridey:], incy)


GEMV_BATCHED_PARAMS = params([
    ("trans", "int | str"), ("m", "int"), ("n", "int"), ("alpha", "float"), ("A", "Tensor"), ("lda", "int"),
    ("strideA", "int"), ("x", "Tensor"), ("incx", "int"), ("stridex", "int"), ("beta", "float"), ("y", "Tensor"),
    ("incy", "int"), ("stridey", "int"), ("batchCount", "int")], writes="y")


def gemv_batched_overload(prec: str) -> Overload:
    return _overload(
        f"cublas{prec}gemvStridedBatched", GEMV_BATCHED_PARAMS, gemv_batched_reference,
        "For b = 0..batchCount-1: y_b := alpha * op(A_b) @ x_b + beta * y_b, where A_b is the m x n "
        f"column-major {_dt(prec)} matrix starting at A[b*strideA] (leading dimension lda >= max(1, m)), x_b "
        "the vector starting at x[b*stridex] (increment incx) and y_b the vector starting at y[b*stridey] "
        "(increment incy). op(A) = A for trans N (x_b has n logical elements, y_b m) and A^T for T or C (x_b "
        "has m, y_b n). strideA or stridex may be 0 (every problem shares one A or one x); y_b never overlap. "
        "Storage between the operands (strides larger than an operand) is not addressed and must stay "
        "unchanged. Writes y in place and returns None; alpha and beta are Python floats, the strides Python "
        "ints (long long in C). When beta == 0, y is not read (it may hold NaN). When batchCount == 0, m == 0 "
        "or n == 0, or alpha == 0 and beta == 1, the routine returns at once. "
        f"{ENUM_DOC} {pointer_doc(PRECISIONS[prec])} So A has (batchCount-1)*strideA + lda*n elements, x "
        "(batchCount-1)*stridex + 1 + (len-1)*|incx| and y likewise (0 when batchCount == 0).",
    )


# (trans, m, n, lda - m, incx, incy, alpha, beta, y all-NaN, batchCount, gap after A, x, y: None = stride 0)
GemvBatchedRow = tuple[Any, int, int, int, int, int, float, float, bool, int, Any, Any, int]
GEMV_BATCHED: dict[str, list[GemvBatchedRow]] = {
    "small": [
        (0, 7, 13, 2, 1, 1, 1.5, -0.5, False, 3, 0, 0, 0),
        (1, 33, 17, 0, -1, 2, -0.75, 1.0, False, 4, 5, 3, 2),
        (2, 16, 9, 1, 1, -2, 2.0, 0.0, True, 2, None, 0, 1),
        ("N", 40, 20, 0, -3, -1, 0.5, 2.0, False, 5, 0, None, 3),
        ("T", 17, 50, 0, 1, 1, 1.0, 0.0, True, 3, None, None, 0),
        (0, 1, 1, 0, 1, 1, 1.0, 0.5, False, 1, 0, 0, 0),
        (0, 5, 5, 0, 1, 1, 1.0, 0.5, False, 0, 0, 0, 0),
        (0, 0, 5, 0, 1, 1, 1.0, 0.5, False, 3, 0, 0, 0),
        (1, 5, 0, 0, 1, 1, 1.0, 0.5, False, 3, 0, 0, 0),
        (0, 24, 30, 0, 1, 1, 0.0, -1.5, False, 2, 0, 0, 0),
        (1, 20, 20, 0, 1, 1, 0.0, 1.0, False, 2, 0, 0, 0),
        (0, 64, 64, 0, 1, 1, 1.0, 0.0, True, 2, 0, 0, 0),
        ("C", 30, 45, 3, 2, 2, -1.0, 0.25, False, 3, 7, 0, 5),
    ],
    "large": [(0, 2048, 2048, 0, 1, 1, 1.0, 0.0, False, 4, 0, 0, 0),
              (1, 128, 2048, 0, 1, 1, 1.0, 0.0, True, 64, 0, 0, 0),
              (0, 1001, 999, 3, -2, 1, -0.5, 1.5, False, 5, None, 7, 3)],
    "perf": [(1, 128, 4096, 0, 1, 1, 1.0, 0.0, False, 128, 0, 0, 0),
             (0, 4096, 4096, 0, 1, 1, 1.0, 0.0, False, 8, 0, 0, 0),
             (0, 128, 1024, 0, 1, 1, 1.0, 0.0, False, 512, 0, 0, 0),
             (0, 4096, 4096, 0, 1, 1, 1.0, 1.0, False, 64, None, 0, 0)],
}


def gemv_batched_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(trans: Any, m: int, n: int, pad: int, incx: int, incy: int, alpha: float, beta: float,
                poison: bool, batch: int, gap_a: Any, gap_x: Any, gap_y: int) -> dict[str, Any]:
            xlen, ylen = (n, m) if op_code(trans) == OP_N else (m, n)
            lda = max(1, m) + pad
            one_a, one_x, one_y = lda * n, vector_extent(xlen, incx), vector_extent(ylen, incy)
            sa = 0 if gap_a is None else one_a + gap_a
            sx = 0 if gap_x is None else one_x + gap_x
            sy = one_y + gap_y
            y = vector_spec(batched_len(one_y, sy, batch), 1, dtype)
            return {"trans": trans, "m": m, "n": n, "alpha": alpha,
                    "A": vector_spec(batched_len(one_a, sa, batch), 1, dtype), "lda": lda, "strideA": sa,
                    "x": vector_spec(batched_len(one_x, sx, batch), 1, dtype), "incx": incx, "stridex": sx,
                    "beta": beta, "y": poisoned(y) if poison else y, "incy": incy, "stridey": sy,
                    "batchCount": batch}

        return iter(samples(row(*r) for r in GEMV_BATCHED[size]))

    return sampler


# ---- records ----------------------------------------------------------------------------------

# strsv on these matrices (condition number at most 6) is good to a few ulps, in float32 as in the
# float64 truth; the native error then sets the bar as for any float32 routine.
TRSV_TOLERANCE = Tolerance()
FLOAT64_NOTES = "float64: the tolerance floor is 256 ulps, since the truth is float64 too."


def _record(name: str, doc: str, overload: Overload, sampler: Any, tolerance: Tolerance, notes: str) -> Operator:
    return blas_operator(name, "blas2", doc, overload, sampler, tolerance=tolerance, notes=notes)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasSger_v2": partial(
        _record, "cublasSger_v2",
        "cuBLAS single-precision rank-1 update A := alpha * x y^T + A of a column-major matrix, strided x, y.",
        ger_overload("S"), ger_sampler("S"), Tolerance(),
        "sger.f: quick return when m == 0, n == 0 or alpha == 0.",
    ),
    "cublasDsyr2_v2": partial(
        _record, "cublasDsyr2_v2",
        "cuBLAS double-precision symmetric rank-2 update of one stored triangle: A := alpha (x y^T + y x^T) + A.",
        syr2_overload("D"), syr2_sampler("D"), FLOAT64_FLOOR,
        FLOAT64_NOTES + " dsyr2.f: the other triangle is never written (the harness compares all of A).",
    ),
    "cublasStrsv_v2": partial(
        _record, "cublasStrsv_v2",
        "cuBLAS single-precision triangular solve op(A) x = b in place, every uplo/trans/diag.",
        trsv_overload("S"), trsv_sampler("S"), TRSV_TOLERANCE,
        "Matrices are drawn diagonally dominant (off-diagonal rows and columns sum to at most 0.5, diagonal "
        "magnitude 1 to 2): a float32 solve is then accurate to a few ulps, and the tolerance is the float32 "
        "one. Singular or ill-conditioned systems are not drawn (cuBLAS does not check for singularity). "
        "Unreferenced storage, the diagonal of unit cases included, holds NaN.",
    ),
    "cublasDsbmv_v2": partial(
        _record, "cublasDsbmv_v2",
        "cuBLAS double-precision symmetric band matrix-vector product y := alpha A x + beta y, band storage.",
        sbmv_overload("D"), sbmv_sampler("D"), FLOAT64_FLOOR,
        FLOAT64_NOTES + " k >= n is drawn (the band is then the full matrix); unreferenced band storage holds "
        "NaN.",
    ),
    "cublasStbmv_v2": partial(
        _record, "cublasStbmv_v2",
        "cuBLAS single-precision triangular band matrix-vector product x := op(A) x in place.",
        tbmv_overload("S"), tbmv_sampler("S"), SUM_TOLERANCE,
        "Judged with the sum tolerance (error scale |op(A)| |x|). Unreferenced band storage, the diagonal of "
        "unit cases included, holds NaN.",
    ),
    "cublasSgemvStridedBatched": partial(
        _record, "cublasSgemvStridedBatched",
        "cuBLAS single-precision strided batched gemv: y_b := alpha op(A_b) x_b + beta y_b.",
        gemv_batched_overload("S"), gemv_batched_sampler("S"), SUM_TOLERANCE,
        "Judged with the sum tolerance (error scale |A| |x|). stridey == 0 (overlapping outputs) is not drawn.",
    ),
    "cublasDgemvStridedBatched": partial(
        _record, "cublasDgemvStridedBatched",
        "cuBLAS double-precision strided batched gemv: y_b := alpha op(A_b) x_b + beta y_b.",
        gemv_batched_overload("D"), gemv_batched_sampler("D"), FLOAT64_FLOOR,
        FLOAT64_NOTES + " stridey == 0 (overlapping outputs) is not drawn.",
    ),
}
