"""BLAS levels 2 and 3 on complex matrices: gemv (C, C/Z strided-batched), geru (C), gerc (Z) and
gemm (C, C/Z strided-batched, C strided-batched with 64-bit sizes).

Complex buffers follow the suite's complex contract (`complex.py`): interleaved real views whose
increments, leading dimensions and batch strides count complex elements. Each routine follows the
netlib reference BLAS (cgemv.f, cgeru.f, zgerc.f, cgemm.f) and cuBLAS's documentation of
cublas<t>gemv, cublas<t>gemvStridedBatched, cublas<t>ger, cublas<t>gemm and
cublas<t>gemmStridedBatched (and the _64 variant, whose int arguments are int64_t). For complex
data trans C (the conjugate transpose) differs from T, and gerc conjugates y where geru does not.

A strided batch is the non-batched routine applied to matrices (vectors) i = 0..batchCount-1 at
offset i*stride of each buffer; a stride may be 0 (every problem reads the same input) or exceed
the matrix (the gaps between outputs stay untouched).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import MATMUL_TOLERANCE, SUM_TOLERANCE
from ..spec import Operator, Overload, Param, Size, TensorSpec, Tolerance
from .complex import REAL, as_complex, bound_matmul, complex_pointer_doc
from .family import ENUM_DOC, OP_N, blas_operator, op_code, poisoned, samples, signature
from .level1 import FLOAT64_SUM
from .library import OP_C, vector_extent

# ---- batched complex views --------------------------------------------------------------------


def _dt(prec: str) -> str:
    return str(REAL[prec]).replace("torch.", "")


def _check_ld(name: str, ld: int, rows: int) -> None:
    if ld < max(1, rows):
        raise ValueError(f"{name}={ld} < max(1, {rows})")


def _bmat(buf: torch.Tensor, rows: int, cols: int, ld: int, stride: int, batch: int) -> torch.Tensor:
    """(batch, rows, cols) complex view of a strided batch of column-major matrices."""
    return as_complex(buf).as_strided((batch, rows, cols), (stride, 1, ld))


def _bvec(buf: torch.Tensor, n: int, inc: int, stride: int, batch: int) -> torch.Tensor:
    """(batch, n) logical elements of a strided batch of BLAS vectors; a copy when inc < 0."""
    if inc == 0:
        raise ValueError("increment must be nonzero")
    view = as_complex(buf).as_strided((batch, n), (stride, abs(inc)))
    return view.flip(1) if inc < 0 else view


def _write_bvec(buf: torch.Tensor, n: int, inc: int, stride: int, batch: int, values: torch.Tensor) -> None:
    view = as_complex(buf).as_strided((batch, n), (stride, abs(inc)))
    view.copy_(values.flip(1) if inc < 0 else values)


def _op(m: torch.Tensor, trans: Any, bound: bool = False) -> torch.Tensor:
    """op(M) of a (batch, rows, cols) view: M, M^T, or the conjugate transpose M^H (M^T for the
    error scale, whose terms are all counted positive)."""
    code = op_code(trans)
    if code == OP_N:
        return m
    t = m.transpose(-1, -2)
    return t.conj() if code == OP_C and not bound else t


def _bound_scalar(s: Any) -> complex:
    """|re| + i|im|: a complex scalar counted positive in each part (the inputs are |.| already)."""
    s = complex(s)
    return complex(abs(s.real), abs(s.imag))


def _bound_mul(s: complex, z: torch.Tensor) -> torch.Tensor:
    """s * z with every real product counted positive (s and z nonnegative in each part)."""
    return torch.complex(s.real * z.real + s.imag * z.imag, s.real * z.imag + s.imag * z.real)


def _batch_len(one: int, stride: int, batch: int) -> int:
    """Complex elements of a strided batch buffer: the last problem's start plus one problem."""
    return (max(batch, 1) - 1) * stride + one


def _cbuf(elements: int, prec: str) -> TensorSpec:
    return TensorSpec((2 * elements,), REAL[prec])


def _dims(trans: Any, m: int, n: int) -> tuple[int, int]:
    """(len x, len y) of gemv: (n, m) for N, (m, n) for T/C."""
    return (n, m) if op_code(trans) == OP_N else (m, n)


def _stored(trans: Any, rows: int, cols: int) -> tuple[int, int]:
    """Stored shape of a matrix whose op() is (rows, cols)."""
    return (rows, cols) if op_code(trans) == OP_N else (cols, rows)


# ---- gemv -------------------------------------------------------------------------------------


