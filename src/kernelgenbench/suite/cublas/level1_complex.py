"""BLAS level 1 on complex vectors: copy (C), swap (Z), dotu (C) and dotc (Z).

Complex buffers follow the suite's complex contract (`complex.py`): interleaved real views whose
increments count complex elements. Each routine follows the netlib reference BLAS (ccopy.f,
zswap.f, cdotu.f, zdotc.f) and cuBLAS's documentation of cublas<t>copy/swap/dot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import torch

from ..build import SUM_TOLERANCE
from ..spec import Operator, Overload, Param, Size
from .complex import (
    REAL,
    as_complex,
    bound_matmul,
    complex_pointer_doc,
    complex_vector_spec,
    result_spec,
    write_scalar,
)
from .family import blas_operator, poisoned, samples, signature, vector_view, write_vector
from .level1 import COPY_PARAMS, DOT_PARAMS, FLOAT64_SUM

# (n, incx, incy, y arrives all-NaN): copy never reads y
CCOPY = {
    "small": [(1, 1, 1, False), (7, 1, 1, True), (33, -1, 1, False), (65, 2, -3, True), (5, 3, 2, False),
              (0, 1, 1, False), (513, -2, -1, False), (129, 1, -1, True), (300, 1, 4, False)],
    "large": [(1 << 22, 1, 1, True), (1_000_003, -3, 2, False)],
    "perf": [(1 << 24, 1, 1, False), (1 << 26, 1, 1, False), (1 << 22, 2, 2, False)],
}
# (n, incx, incy)
ZSWAP = {
    "small": [(1, 1, 1), (7, 1, 1), (33, -1, 1), (65, 2, -3), (5, 3, 2), (0, 1, 1), (513, -2, -1),
              (129, 1, -1), (300, 4, 1)],
    "large": [(1 << 21, 1, 1), (1_000_003, -3, 2)],
    "perf": [(1 << 23, 1, 1), (1 << 25, 1, 1), (1 << 21, 2, 2)],
}
DOT = {
    "small": [(1, 1, 1), (7, 1, 1), (33, -1, 1), (65, 2, -3), (5, 3, 2), (0, 1, 1), (1000, 1, 1),
              (1025, -2, -1), (129, 1, -1), (2048, 1, 1), (3, -4, -4)],
    "large": [(1 << 22, 1, 1), (1_000_003, -3, 2)],
    "perf": [(1 << 24, 1, 1), (1 << 26, 1, 1), (1 << 22, 2, 2)],
}


def _cvec(buf: torch.Tensor, n: int, inc: int) -> torch.Tensor:
    return vector_view(as_complex(buf), n, inc)


def _dt(prec: str) -> str:
    return str(REAL[prec]).replace("torch.", "")


# ---- copy -------------------------------------------------------------------------------------


def ccopy_reference(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    """Reference BLAS: y[k] := x[k]; nothing happens when n <= 0; y is never read."""
    if n <= 0:
        return
    write_vector(as_complex(y), n, incy, _cvec(x, n, incx))


def copy_overload(prec: str) -> Overload:
    name = f"cublas{prec}copy_v2"
    return Overload(
        name=name, func_name=name, params=COPY_PARAMS, signature=signature(name, COPY_PARAMS),
        reference=ccopy_reference,
        doc=(
            "y[k] := x[k] for the logical elements k = 0..n-1 of the complex vectors x (increment incx) "
            "and y (increment incy); writes y in place and returns None. Increments are nonzero and may "
            "be negative. y is not read (it may hold NaN). When n <= 0 the routine returns at once. "
            f"{complex_pointer_doc(prec)} So x has 2*(1 + (n-1)*|incx|) {_dt(prec)} values and y "
            f"2*(1 + (n-1)*|incy|)."
        ),
    )


def copy_sampler(prec: str):
    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(n: int, incx: int, incy: int, poison: bool) -> dict[str, Any]:
            y = complex_vector_spec(n, incy, prec)
            return {"n": n, "x": complex_vector_spec(n, incx, prec), "incx": incx,
                    "y": poisoned(y) if poison else y, "incy": incy}

        return iter(samples(row(*r) for r in CCOPY[size]))

    return sampler


# ---- swap -------------------------------------------------------------------------------------


def swap_reference(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    """Reference BLAS: x[k] <-> y[k]; nothing happens when n <= 0."""
    if n <= 0:
        return
    xv, yv = _cvec(x, n, incx).clone(), _cvec(y, n, incy).clone()
    write_vector(as_complex(x), n, incx, yv)
    write_vector(as_complex(y), n, incy, xv)


SWAP_PARAMS = (Param("n", "int"), Param("x", "Tensor", writes=True), Param("incx", "int"),
               Param("y", "Tensor", writes=True), Param("incy", "int"))


def swap_overload(prec: str) -> Overload:
    name = f"cublas{prec}swap_v2"
    return Overload(
        name=name, func_name=name, params=SWAP_PARAMS, signature=signature(name, SWAP_PARAMS),
        reference=swap_reference,
        doc=(
            "Exchanges x[k] and y[k] for the logical elements k = 0..n-1 of the complex vectors x "
            "(increment incx) and y (increment incy); writes both in place and returns None. Increments "
            "are nonzero and may be negative. When n <= 0 the routine returns at once. "
            f"{complex_pointer_doc(prec)} So x has 2*(1 + (n-1)*|incx|) {_dt(prec)} values and y "
            f"2*(1 + (n-1)*|incy|)."
        ),
    )


def swap_sampler(prec: str):
    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = ({"n": n, "x": complex_vector_spec(n, incx, prec), "incx": incx,
                 "y": complex_vector_spec(n, incy, prec), "incy": incy} for n, incx, incy in ZSWAP[size])
        return iter(samples(rows))

    return sampler


# ---- dotu / dotc ------------------------------------------------------------------------------


def dot_reference(conj: bool):
    """Reference BLAS cdotu.f / zdotc.f: sum_k x[k] * y[k], x conjugated for dotc; 0 when n <= 0."""

    def reference(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int, result: torch.Tensor) -> None:
        if n <= 0:
            write_scalar(result, 0.0)
            return
        xv = _cvec(x, n, incx)
        write_scalar(result, ((xv.conj() if conj else xv) * _cvec(y, n, incy)).sum())

    return reference


def dot_scale(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int, result: torch.Tensor) -> None:
    """The error scale (on |inputs|): the sum of every real product, counted positive, in each part."""
    write_scalar(result, bound_matmul(_cvec(x, n, incx), _cvec(y, n, incy)) if n > 0 else 0.0)


def dot_overload(prec: str, conj: bool) -> Overload:
    name = f"cublas{prec}dot{'c' if conj else 'u'}_v2"
    what = "conj(x[k]) * y[k]" if conj else "x[k] * y[k] (no conjugation)"
    return Overload(
        name=name, func_name=name, params=DOT_PARAMS, signature=signature(name, DOT_PARAMS),
        reference=dot_reference(conj), scale=dot_scale,
        doc=(
            f"The complex dot product sum_k {what} over the logical elements k = 0..n-1 of the complex "
            "vectors x (increment incx) and y (increment incy); returns None. Increments are nonzero and "
            "may be negative. When n <= 0 the result is 0. The result is written to result, a 2-element "
            f"{_dt(prec)} device tensor: result[0] = real part, result[1] = imaginary part (cuBLAS's "
            "CUBLAS_POINTER_MODE_DEVICE: the caller reads it without a host synchronisation); it arrives "
            f"holding NaN and is not read. {complex_pointer_doc(prec)} So x has 2*(1 + (n-1)*|incx|) "
            f"{_dt(prec)} values and y 2*(1 + (n-1)*|incy|)."
        ),
    )


def dot_sampler(prec: str):
    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = ({"n": n, "x": complex_vector_spec(n, incx, prec), "incx": incx,
                 "y": complex_vector_spec(n, incy, prec), "incy": incy,
                 "result": result_spec(REAL[prec], is_complex=True)} for n, incx, incy in DOT[size])
        return iter(samples(rows))

    return sampler


# ---- records ----------------------------------------------------------------------------------


def _data(op: Operator) -> Operator:
    """Moving data is the work: host code may not copy, so the copy is a Triton kernel."""
    return replace(op, work="data")


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasCcopy_v2": lambda: _data(blas_operator(
        "cublasCcopy_v2", "blas1",
        "cuBLAS single-precision complex copy: y := x between strided device vectors of complex64, "
        "given as interleaved float32.",
        copy_overload("C"), copy_sampler("C"),
        notes="work = data: the copy itself must be a Triton kernel.",
    )),
    "cublasZswap_v2": lambda: _data(blas_operator(
        "cublasZswap_v2", "blas1",
        "cuBLAS double-precision complex swap: x <-> y between strided device vectors of complex128, "
        "given as interleaved float64.",
        swap_overload("Z"), swap_sampler("Z"),
        notes="work = data: the exchange itself must be a Triton kernel.",
    )),
    "cublasCdotu_v2": lambda: blas_operator(
        "cublasCdotu_v2", "blas1",
        "cuBLAS single-precision complex dot product (unconjugated) of strided device vectors of "
        "complex64 given as interleaved float32, the (re, im) result left in device memory.",
        dot_overload("C", False), dot_sampler("C"), tolerance=SUM_TOLERANCE,
        notes="Summation order is free: the sum tolerance, whose error scale counts every real product "
              "positive (complex.bound_matmul).",
    ),
    "cublasZdotc_v2": lambda: blas_operator(
        "cublasZdotc_v2", "blas1",
        "cuBLAS double-precision complex dot product, x conjugated, of strided device vectors of "
        "complex128 given as interleaved float64, the (re, im) result left in device memory.",
        dot_overload("Z", True), dot_sampler("Z"), tolerance=FLOAT64_SUM,
        notes="float64: the tolerance floor is 256 ulps of the error scale, since the truth is float64 "
              "too; the scale counts every real product positive (complex.bound_matmul).",
    ),
}
