"""Complex symmetric routines: symv (C), symm (C) and the mixed-precision rank-k update CsyrkEx.

SYMMETRIC, not Hermitian: A = A^T with no conjugation anywhere, and only the uplo triangle of A
(diagonal included) is stored and read; the other triangle is inferred from it. Buffers follow the
suite's complex contract (`complex.py`). Each routine follows the netlib reference (LAPACK's
csymv.f, BLAS's csymm.f and csyrk.f) and cuBLAS's documentation of cublas<t>symv, cublas<t>symm and
cublasCsyrkEx (A as CUDA_C_8I or CUDA_C_32F, C as CUDA_C_32F, computed in cuComplex).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import MATMUL_TOLERANCE, SUM_TOLERANCE
from ..spec import Joint, Operator, Overload, Size, TensorSpec
from .complex import as_complex, bound_matmul, complex_pointer_doc
from .family import OP_N, blas_operator, op_code, poisoned, samples, signature
from .level3_real import FILL_UPPER, SIDE_LEFT, _triangle, fill_code, side_code
from .level23_complex import (
    SCALE_NOTE,
    _bmat,
    _bound_mul,
    _bound_scalar,
    _bvec,
    _cbuf,
    _check_ld,
    _p,
    _stored,
    _write_bvec,
)
from .library import OP_C, vector_extent

CUDA_C_32F, CUDA_C_8I = 4, 7
EX_TYPES: dict[int, torch.dtype] = {CUDA_C_32F: torch.float32, CUDA_C_8I: torch.int8}

SYM_FLAG_DOC = (
    "uplo is a cublasFillMode_t (0 = CUBLAS_FILL_MODE_LOWER, 1 = CUBLAS_FILL_MODE_UPPER, or 'L' / 'U') "
    "naming the triangle of the symmetric matrix that is stored: only that triangle (diagonal included) is "
    "read, and element (i, j) of the other triangle is taken as element (j, i) of the stored one, with NO "
    "conjugation (the matrix is symmetric, not Hermitian); the other triangle and the padding rows may hold "
    "anything, NaN included."
)
SIDE_DOC = "side is a cublasSideMode_t (0 = CUBLAS_SIDE_LEFT, 1 = CUBLAS_SIDE_RIGHT, or 'L' / 'R')."
BOTH_FORMS = "Flags arrive as an int or a one-letter str; both forms are used."


def _symmetric(buf: torch.Tensor, order: int, ld: int, uplo: Any) -> torch.Tensor:
    """The full (order, order) complex matrix of a stored triangle; the other triangle is never read
    (`where` picks the mirror there, so NaN stored outside the triangle does not propagate)."""
    a = _bmat(buf, order, order, ld, 0, 1)[0]
    return torch.where(_triangle(order, fill_code(uplo) == FILL_UPPER, a.device), a, a.t())


def _times(bound: bool, s: Any, z: torch.Tensor) -> torch.Tensor:
    """s * z, or, for the error scale, with every real product counted positive."""
    return _bound_mul(_bound_scalar(s), z) if bound else s * z


def _product(bound: bool, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return bound_matmul(a, b) if bound else a @ b


def _triangle_draw(order: int, ld: int, upper: bool, gen: torch.Generator) -> torch.Tensor:
    """A complex matrix buffer (interleaved float32) holding normal values in the uplo triangle only:
    NaN in the other triangle and the padding rows, where the routine must not read."""
    dev = gen.device
    values = torch.randn((order, order, 2), generator=gen, device=dev)
    keep = _triangle(order, upper, dev)[:, :, None]
    buf = torch.full((2 * ld * order,), math.nan, dtype=torch.float32, device=dev)
    if order:
        buf.as_strided((order, order, 2), (2, 2 * ld, 1)).copy_(torch.where(keep, values, math.nan))
    return buf


def _sym_spec(order: int, ld: int, uplo: Any, nan_outside: bool) -> TensorSpec | Joint:
    if not nan_outside:
        return _cbuf(ld * order, "C")
    upper = fill_code(uplo) == FILL_UPPER
    return Joint((2 * ld * order,), torch.float32, (), partial(_triangle_draw, order, ld, upper),
                 f"{'upper' if upper else 'lower'} triangle {order}x{order} ld {ld}, NaN elsewhere")


# ---- symv -------------------------------------------------------------------------------------


def _symv(bound: bool):
    def fn(uplo: Any, n: int, alpha: Any, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int, beta: Any,
           y: torch.Tensor, incy: int) -> None:
        """LAPACK csymv.f: quick return when n == 0 or (alpha == 0 and beta == 1); y unread when
        beta == 0; A and x unread when alpha == 0."""
        fill_code(uplo)
        _check_ld("lda", lda, n)
        if n <= 0 or (alpha == 0 and beta == 1):
            return
        if alpha == 0:
            prod = torch.zeros((1, n), dtype=as_complex(y).dtype, device=y.device)
        else:
            a = _symmetric(A, n, lda, uplo)
            xv = _bvec(x, n, incx, 0, 1)[0]
            prod = _times(bound, alpha, _product(bound, a, xv[:, None])[:, 0])[None]
        if beta != 0:
            prod = prod + _times(bound, beta, _bvec(y, n, incy, 0, 1))
        _write_bvec(y, n, incy, 0, 1, prod)

    return fn


SYMV_PARAMS = (_p("uplo", "int | str"), _p("n", "int"), _p("alpha", "complex"), _p("A", "Tensor"),
               _p("lda", "int"), _p("x", "Tensor"), _p("incx", "int"), _p("beta", "complex"),
               _p("y", "Tensor", True), _p("incy", "int"))

SYMV = Overload(
    name="cublasCsymv_v2", func_name="cublasCsymv_v2", params=SYMV_PARAMS,
    signature=signature("cublasCsymv_v2", SYMV_PARAMS), reference=_symv(False), scale=_symv(True),
    doc=(
        "y := alpha * A @ x + beta * y, where A is an n x n complex SYMMETRIC matrix (A = A^T, no "
        "conjugation) stored column-major with leading dimension lda >= max(1, n), and x and y are complex "
        "vectors of n logical elements (increments incx, incy: nonzero, possibly negative). alpha and beta "
        "are Python complex. When beta == 0, y is not read (it may hold NaN) and is set to alpha * A @ x; when "
        "alpha == 0, A and x are not read. When n == 0, or alpha == 0 and beta == 1, the routine returns at "
        f"once and y is unchanged. Writes y in place and returns None. {SYM_FLAG_DOC} {BOTH_FORMS} "
        f"{complex_pointer_doc('C')} So A has 2*lda*n float32 values."
    ),
)

# (uplo, n, lda pad, incx, incy, alpha, beta, y arrives all-NaN, A NaN outside its triangle)
SYMV_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 1, 0, 1, 1, 1 + 0j, 0j, False, False),
        (0, 7, 2, 2, 1, 1.5 - 0.5j, -0.5 + 0.25j, False, True),
        (1, 13, 0, -1, 3, -0.75 + 1j, 1 + 0j, False, True),
        ("L", 33, 3, 1, -2, 2 - 1j, 0j, True, True),
        ("U", 40, 1, -3, -1, 0.5j, 2 + 0.5j, False, False),
        (1, 20, 0, 1, 1, 1 + 0j, 0j, True, False),
        (0, 64, 0, 1, -1, 1 + 1j, 0.25 - 1j, False, True),
        ("U", 9, 4, -2, 1, -1 + 0.5j, -1 + 0j, False, True),
        (0, 30, 0, 1, 1, 0j, -1.5 + 0.5j, False, True),
        (1, 25, 0, 1, 1, 0j, 0j, True, False),
        (0, 0, 0, 1, 1, 1 + 0j, 0.5 + 0j, False, False),
        (1, 6, 0, 1, 1, 0j, 1 + 0j, False, False),
    ],
    "large": [
        (0, 4099, 1, -2, 3, -0.75 + 0.5j, 1 - 1j, False, True),
        (1, 2048, 5, 1, -1, 2 + 1j, 0j, True, False),
    ],
    "perf": [
        (0, 8192, 0, 1, 1, 1 + 0j, 0j, False, False),
        (1, 16384, 0, 1, 1, 1 + 0j, 1 + 0j, False, False),
    ],
}


def symv_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(uplo: Any, n: int, pad: int, incx: int, incy: int, alpha: complex, beta: complex, poison: bool,
            nan_a: bool) -> dict[str, Any]:
        lda = max(1, n) + pad
        y = _cbuf(vector_extent(n, incy), "C")
        return {"uplo": uplo, "n": n, "alpha": alpha, "A": _sym_spec(n, lda, uplo, nan_a), "lda": lda,
                "x": _cbuf(vector_extent(n, incx), "C"), "incx": incx, "beta": beta,
                "y": poisoned(y) if poison else y, "incy": incy}

    return iter(samples(row(*r) for r in SYMV_ROWS[size]))


# ---- symm -------------------------------------------------------------------------------------


def _symm(bound: bool):
    def fn(side: Any, uplo: Any, m: int, n: int, alpha: Any, A: torch.Tensor, lda: int, B: torch.Tensor,
           ldb: int, beta: Any, C: torch.Tensor, ldc: int) -> None:
        """BLAS csymm.f: quick return when m == 0, n == 0 or (alpha == 0 and beta == 1); C unread when
        beta == 0; A and B unread when alpha == 0."""
        left = side_code(side) == SIDE_LEFT
        fill_code(uplo)
        order = m if left else n
        _check_ld("lda", lda, order)
        _check_ld("ldb", ldb, m)
        _check_ld("ldc", ldc, m)
        if m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
            return
        c = _bmat(C, m, n, ldc, 0, 1)[0]
        if alpha == 0:
            prod = torch.zeros((m, n), dtype=c.dtype, device=c.device)
        else:
            a = _symmetric(A, order, lda, uplo)
            b = _bmat(B, m, n, ldb, 0, 1)[0]
            prod = _times(bound, alpha, _product(bound, a, b) if left else _product(bound, b, a))
        if beta != 0:
            prod = prod + _times(bound, beta, c)
        c.copy_(prod)

    return fn


SYMM_PARAMS = (_p("side", "int | str"), _p("uplo", "int | str"), _p("m", "int"), _p("n", "int"),
               _p("alpha", "complex"), _p("A", "Tensor"), _p("lda", "int"), _p("B", "Tensor"), _p("ldb", "int"),
               _p("beta", "complex"), _p("C", "Tensor", True), _p("ldc", "int"))

SYMM = Overload(
    name="cublasCsymm_v2", func_name="cublasCsymm_v2", params=SYMM_PARAMS,
    signature=signature("cublasCsymm_v2", SYMM_PARAMS), reference=_symm(False), scale=_symm(True),
    doc=(
        "C := alpha * A @ B + beta * C when side is left and C := alpha * B @ A + beta * C when side is right, "
        "where A is a complex SYMMETRIC matrix (A = A^T, no conjugation), m x m when side is left and n x n "
        "when right (lda >= max(1, that order)), and B and C are m x n (ldb, ldc >= max(1, m)), all "
        "column-major complex. Rows m..ldc-1 of each column of C are padding and must stay unchanged. alpha "
        "and beta are Python complex. Compute in full float32 precision (no TF32 or lower-precision products). "
        "When beta == 0, C is not read (it may hold NaN) and is set to the product; when alpha == 0, C := beta "
        "* C and A and B are not read. When m == 0 or n == 0, or alpha == 0 and beta == 1, the routine returns "
        f"at once. Writes C in place and returns None. {SIDE_DOC} {SYM_FLAG_DOC} {BOTH_FORMS} "
        f"{complex_pointer_doc('C')} So A has 2*lda*m (left) or 2*lda*n (right) float32 values, B 2*ldb*n and "
        "C 2*ldc*n."
    ),
)

# (side, uplo, m, n, lda pad, ldb pad, ldc pad, alpha, beta, C arrives all-NaN, A NaN outside its triangle)
SYMM_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 0, 1, 1, 0, 0, 0, 1 + 0j, 0j, False, False),
        (0, 1, 7, 13, 2, 0, 1, 1.5 - 0.5j, -0.5 + 0.25j, False, True),
        (1, 0, 13, 7, 0, 3, 0, -1.25 + 1j, 1 + 0j, False, True),
        (1, 1, 20, 33, 3, 1, 2, 0.5j, 0j, True, True),
        ("L", "U", 33, 9, 1, 0, 0, 2 - 1j, 0.75 + 0.5j, False, False),
        ("R", "L", 9, 40, 0, 2, 3, 1 + 1j, 0j, True, True),
        ("L", "L", 32, 32, 0, 0, 0, 1 + 0j, 1 + 0j, False, True),
        ("R", "U", 16, 24, 0, 0, 1, -0.5 + 0j, 2 - 2j, False, False),
        (0, 0, 12, 10, 0, 0, 0, 0j, -1 + 0.5j, False, True),
        (1, 1, 10, 12, 0, 0, 1, 0j, 0j, True, False),
        (1, 1, 10, 12, 0, 0, 0, 0j, 1 + 0j, False, False),
        (0, 1, 0, 5, 0, 0, 0, 1 + 0j, 0.5 + 0j, False, False),
        (1, 0, 6, 0, 0, 0, 0, 1 + 0j, 0.5 + 0j, False, False),
    ],
    "large": [
        (0, 0, 1024, 1024, 0, 0, 0, 1 + 0j, 0j, False, True),
        (1, 1, 511, 1025, 1, 0, 3, 1.5 - 0.5j, -0.5 + 1j, False, False),
    ],
    "perf": [
        (0, 0, 4096, 4096, 0, 0, 0, 1 + 0j, 0j, False, False),
        (1, 1, 4096, 8192, 0, 0, 0, 1 + 0j, 1 + 0j, False, False),
    ],
}


def symm_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(side: Any, uplo: Any, m: int, n: int, pa: int, pb: int, pc: int, alpha: complex, beta: complex,
            poison: bool, nan_a: bool) -> dict[str, Any]:
        order = m if side_code(side) == SIDE_LEFT else n
        lda, ldb, ldc = max(1, order) + pa, max(1, m) + pb, max(1, m) + pc
        c = _cbuf(ldc * n, "C")
        return {"side": side, "uplo": uplo, "m": m, "n": n, "alpha": alpha, "A": _sym_spec(order, lda, uplo, nan_a),
                "lda": lda, "B": _cbuf(ldb * n, "C"), "ldb": ldb, "beta": beta, "C": poisoned(c) if poison else c,
                "ldc": ldc}

    return iter(samples(row(*r) for r in SYMM_ROWS[size]))


# ---- syrkEx -----------------------------------------------------------------------------------


def _syrk_ex(bound: bool):
    def fn(uplo: Any, trans: Any, n: int, k: int, alpha: Any, A: torch.Tensor, Atype: int, lda: int, beta: Any,
           C: torch.Tensor, Ctype: int, ldc: int) -> None:
        """BLAS csyrk.f with A widened to C's precision (cuBLAS computes in cuComplex): only the uplo
        triangle of C is read or written; quick return when n == 0 or ((alpha == 0 or k == 0) and
        beta == 1); C unread when beta == 0. csyrk.f accepts trans N or T only."""
        if Atype not in EX_TYPES or Ctype != CUDA_C_32F:
            raise ValueError(f"unsupported cublasCsyrkEx types Atype={Atype}, Ctype={Ctype}")
        if op_code(trans) == OP_C:
            raise ValueError("csyrk takes trans N or T only (a symmetric update has no conjugate form)")
        upper = fill_code(uplo) == FILL_UPPER
        rows, cols = _stored(trans, n, k)
        _check_ld("lda", lda, rows)
        _check_ld("ldc", ldc, n)
        if n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
            return
        c = _bmat(C, n, n, ldc, 0, 1)[0]
        if alpha == 0 or k <= 0:
            new = torch.zeros((n, n), dtype=c.dtype, device=c.device)
        else:
            wide = A.to(C.dtype)  # the harness takes |.| of float inputs only: int8 A is |.|'d here
            a = _bmat(wide.abs() if bound else wide, rows, cols, lda, 0, 1)[0]
            a = a if op_code(trans) == OP_N else a.t()
            new = _times(bound, alpha, _product(bound, a, a.t()))
        if beta != 0:
            new = new + _times(bound, beta, c)
        c.copy_(torch.where(_triangle(n, upper, c.device), new, c))

    return fn


SYRK_EX_PARAMS = (_p("uplo", "int | str"), _p("trans", "int | str"), _p("n", "int"), _p("k", "int"),
                  _p("alpha", "complex"), _p("A", "Tensor"), _p("Atype", "int"), _p("lda", "int"),
                  _p("beta", "complex"), _p("C", "Tensor", True), _p("Ctype", "int"), _p("ldc", "int"))

SYRK_EX = Overload(
    name="cublasCsyrkEx", func_name="cublasCsyrkEx", params=SYRK_EX_PARAMS,
    signature=signature("cublasCsyrkEx", SYRK_EX_PARAMS), reference=_syrk_ex(False), scale=_syrk_ex(True),
    doc=(
        "Complex symmetric rank-k update C := alpha * op(A) @ op(A)^T + beta * C (transpose, NO conjugation), "
        "where C is an n x n complex symmetric matrix, column-major with ldc >= max(1, n), and op(A) is n x k: "
        "A is stored n x k (lda >= max(1, n)) when trans is N (0 or 'N') and k x n (lda >= max(1, k)) when "
        "trans is T (1 or 'T'); trans C is not used. Only the triangle of C named by uplo (0 = "
        "CUBLAS_FILL_MODE_LOWER, 1 = CUBLAS_FILL_MODE_UPPER, or 'L' / 'U'; diagonal included) is read and "
        "written; the other triangle and the padding rows n..ldc-1 must stay unchanged. Atype and Ctype are "
        "cudaDataType_t ints: Ctype is always 4 = CUDA_C_32F (C is complex64 as interleaved float32), and Atype "
        "is 4 = CUDA_C_32F (A is interleaved float32 like C) or 7 = CUDA_C_8I (A is a 1-D contiguous int8 "
        "tensor of interleaved (real, imaginary) int8 pairs: complex element p of A is the pair at int8 "
        "positions 2*p and 2*p + 1, exactly as the complex contract below with int8 in place of float32). "
        "Compute in cuComplex: products and sums in full float32 precision (no TF32; int8 values are exact in "
        "float32). alpha and beta are Python complex. When beta == 0 the triangle is not read (it may hold "
        "NaN). When k == 0 or alpha == 0, the triangle := beta * itself and A is not read. When n == 0, or "
        "(k == 0 or alpha == 0) and beta == 1, the routine returns at once. Writes C in place and returns "
        f"None. {BOTH_FORMS} {complex_pointer_doc('C')} So A has 2*lda*k (N) or 2*lda*n (T) values "
        "and C 2*ldc*n float32 values."
    ),
)

# (Atype, uplo, trans, n, k, lda pad, ldc pad, alpha, beta, C arrives all-NaN)
SYRK_EX_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (CUDA_C_32F, 0, 0, 1, 1, 0, 0, 1 + 0j, 0j, False),
        (CUDA_C_32F, 0, 0, 13, 7, 2, 1, 1.5 - 0.5j, -0.5 + 0.25j, False),
        (CUDA_C_32F, 1, 0, 17, 33, 0, 3, -1.25 + 1j, 1 + 0j, False),
        (CUDA_C_8I, 0, 1, 33, 17, 3, 0, 0.5j, 0j, True),
        (CUDA_C_8I, 1, 1, 20, 9, 0, 2, 2 - 1j, 0.75 + 0.5j, False),
        (CUDA_C_32F, "U", "T", 16, 40, 1, 0, 1 + 1j, 1 + 0j, False),
        (CUDA_C_8I, "L", "N", 24, 5, 0, 1, -0.5 + 0j, 2 - 2j, False),
        (CUDA_C_32F, "U", "N", 40, 64, 0, 0, 1 + 0j, 0j, True),
        (CUDA_C_8I, 1, 0, 9, 0, 0, 1, 1 + 0j, 0.5j, False),
        (CUDA_C_32F, 0, 1, 8, 0, 0, 0, 1 + 0j, 0j, True),
        (CUDA_C_32F, 1, 0, 12, 10, 0, 0, 0j, -1 + 0.5j, False),
        (CUDA_C_8I, 0, 0, 10, 6, 0, 2, 0j, 1 + 0j, False),
        (CUDA_C_32F, 0, 0, 0, 5, 0, 0, 1 + 0j, 0.5 + 0j, False),
    ],
    "large": [
        (CUDA_C_32F, 0, 0, 1024, 1024, 0, 0, 1 + 0j, 0j, True),
        (CUDA_C_8I, 1, 1, 1023, 511, 1, 3, 1.5 - 0.5j, -0.5 + 1j, False),
    ],
    "perf": [
        (CUDA_C_32F, 0, 0, 4096, 4096, 0, 0, 1 + 0j, 0j, False),
        (CUDA_C_8I, 1, 1, 4096, 8192, 0, 0, 1 + 0j, 1 + 0j, False),
    ],
}


def _a_spec(atype: int, elements: int) -> TensorSpec:
    if atype == CUDA_C_8I:  # small integers: every float32 sum of their products is exact
        return TensorSpec((2 * elements,), torch.int8, low=-16, high=16)
    return _cbuf(elements, "C")


def syrk_ex_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(atype: int, uplo: Any, trans: Any, n: int, k: int, pa: int, pc: int, alpha: complex, beta: complex,
            poison: bool) -> dict[str, Any]:
        rows, cols = _stored(trans, n, k)
        lda, ldc = max(1, rows) + pa, max(1, n) + pc
        c = _cbuf(ldc * n, "C")
        return {"uplo": uplo, "trans": trans, "n": n, "k": k, "alpha": alpha, "A": _a_spec(atype, lda * cols),
                "Atype": atype, "lda": lda, "beta": beta, "C": poisoned(c) if poison else c, "Ctype": CUDA_C_32F,
                "ldc": ldc}

    return iter(samples(row(*r) for r in SYRK_EX_ROWS[size]))


# ---- records ----------------------------------------------------------------------------------

PRECISION = "single-precision complex (complex64 as interleaved float32)"
NAN_NOTE = "Some cases store NaN outside A's uplo triangle (and in its padding rows): a candidate reading it fails. "

OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasCsymv_v2": partial(
        blas_operator, "cublasCsymv_v2", "blas2",
        f"cuBLAS {PRECISION} symmetric matrix-vector product y := alpha * A @ x + beta * y, A symmetric (not "
        "Hermitian) with only one triangle stored, strided x and y, y written in place.",
        SYMV, symv_sampler, tolerance=SUM_TOLERANCE, notes=NAN_NOTE + SCALE_NOTE,
    ),
    "cublasCsymm_v2": partial(
        blas_operator, "cublasCsymm_v2", "blas3",
        f"cuBLAS {PRECISION} symmetric matrix product C := alpha * A @ B + beta * C (left) or alpha * B @ A + "
        "beta * C (right), A symmetric (not Hermitian) with only one triangle stored, column-major.",
        SYMM, symm_sampler, tolerance=MATMUL_TOLERANCE, notes=NAN_NOTE + SCALE_NOTE,
    ),
    "cublasCsyrkEx": partial(
        blas_operator, "cublasCsyrkEx", "blas3",
        f"cuBLAS {PRECISION} symmetric rank-k update of one triangle of C: C := alpha * op(A) op(A)^T + beta * C "
        "with A complex int8 or complex float32, computed in complex float32.",
        SYRK_EX, syrk_ex_sampler, tolerance=MATMUL_TOLERANCE,
        notes="Only the (Atype, Ctype) combinations the cuBLAS documentation lists are drawn: (CUDA_C_8I, "
              "CUDA_C_32F) and (CUDA_C_32F, CUDA_C_32F). trans C is not drawn: csyrk.f rejects it and cuBLAS "
              "documents op(A) for N and T only. libcublas 13.0 on the H200 refuses CUDA_C_8I (NOT_SUPPORTED), "
              "so the baseline widens an int8 A to CUDA_C_32F (exact) for the same routine. " + SCALE_NOTE,
    ),
}