def _gemv(bound: bool, trans: Any, m: int, n: int, alpha: Any, A: torch.Tensor, lda: int, sa: int,
          x: torch.Tensor, incx: int, sx: int, beta: Any, y: torch.Tensor, incy: int, sy: int, batch: int) -> None:
    """Reference BLAS cgemv.f per problem: quick return when m == 0, n == 0 or (alpha == 0 and
    beta == 1); y unread when beta == 0. `bound`: the error scale instead (inputs are |.|)."""
    _check_ld("lda", lda, m)
    if m <= 0 or n <= 0 or batch <= 0 or (alpha == 0 and beta == 1):
        return
    xlen, ylen = _dims(trans, m, n)
    if alpha == 0:
        prod = torch.zeros((batch, ylen), dtype=as_complex(y).dtype, device=y.device)
    else:
        a = _op(_bmat(A, m, n, lda, sa, batch), trans, bound)
        xv = _bvec(x, xlen, incx, sx, batch).unsqueeze(-1)
        prod = (_bound_mul(_bound_scalar(alpha), bound_matmul(a, xv)) if bound else alpha * (a @ xv)).squeeze(-1)
    if beta != 0:
        yv = _bvec(y, ylen, incy, sy, batch)
        prod = prod + (_bound_mul(_bound_scalar(beta), yv) if bound else beta * yv)
    _write_bvec(y, ylen, incy, sy, batch, prod)


def _gemv_plain(bound: bool):
    def fn(trans: Any, m: int, n: int, alpha: Any, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int,
           beta: Any, y: torch.Tensor, incy: int) -> None:
        _gemv(bound, trans, m, n, alpha, A, lda, 0, x, incx, 0, beta, y, incy, 0, 1)

    return fn


def _gemv_batched(bound: bool):
    def fn(trans: Any, m: int, n: int, alpha: Any, A: torch.Tensor, lda: int, strideA: int, x: torch.Tensor,
           incx: int, stridex: int, beta: Any, y: torch.Tensor, incy: int, stridey: int, batchCount: int) -> None:
        _gemv(bound, trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount)

    return fn


gemv_reference, gemv_scale = _gemv_plain(False), _gemv_plain(True)
gemv_batched_reference, gemv_batched_scale = _gemv_batched(False), _gemv_batched(True)


def _p(name: str, typ: str, writes: bool = False) -> Param:
    return Param(name, typ, writes=writes)


GEMV_PARAMS = (_p("trans", "int | str"), _p("m", "int"), _p("n", "int"), _p("alpha", "complex"), _p("A", "Tensor"),
               _p("lda", "int"), _p("x", "Tensor"), _p("incx", "int"), _p("beta", "complex"),
               _p("y", "Tensor", True), _p("incy", "int"))
GEMV_BATCHED_PARAMS = (
    _p("trans", "int | str"), _p("m", "int"), _p("n", "int"), _p("alpha", "complex"), _p("A", "Tensor"),
    _p("lda", "int"), _p("strideA", "int"), _p("x", "Tensor"), _p("incx", "int"), _p("stridex", "int"),
    _p("beta", "complex"), _p("y", "Tensor", True), _p("incy", "int"), _p("stridey", "int"),
    _p("batchCount", "int"))

GEMV_DOC = (
    "y := alpha * op(A) @ x + beta * y, where A is an m x n column-major complex matrix with leading "
    "dimension lda >= max(1, m) and op(A) = A when trans is N, A^T (transpose) when trans is T and A^H "
    "(conjugate transpose) when trans is C. For N, x has n logical elements and y has m; for T/C, x has m "
    "and y has n. alpha and beta are Python complex; incx and incy are nonzero and may be negative. When "
    "beta == 0, y is not read (it may hold NaN) and is set to alpha * op(A) @ x; when alpha == 0, A and x "
    "are not read. When m == 0 or n == 0, or alpha == 0 and beta == 1, the routine returns at once and y "
    "is unchanged."
)


def gemv_overload(prec: str, batched: bool) -> Overload:
    name = f"cublas{prec}gemv{'StridedBatched' if batched else '_v2'}"
    ps = GEMV_BATCHED_PARAMS if batched else GEMV_PARAMS
    if batched:
        what = (
            f"For each problem i = 0..batchCount-1 independently: {GEMV_DOC} Problem i's A starts at "
            "complex element i*strideA of A, its x at i*stridex of x and its y at i*stridey of y (strides "
            "count complex elements; a stride of 0 makes every problem read the same input; output "
            "problems do not overlap, and elements between them stay unchanged). When batchCount == 0 "
            "nothing happens. Writes y in place and returns None. "
        )
        sizes = ("So A has 2*((batchCount-1)*strideA + lda*n), x 2*((batchCount-1)*stridex + 1 + "
                 f"(len x - 1)*|incx|) and y likewise {_dt(prec)} values (one problem's worth when "
                 "batchCount == 0).")
    else:
        what = f"{GEMV_DOC} Writes y in place and returns None. "
        sizes = f"So A has 2*lda*n {_dt(prec)} values."
    return Overload(
        name=name, func_name=name, params=ps, signature=signature(name, ps),
        reference=gemv_batched_reference if batched else gemv_reference,
        scale=gemv_batched_scale if batched else gemv_scale,
        doc=f"{what}{ENUM_DOC} {complex_pointer_doc(prec)} {sizes}",
    )


