"""Twins of cuBLAS routines: the C signature unchanged, the operands' roles or an epilogue changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from .. import registry
from ..cublas.complex import write_scalar
from ..cublas.family import matrix_view, vector_view, write_vector
from ..cublas.level3 import sgemm_reference
from ..cublas.level3_real import dgmm_reference, geam_reference
from ..spec import Operator, Overload
from . import Perturbation, twin


def _axpy_swapped(n: int, alpha: Any, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    if n <= 0:
        return
    write_vector(y, n, incy, vector_view(x, n, incx) + alpha * vector_view(y, n, incy))


def _axpy_doc(dtype: str) -> str:
    return (f"y[k] := x[k] + alpha * y[k] for the logical elements k = 0..n-1 of the {dtype} vectors x "
            "(increment incx) and y (increment incy): alpha scales y, not x. Writes y in place and returns "
            "None; n and the increments are ints, alpha a Python float; increments are nonzero and may be "
            "negative (a negative increment starts at the far end of the storage, as in BLAS). When n <= 0 "
            "the routine returns at once; alpha == 0 is no quick return here (y := x).")


SAXPY_SWAPPED = Perturbation(
    "swapped", "alpha scales y instead of x (y := x + alpha * y), and alpha == 0 is no quick return",
    "y := x + alpha * y on strided float32 vectors, in place.",
    lambda ov: _axpy_swapped, ov_doc=_axpy_doc("float32"),
)

DAXPY_SWAPPED = Perturbation(
    "swapped", SAXPY_SWAPPED.what, "y := x + alpha * y on strided float64 vectors, in place.",
    lambda ov: _axpy_swapped, ov_doc=_axpy_doc("float64"),
)


def _scal_relu(n: int, alpha: Any, x: torch.Tensor, incx: int) -> None:
    if n <= 0 or incx <= 0:
        return
    write_vector(x, n, incx, (alpha * vector_view(x, n, incx)).clamp_min(0.0))


SSCAL_RELU = Perturbation(
    "relu", "a ReLU epilogue: x := max(alpha * x, 0)",
    "x := max(alpha * x, 0) on a strided float32 vector, in place.",
    lambda ov: _scal_relu,
    ov_doc=("x[k] := max(alpha * x[k], 0) for the logical elements k = 0..n-1 of the float32 vector x "
            "(increment incx), in place; returns None. Nothing happens when n <= 0 or incx <= 0; elements "
            "between the strided ones are untouched."),
)


def _asum_squares(n: int, x: torch.Tensor, incx: int, result: torch.Tensor) -> None:
    write_scalar(result, vector_view(x, n, incx).square().sum() if n > 0 and incx > 0 else 0.0)


DASUM_SQUARES = Perturbation(
    "squares", "sums squares instead of absolute values",
    "The sum of x[k]^2 over a strided float64 vector, written to the device scalar `result`.",
    lambda ov: _asum_squares,
    ov_doc=("result[0] := sum of x[k]^2 for k = 0..n-1 of the float64 vector x (increment incx); 0 when "
            "n <= 0 or incx <= 0. result is a 1-element float64 device tensor (device pointer mode); "
            "returns None."),
)


def _ger_relu(m: int, n: int, alpha: Any, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
              A: torch.Tensor, lda: int) -> None:
    if lda < max(1, m):
        raise ValueError(f"lda={lda} < max(1, m={m})")
    if m <= 0 or n <= 0:
        return
    a = matrix_view(A, m, n, lda)
    a.copy_((a + alpha * torch.outer(vector_view(x, m, incx), vector_view(y, n, incy))).clamp_min(0.0))


SGER_RELU = Perturbation(
    "relu", "a ReLU epilogue on the rank-1 update, and alpha == 0 is no quick return",
    "A := max(alpha * x y^T + A, 0) on a column-major float32 matrix, in place.",
    lambda ov: _ger_relu,
    ov_doc=("A[i, j] := max(alpha * x[i] * y[j] + A[i, j], 0) for the m x n column-major float32 matrix A "
            "(leading dimension lda >= max(1, m)), x of m elements (increment incx), y of n (increment incy); "
            "in place, returns None. Only m == 0 or n == 0 returns at once (alpha == 0 still clamps A); "
            "rows of A past m are untouched."),
)


def _relu_on_c(reference: Callable[..., None]) -> Callable[[Overload], Callable[..., None]]:
    """The routine, then a ReLU over the m x n matrix it writes (C, leading dimension ldc)."""

    def build(ov: Overload) -> Callable[..., None]:
        names = [p.name for p in ov.params]

        def relu_after(*args: Any, **kwargs: Any) -> None:
            v = {**dict(zip(names, args)), **kwargs}
            reference(*args, **kwargs)
            if v["m"] > 0 and v["n"] > 0:
                c = matrix_view(v["C"], v["m"], v["n"], v["ldc"])
                c.copy_(c.clamp_min(0.0))

        return relu_after

    return build


SGEAM_RELU = Perturbation(
    "relu", "a ReLU epilogue: C := max(alpha * op(A) + beta * op(B), 0)",
    "C := max(alpha * op(A) + beta * op(B), 0), column-major float32; C is never read.",
    _relu_on_c(geam_reference),
    ov_doc=("cublasSgeam's arguments and layout (op: 0/'N' none, 1/'T' or 2/'C' transpose; column-major with "
            "leading dimensions), then a ReLU: C[i, j] := max(alpha * op(A)[i, j] + beta * op(B)[i, j], 0) for "
            "the m x n matrix C; C is never read; returns None."),
)

SGEMM_RELU = Perturbation(
    "relu", "a ReLU epilogue: C := max(alpha * op(A) op(B) + beta * C, 0), no quick return on alpha == 0",
    "C := max(alpha * op(A) @ op(B) + beta * C, 0), column-major float32.",
    _relu_on_c(sgemm_reference),
    ov_doc=("cublasSgemm_v2's arguments and layout (op: 0/'N' none, 1/'T' or 2/'C' transpose; column-major with "
            "leading dimensions; C is not read when beta == 0), then a ReLU over the m x n matrix C: C[i, j] := "
            "max(alpha * (op(A) op(B))[i, j] + beta * C[i, j], 0). Only an empty C returns at once: with "
            "alpha == 0 or k == 0 and beta == 1, C := max(C, 0). Returns None."),
)

SDGMM_RELU = Perturbation(
    "relu", "a ReLU epilogue: C := max(A diag(x), 0) (or max(diag(x) A, 0))",
    "C := max(A diag(x), 0) for mode right, max(diag(x) A, 0) for mode left; column-major float32.",
    _relu_on_c(dgmm_reference),
    ov_doc=("cublasSdgmm's arguments and layout (mode 0/'L' left: diag(x) A, 1/'R' right: A diag(x); x of m or "
            "n elements with increment incx, incx == 0 repeating x[0]; column-major with leading dimensions), "
            "then a ReLU over the m x n matrix C: C[i, j] := max(product[i, j], 0). Returns None."),
)


def _copy_negated(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    if n <= 0:
        return
    write_vector(y, n, incy, -vector_view(x, n, incx))


DCOPY_NEGATED = Perturbation(
    "negated", "the copy is negated: y := -x",
    "y := -x on strided float64 vectors: a negating copy.",
    lambda ov: _copy_negated,
    ov_doc=("y[k] := -x[k] for the logical elements k = 0..n-1 of the float64 vectors x (increment incx) and "
            "y (increment incy); nothing happens when n <= 0; y is never read; increments may be negative "
            "(starting at the far end of the storage, as in BLAS). Returns None."),
)


def _of(op_id: str, p: Perturbation) -> tuple[str, Callable[[], Operator]]:
    return f"{op_id}~{p.tag}", lambda: twin(registry.get(op_id), p)


TWINS: dict[str, Callable[[], Operator]] = dict([
    _of("cublas::cublasSaxpy_v2", SAXPY_SWAPPED),
    _of("cublas::cublasDaxpy_v2", DAXPY_SWAPPED),
    _of("cublas::cublasSscal_v2", SSCAL_RELU),
    _of("cublas::cublasDasum_v2", DASUM_SQUARES),
    _of("cublas::cublasSger_v2", SGER_RELU),
    _of("cublas::cublasSgeam", SGEAM_RELU),
    _of("cublas::cublasSgemm_v2", SGEMM_RELU),
    _of("cublas::cublasSdgmm", SDGMM_RELU),
    _of("cublas::cublasDcopy_v2", DCOPY_NEGATED),
])