J = 1j
# (trans, m, n, lda pad, incx, incy, alpha, beta, y arrives all-NaN)
GEMV: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 1, 1, 0, 1, 1, 1 + 0j, 0j, False),
        (0, 7, 13, 2, 2, 1, 1.5 - 0.5 * J, -0.5 + 0.25 * J, False),
        (1, 33, 20, 0, -1, 3, -0.75 + 1j, 1 + 0j, False),
        (2, 20, 33, 3, 1, -2, 2 - 1j, 0j, True),
        ("N", 40, 50, 1, -3, -1, 0.5j, 2 + 0.5j, False),
        ("T", 17, 60, 0, 1, 1, 1 + 0j, 0j, True),
        ("C", 60, 17, 0, 1, -1, 1 + 1j, 0.25 - 1j, False),
        (2, 9, 70, 4, -2, 1, -1 + 0.5j, -1 + 0j, False),
        (0, 30, 30, 0, 1, 1, 0j, -1.5 + 0.5j, False),
        (1, 25, 10, 0, 1, 1, 0j, 0j, True),
        (0, 0, 5, 0, 1, 1, 1 + 0j, 0.5 + 0j, False),
        (2, 5, 0, 0, 1, -1, -1 + 0j, 2 + 0j, False),
        (1, 6, 6, 0, 1, 1, 0j, 1 + 0j, False),
    ],
    "large": [
        (0, 4099, 1021, 1, -2, 3, -0.75 + 0.5j, 1 - 1j, False),
        (2, 1021, 4099, 5, 1, -1, 2 + 1j, 0j, True),
        (1, 8192, 2048, 0, 1, 1, 1 + 0j, 0.5 + 0.5j, False),
    ],
    "perf": [
        (0, 8192, 8192, 0, 1, 1, 1 + 0j, 0j, False),
        (2, 8192, 8192, 0, 1, 1, 1 + 0j, 0j, False),
        (1, 4096, 14336, 0, 1, 1, 1 + 0j, 1 + 0j, False),
    ],
}
# (trans, m, n, lda pad, incx, incy, alpha, beta, y all-NaN, batch, strideA, stridex, stridey); a stride of
# None is the packed one (one problem's extent), an int > 0 is added to it, "0" is 0
GEMV_BATCHED: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 5, 7, 0, 1, 1, 1 + 0j, 0j, False, 3, None, None, None),
        (2, 9, 6, 2, -1, 2, 1.5 - 0.5j, -0.5 + 0.25j, False, 4, 3, 1, 5),
        (1, 6, 9, 0, 2, -1, -1 + 1j, 0j, True, 2, None, None, 2),
        ("C", 12, 12, 1, 1, 1, 0.5j, 1 + 0j, False, 3, "0", None, None),
        ("N", 8, 4, 0, -2, 1, 1 + 1j, 0.5 - 0.5j, False, 5, None, "0", 3),
        ("T", 4, 8, 3, 1, -3, 2 + 0j, 0j, True, 2, 7, "0", None),
        (0, 10, 10, 0, 1, 1, 1 + 0j, 1 + 0j, False, 0, None, None, None),
        (2, 0, 6, 0, 1, 1, 1 + 0j, 0.5 + 0j, False, 3, None, None, None),
        (1, 6, 0, 0, 1, -1, 1 + 0j, 0.5 + 0j, False, 2, None, None, None),
        (0, 7, 5, 0, 1, 1, 0j, -1 + 0.5j, False, 3, None, None, None),
        (1, 5, 7, 0, 1, 1, 0j, 1 + 0j, False, 2, None, None, None),
        (1, 40, 3, 0, 1, 1, 1 - 1j, -1 + 0j, False, 2, None, None, 4),
    ],
    "large": [
        (0, 1024, 1024, 3, 1, -1, 1 - 0.5j, 0.5 + 0j, False, 6, None, "0", 7),
        (2, 2000, 300, 0, 2, 1, 1 + 1j, 0j, True, 5, 11, None, None),
    ],
    "perf": [
        (0, 1024, 1024, 0, 1, 1, 1 + 0j, 0j, False, 64, None, None, None),
        (2, 512, 512, 0, 1, 1, 1 + 0j, 0j, False, 256, None, None, None),
        (1, 4096, 128, 0, 1, 1, 1 + 0j, 1 + 0j, False, 128, "0", None, None),
    ],
}


def _stride(spec: Any, packed: int) -> int:
    if spec is None:
        return packed
    return 0 if spec == "0" else packed + spec


def gemv_sampler(prec: str, batched: bool):
    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(trans: Any, m: int, n: int, pad: int, incx: int, incy: int, alpha: complex, beta: complex,
                poison: bool, batch: int = 1, s_a: Any = None, s_x: Any = None, s_y: Any = None) -> dict[str, Any]:
            xlen, ylen = _dims(trans, m, n)
            lda = max(1, m) + pad
            one_a, one_x, one_y = lda * n, vector_extent(xlen, incx), vector_extent(ylen, incy)
            sa, sx, sy = _stride(s_a, one_a), _stride(s_x, one_x), _stride(s_y, one_y)
            y = _cbuf(_batch_len(one_y, sy, batch), prec)
            vals: dict[str, Any] = {"trans": trans, "m": m, "n": n, "alpha": alpha,
                                    "A": _cbuf(_batch_len(one_a, sa, batch), prec), "lda": lda}
            if batched:
                vals["strideA"] = sa
            vals.update({"x": _cbuf(_batch_len(one_x, sx, batch), prec), "incx": incx})
            if batched:
                vals["stridex"] = sx
            vals.update({"beta": beta, "y": poisoned(y) if poison else y, "incy": incy})
            if batched:
                vals.update({"stridey": sy, "batchCount": batch})
            return vals

        return iter(samples(row(*r) for r in (GEMV_BATCHED if batched else GEMV)[size]))

    return sampler


# ---- geru / gerc ------------------------------------------------------------------------------


def _ger(conj: bool, bound: bool):
    def fn(m: int, n: int, alpha: Any, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int, A: torch.Tensor,
           lda: int) -> None:
        """Reference BLAS cgeru.f / zgerc.f: quick return when m == 0, n == 0 or alpha == 0."""
        _check_ld("lda", lda, m)
        if m <= 0 or n <= 0 or alpha == 0:
            return
        xv = _bvec(x, m, incx, 0, 1)[0]
        yv = _bvec(y, n, incy, 0, 1)[0]
        a = _bmat(A, m, n, lda, 0, 1)[0]
        if bound:
            upd = _bound_mul(_bound_scalar(alpha), bound_matmul(xv[:, None], yv[None, :]))
        else:
            upd = alpha * torch.outer(xv, yv.conj() if conj else yv)
        a.copy_(a + upd)

    return fn


GER_PARAMS = (_p("m", "int"), _p("n", "int"), _p("alpha", "complex"), _p("x", "Tensor"), _p("incx", "int"),
              _p("y", "Tensor"), _p("incy", "int"), _p("A", "Tensor", True), _p("lda", "int"))


def ger_overload(prec: str, conj: bool) -> Overload:
    name = f"cublas{prec}ger{'c' if conj else 'u'}_v2"
    what = "alpha * x @ y^H + A (y conjugated)" if conj else "alpha * x @ y^T + A (no conjugation)"
    return Overload(
        name=name, func_name=name, params=GER_PARAMS, signature=signature(name, GER_PARAMS),
        reference=_ger(conj, False), scale=_ger(conj, True),
        doc=(
            f"The rank-1 update A := {what}, where A is an m x n column-major complex matrix with leading "
            "dimension lda >= max(1, m), x a complex vector of m logical elements (increment incx) and y one "
            f"of n (increment incy): A[i, j] += alpha * x[i] * {'conj(y[j])' if conj else 'y[j]'}. Writes A "
            "in place and returns None; rows m..lda-1 of each column are padding and must stay unchanged. "
            "alpha is a Python complex; incx and incy are nonzero and may be negative. When m == 0, n == 0 "
            f"or alpha == 0 the routine returns at once. {complex_pointer_doc(prec)} So A has 2*lda*n "
            f"{_dt(prec)} values."
        ),
    )


# (m, n, lda pad, incx, incy, alpha)
GER: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (1, 1, 0, 1, 1, 1 + 0j),
        (7, 13, 2, 2, 1, 1.5 - 0.5j),
        (33, 20, 0, -1, 3, -0.75 + 1j),
        (20, 33, 3, 1, -2, 2 - 1j),
        (40, 50, 1, -3, -1, 0.5j),
        (17, 60, 0, 1, 1, 1 + 1j),
        (64, 1, 0, 1, -1, -1 + 0j),
        (5, 9, 4, -2, -2, 0.25 + 2j),
        (8, 8, 0, 1, 1, 0j),
        (0, 5, 0, 1, 1, 1 + 0j),
        (5, 0, 2, 1, -1, 1 + 0j),
    ],
    "large": [(4099, 1021, 1, -2, 3, -0.75 + 0.5j), (2048, 4096, 0, 1, 1, 1 + 1j)],
    "perf": [(8192, 8192, 0, 1, 1, 1 + 0j), (4096, 14336, 0, 1, 1, 0.5 - 0.5j)],
}


def ger_sampler(prec: str):
    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(m: int, n: int, pad: int, incx: int, incy: int, alpha: complex) -> dict[str, Any]:
            lda = max(1, m) + pad
            return {"m": m, "n": n, "alpha": alpha, "x": _cbuf(vector_extent(m, incx), prec), "incx": incx,
                    "y": _cbuf(vector_extent(n, incy), prec), "incy": incy, "A": _cbuf(lda * n, prec), "lda": lda}

        return iter(samples(row(*r) for r in GER[size]))

    return sampler


# ---- gemm -------------------------------------------------------------------------------------


def _gemm(bound: bool, transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any, A: torch.Tensor, lda: int,
          sa: int, B: torch.Tensor, ldb: int, sb: int, beta: Any, C: torch.Tensor, ldc: int, sc: int,
          batch: int) -> None:
    """Reference BLAS cgemm.f per problem: quick return when C is empty or ((alpha == 0 or k == 0)
    and beta == 1); C unread when beta == 0; A and B unread when alpha == 0 or k == 0."""
    a_rows, a_cols = _stored(transa, m, k)
    b_rows, b_cols = _stored(transb, k, n)
    _check_ld("lda", lda, a_rows)
    _check_ld("ldb", ldb, b_rows)
    _check_ld("ldc", ldc, m)
    if m <= 0 or n <= 0 or batch <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return
    c = _bmat(C, m, n, ldc, sc, batch)
    if alpha == 0 or k <= 0:
        prod = torch.zeros((batch, m, n), dtype=c.dtype, device=c.device)
    else:
        a = _op(_bmat(A, a_rows, a_cols, lda, sa, batch), transa, bound)
        b = _op(_bmat(B, b_rows, b_cols, ldb, sb, batch), transb, bound)
        prod = _bound_mul(_bound_scalar(alpha), bound_matmul(a, b)) if bound else alpha * (a @ b)
    if beta != 0:
        prod = prod + (_bound_mul(_bound_scalar(beta), c) if bound else beta * c)
    c.copy_(prod)


def _gemm_plain(bound: bool):
    def fn(transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any, A: torch.Tensor, lda: int,
           B: torch.Tensor, ldb: int, beta: Any, C: torch.Tensor, ldc: int) -> None:
        _gemm(bound, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1)

    return fn


def _gemm_batched(bound: bool):
    def fn(transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any, A: torch.Tensor, lda: int, strideA: int,
           B: torch.Tensor, ldb: int, strideB: int, beta: Any, C: torch.Tensor, ldc: int, strideC: int,
           batchCount: int) -> None:
        _gemm(bound, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC,
              batchCount)

    return fn


gemm_reference, gemm_scale = _gemm_plain(False), _gemm_plain(True)
gemm_batched_reference, gemm_batched_scale = _gemm_batched(False), _gemm_batched(True)

GEMM_PARAMS = (_p("transa", "int | str"), _p("transb", "int | str"), _p("m", "int"), _p("n", "int"),
               _p("k", "int"), _p("alpha", "complex"), _p("A", "Tensor"), _p("lda", "int"), _p("B", "Tensor"),
               _p("ldb", "int"), _p("beta", "complex"), _p("C", "Tensor", True), _p("ldc", "int"))
GEMM_BATCHED_PARAMS = (
    _p("transa", "int | str"), _p("transb", "int | str"), _p("m", "int"), _p("n", "int"), _p("k", "int"),
    _p("alpha", "complex"), _p("A", "Tensor"), _p("lda", "int"), _p("strideA", "int"), _p("B", "Tensor"),
    _p("ldb", "int"), _p("strideB", "int"), _p("beta", "complex"), _p("C", "Tensor", True), _p("ldc", "int"),
    _p("strideC", "int"), _p("batchCount", "int"))

GEMM_DOC = (
    "C := alpha * op(A) @ op(B) + beta * C with op(A) m x k, op(B) k x n and C m x n, all column-major "
    "complex; op(M) is M for N, M^T (transpose) for T and M^H (conjugate transpose) for C. A is stored "
    "m x k (lda >= max(1, m)) when transa is N and k x m (lda >= max(1, k)) when transa is T or C; B is "
    "stored k x n (ldb >= max(1, k)) when transb is N and n x k (ldb >= max(1, n)) when transb is T or C; "
    "ldc >= max(1, m); rows m..ldc-1 of each column of C are padding and must stay unchanged. alpha and "
    "beta are Python complex. When beta == 0, C is not read (it may hold NaN) and is set to alpha * op(A) "
    "@ op(B). When k == 0 or alpha == 0, C := beta * C (C := 0 when beta == 0) and A and B are not read. "
    "When m == 0 or n == 0 the routine returns at once."
)


def gemm_overload(prec: str, batched: bool, suffix: str = "") -> Overload:
    name = f"cublas{prec}gemm{'StridedBatched' if batched else '_v2'}{suffix}"
    ps = GEMM_BATCHED_PARAMS if batched else GEMM_PARAMS
    precision = "Compute in full float32 precision (no TF32 or lower-precision products). " if prec == "C" else ""
    if batched:
        what = (
            f"For each problem i = 0..batchCount-1 independently: {GEMM_DOC} Problem i's A starts at complex "
            "element i*strideA of A, its B at i*strideB of B and its C at i*strideC of C (strides count "
            "complex elements; a stride of 0 makes every problem read the same input; output problems do "
            "not overlap, and elements between them stay unchanged). When batchCount == 0 nothing happens. "
            "Writes C in place and returns None. "
        )
        sizes = ("So each buffer holds 2*((batchCount-1)*stride + ld*cols) "
                 f"{_dt(prec)} values (one problem's worth when batchCount == 0).")
    else:
        what = f"{GEMM_DOC} Writes C in place and returns None. "
        sizes = (f"So A has 2*lda*k (N) or 2*lda*m (T/C) {_dt(prec)} values, B 2*ldb*n (N) or 2*ldb*k (T/C), "
                 "and C 2*ldc*n.")
    if suffix == "_64":
        what += ("This is the _64 API: every size, leading dimension, stride and batchCount may exceed "
                 "2^31 - 1, and offsets into a buffer may exceed 2^31 elements (index in 64 bits). ")
    return Overload(
        name=name, func_name=name, params=ps, signature=signature(name, ps),
        reference=gemm_batched_reference if batched else gemm_reference,
        scale=gemm_batched_scale if batched else gemm_scale,
        doc=f"{what}{precision}{ENUM_DOC} {complex_pointer_doc(prec)} {sizes}",
    )


# (transa, transb, m, n, k, lda pad, ldb pad, ldc pad, alpha, beta, C arrives all-NaN)
GEMM: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 0, 1, 1, 1, 0, 0, 0, 1 + 0j, 0j, False),
        (0, 0, 7, 13, 5, 0, 0, 0, 1.5 - 0.5j, -0.5 + 0.25j, False),
        (1, 0, 33, 17, 40, 3, 0, 0, -1.25 + 1j, 1 + 0j, False),
        (0, 2, 40, 33, 7, 0, 1, 2, 0.5j, 0j, True),
        (2, 1, 19, 50, 37, 1, 2, 3, 2 - 1j, 0.75 + 0.5j, False),
        ("C", "N", 20, 9, 31, 0, 0, 0, 1 + 1j, 1 + 0j, False),
        ("T", "C", 32, 32, 32, 0, 0, 0, 1 + 0j, 0j, True),
        ("N", "T", 16, 24, 40, 2, 0, 1, -0.5 + 0j, 2 - 2j, False),
        (2, 2, 5, 3, 70, 0, 0, 0, 1 - 1j, -1 + 0j, False),
        (1, 1, 6, 7, 8, 0, 1, 0, 0.25 + 1j, 0.5j, False),
        (0, 0, 9, 11, 0, 0, 0, 1, 1 + 0j, 0.5 - 0.5j, False),
        (2, 0, 8, 6, 0, 0, 0, 0, 1 + 0j, 0j, True),
        (0, 0, 12, 10, 20, 0, 0, 0, 0j, -1 + 0.5j, False),
        (0, 1, 10, 12, 20, 0, 0, 0, 0j, 1 + 0j, False),
        (0, 1, 0, 5, 4, 0, 0, 0, 1 + 0j, 0.5 + 0j, False),
        (2, 0, 6, 0, 4, 0, 0, 0, 1 + 0j, 0.5 + 0j, False),
    ],
    "large": [
        (0, 0, 1024, 1024, 2048, 0, 0, 0, 1 + 0j, 0j, False),
        (2, 0, 2049, 511, 1023, 1, 0, 3, 1.5 - 0.5j, -0.5 + 1j, False),
        (0, 2, 127, 255, 4095, 0, 5, 0, -1 + 1j, 1 + 0j, False),
    ],
    "perf": [
        (0, 0, 4096, 4096, 4096, 0, 0, 0, 1 + 0j, 0j, False),
        (2, 0, 4096, 2048, 4096, 0, 0, 0, 1 + 0j, 0j, False),
        (0, 1, 8192, 8192, 1024, 0, 0, 0, 1 + 0j, 1 + 0j, False),
    ],
}
# (transa, transb, m, n, k, lda pad, ldb pad, ldc pad, alpha, beta, C all-NaN, batch, strideA, strideB, strideC);
# a stride of None is the packed one (ld * cols), an int > 0 is added to it, "0" is 0
GEMM_BATCHED: dict[str, list[tuple[Any, ...]]] = {
    "small": [
        (0, 0, 5, 7, 3, 0, 0, 0, 1 + 0j, 0j, False, 3, None, None, None),
        (2, 0, 9, 6, 11, 2, 0, 1, 1.5 - 0.5j, -0.5 + 0.25j, False, 4, 3, 1, 5),
        (1, 2, 6, 9, 7, 0, 1, 0, -1 + 1j, 0j, True, 2, None, None, 2),
        ("C", "C", 12, 12, 12, 1, 0, 0, 0.5j, 1 + 0j, False, 3, "0", None, None),
        ("N", "T", 8, 4, 20, 0, 0, 2, 1 + 1j, 0.5 - 0.5j, False, 5, None, "0", 3),
        ("T", "N", 4, 8, 6, 3, 2, 0, 2 + 0j, 0j, True, 2, 7, "0", None),
        (0, 2, 10, 10, 10, 0, 0, 0, 1 + 0j, 1 + 0j, False, 0, None, None, None),
        (2, 0, 0, 6, 5, 0, 0, 0, 1 + 0j, 0.5 + 0j, False, 3, None, None, None),
        (0, 1, 5, 0, 3, 0, 0, 0, 1 + 0j, 0.5 + 0j, False, 2, None, None, None),
        (0, 0, 7, 5, 0, 0, 0, 0, 1 + 0j, -1 + 0.5j, False, 3, None, None, None),
        (1, 0, 5, 7, 4, 0, 0, 0, 0j, 1 + 0j, False, 2, None, None, None),
        (0, 0, 6, 5, 4, 0, 0, 0, 0j, 0j, True, 2, None, None, 3),
    ],
    "large": [
        (0, 0, 512, 512, 256, 0, 0, 3, 1 - 0.5j, 0.5 + 0j, False, 6, None, "0", 7),
        (2, 1, 300, 200, 1000, 1, 0, 0, 1 + 1j, 0j, True, 4, 11, None, None),
    ],
    "perf": [
        (0, 0, 512, 512, 512, 0, 0, 0, 1 + 0j, 0j, False, 64, None, None, None),
        (0, 2, 1024, 1024, 1024, 0, 0, 0, 1 + 0j, 0j, False, 16, None, None, None),
        (1, 0, 128, 2048, 128, 0, 0, 0, 1 + 0j, 1 + 0j, False, 128, "0", None, None),
    ],
}
# The _64 grid adds one perf case whose second A lies 2^30 + 512 complex elements in (strideA, an int64
# argument): 2^31 + 1024 elements of the float32 view the candidate indexes, so 32-bit offsets overflow
# and only 64-bit indexing passes. A holds 8.6 GB of complex64; a whole 2^31 complex elements would need
# its float64 truth and error scale (4 x 17 GiB) beside it, more than the H200 holds with two input sets.
GEMM_64_PERF = [(0, 0, 512, 512, 512, 0, 0, 0, 1 + 0j, 0j, False, 2, 2**30 + 512 - 512 * 512, None, None)]


def gemm_sampler(prec: str, batched: bool, big: bool = False):
    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(ta: Any, tb: Any, m: int, n: int, k: int, pa: int, pb: int, pc: int, alpha: complex,
                beta: complex, poison: bool, batch: int = 1, s_a: Any = None, s_b: Any = None,
                s_c: Any = None) -> dict[str, Any]:
            a_rows, a_cols = _stored(ta, m, k)
            b_rows, b_cols = _stored(tb, k, n)
            lda, ldb, ldc = max(1, a_rows) + pa, max(1, b_rows) + pb, max(1, m) + pc
            one_a, one_b, one_c = lda * a_cols, ldb * b_cols, ldc * n
            sa, sb, sc = _stride(s_a, one_a), _stride(s_b, one_b), _stride(s_c, one_c)
            c = _cbuf(_batch_len(one_c, sc, batch), prec)
            vals: dict[str, Any] = {"transa": ta, "transb": tb, "m": m, "n": n, "k": k, "alpha": alpha,
                                    "A": _cbuf(_batch_len(one_a, sa, batch), prec), "lda": lda}
            if batched:
                vals["strideA"] = sa
            vals.update({"B": _cbuf(_batch_len(one_b, sb, batch), prec), "ldb": ldb})
            if batched:
                vals["strideB"] = sb
            vals.update({"beta": beta, "C": poisoned(c) if poison else c, "ldc": ldc})
            if batched:
                vals.update({"strideC": sc, "batchCount": batch})
            return vals

        rows = (GEMM_BATCHED if batched else GEMM)[size] + (GEMM_64_PERF if big and size == "perf" else [])
        return iter(samples(row(*r) for r in rows))

    return sampler


# ---- records ----------------------------------------------------------------------------------

# Complex products subtract, so every tolerance takes the overload's error scale (complex.bound_matmul).
FLOAT32_SUM = SUM_TOLERANCE
FLOAT64_NOTE = "float64: the tolerance floor is 256 ulps of the error scale, since the truth is float64 too. "
SCALE_NOTE = "The error scale counts every real product positive (complex.bound_matmul). "


def _tol(prec: str, matmul: bool = False) -> Tolerance:
    if prec == "Z":
        return FLOAT64_SUM
    return MATMUL_TOLERANCE if matmul else FLOAT32_SUM


def _precision(prec: str) -> str:
    return "single-precision complex (complex64 as interleaved float32)" if prec == "C" else \
        "double-precision complex (complex128 as interleaved float64)"


def gemv_operator(prec: str, batched: bool) -> Operator:
    ov = gemv_overload(prec, batched)
    return blas_operator(
        ov.name, "blas2",
        f"cuBLAS {_precision(prec)} matrix-vector product{' over a strided batch' if batched else ''}: "
        "y := alpha * op(A) @ x + beta * y with op N, T or C (conjugate transpose), A column-major with a "
        "leading dimension, strided x and y, y written in place.",
        ov, gemv_sampler(prec, batched), tolerance=_tol(prec),
        notes=(FLOAT64_NOTE if prec == "Z" else "") + SCALE_NOTE
        + ("An output stride of 0 or one smaller than a problem (overlapping outputs) is not drawn: cuBLAS "
           "leaves it undefined." if batched else ""),
    )


def ger_operator(prec: str, conj: bool) -> Operator:
    ov = ger_overload(prec, conj)
    return blas_operator(
        ov.name, "blas2",
        f"cuBLAS {_precision(prec)} rank-1 update A := alpha * x @ y^{'H' if conj else 'T'} + A"
        f"{' (y conjugated)' if conj else ' (unconjugated)'}, A column-major with a leading dimension.",
        ov, ger_sampler(prec), tolerance=_tol(prec),
        notes=(FLOAT64_NOTE if prec == "Z" else "") + SCALE_NOTE,
    )


def gemm_operator(prec: str, batched: bool, suffix: str = "") -> Operator:
    ov = gemm_overload(prec, batched, suffix)
    return blas_operator(
        ov.name, "blas3",
        f"cuBLAS {_precision(prec)} general matrix product{' over a strided batch' if batched else ''}"
        f"{' with 64-bit sizes' if suffix else ''}: C := alpha * op(A) @ op(B) + beta * C with op N, T or "
        "C (conjugate transpose), column-major with leading dimensions, C written in place.",
        ov, gemm_sampler(prec, batched, suffix == "_64"), tolerance=_tol(prec, matmul=True),
        notes=(FLOAT64_NOTE if prec == "Z" else "float32: the matmul tolerance (no TF32). ") + SCALE_NOTE
        + ("An output stride of 0 or one smaller than a problem (overlapping outputs) is not drawn: cuBLAS "
           "leaves it undefined." if batched else ""),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasCgemv_v2": partial(gemv_operator, "C", False),
    "cublasCgemvStridedBatched": partial(gemv_operator, "C", True),
    "cublasZgemvStridedBatched": partial(gemv_operator, "Z", True),
    "cublasCgeru_v2": partial(ger_operator, "C", False),
    "cublasZgerc_v2": partial(ger_operator, "Z", True),
    "cublasCgemm_v2": partial(gemm_operator, "C", False),
    "cublasCgemmStridedBatched": partial(gemm_operator, "C", True),
    "cublasCgemmStridedBatched_64": partial(gemm_operator, "C", True, "_64"),
    "cublasZgemmStridedBatched": partial(gemm_operator, "Z", True),
}
