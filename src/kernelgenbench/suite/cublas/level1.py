"""BLAS level 1 on real vectors: axpy (S, D), copy (D), scal (S), dot (S) and asum (D).

Each routine follows the netlib reference BLAS (saxpy.f, dcopy.f, sscal.f, sdot.f, dasum.f) and
cuBLAS's documentation of cublas<t>axpy/copy/scal/dot/asum. A scalar result (dot, asum) is written
to a device tensor, as cuBLAS does in CUBLAS_POINTER_MODE_DEVICE, so no host synchronisation is
needed to return it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from typing import Any

import torch

from ..build import SUM_TOLERANCE
from ..spec import Operator, Overload, Size
from .complex import result_spec, write_scalar
from .family import (
    PRECISIONS,
    blas_operator,
    params,
    pointer_doc,
    poisoned,
    samples,
    signature,
    vector_spec,
    vector_view,
    write_vector,
)
from .level2 import FLOAT64_FLOOR

# (n, alpha, incx, incy)
AXPY = {
    "small": [(1, 1.0, 1, 1), (7, 1.5, 1, 1), (33, -0.75, -1, 1), (65, 2.0, 2, -3), (5, -2.5, 3, 2),
              (1000, 0.0, 1, 1), (0, 1.5, 1, 1), (4097, 1.0, -2, -1), (129, 0.5, 1, -1)],
    "large": [(1 << 24, 1.5, 1, 1), (1_000_003, -0.5, -3, 2), (3_000_001, 2.0, 1, -1)],
    "perf": [(1 << 26, 1.5, 1, 1), (1 << 28, -0.75, 1, 1), (1 << 24, 2.0, 2, 2)],
}
DAXPY = {
    "small": AXPY["small"],
    "large": [(1 << 23, 1.5, 1, 1), (1_000_003, -0.5, -3, 2)],
    "perf": [(1 << 25, 1.5, 1, 1), (1 << 27, -0.75, 1, 1), (1 << 23, 2.0, 2, 2)],
}
# (n, incx, incy, y arrives all-NaN): copy never reads y
COPY = {
    "small": [(1, 1, 1, False), (7, 1, 1, True), (33, -1, 1, False), (65, 2, -3, True), (5, 3, 2, False),
              (0, 1, 1, False), (1025, -2, -1, False), (129, 1, -1, True), (300, 1, 4, False)],
    "large": [(1 << 23, 1, 1, True), (1_000_003, -3, 2, False)],
    "perf": [(1 << 25, 1, 1, False), (1 << 27, 1, 1, False), (1 << 23, 2, 2, False)],
}
# (n, alpha, incx)
SCAL = {
    "small": [(1, 2.0, 1), (7, 1.5, 1), (33, -0.75, 2), (65, 0.0, 1), (5, -2.5, 3), (0, 1.5, 1),
              (4097, 0.5, 1), (129, 3.0, 5), (40, 2.0, -1), (17, 1.0, 1)],
    "large": [(1 << 24, 1.5, 1), (1_000_003, -0.5, 3)],
    "perf": [(1 << 26, 1.5, 1), (1 << 28, -0.75, 1), (1 << 24, 2.0, 2)],
}
# (n, incx, incy)
DOT = {
    "small": [(1, 1, 1), (7, 1, 1), (33, -1, 1), (65, 2, -3), (5, 3, 2), (0, 1, 1), (1000, 1, 1),
              (4097, -2, -1), (129, 1, -1), (2048, 1, 1), (3, -4, -4)],
    "large": [(1 << 24, 1, 1), (1_000_003, -3, 2), (3_000_001, 1, -1)],
    "perf": [(1 << 26, 1, 1), (1 << 28, 1, 1), (1 << 24, 2, 2)],
}
# (n, incx): incx <= 0 makes asum return 0 without reading x
ASUM = {
    "small": [(1, 1), (7, 1), (33, 2), (65, 3), (0, 1), (1000, 1), (4097, 1), (129, 5), (40, -1),
              (2048, 1)],
    "large": [(1 << 23, 1), (1_000_003, 3)],
    "perf": [(1 << 25, 1), (1 << 27, 1), (1 << 23, 2)],
}


def _dt(prec: str) -> str:
    return str(PRECISIONS[prec]).replace("torch.", "")


RESULT_DOC = (
    "The scalar result is written to result[0], a 1-element DTYPE device tensor (cuBLAS's "
    "CUBLAS_POINTER_MODE_DEVICE: the caller reads it without a host synchronisation); it arrives "
    "holding NaN and is not read."
)


def result_doc(dtype: torch.dtype) -> str:
    return RESULT_DOC.replace("DTYPE", str(dtype).replace("torch.", ""))


# ---- axpy -------------------------------------------------------------------------------------


def axpy_reference(n: int, alpha: Any, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    """Reference BLAS: nothing happens when n <= 0 or alpha == 0."""
    if n <= 0 or alpha == 0:
        return
    xv = vector_view(x, n, incx)
    yv = vector_view(y, n, incy)
    write_vector(y, n, incy, alpha * xv + yv)


saxpy_reference = axpy_reference  # the name tests/test_cublas_specs.py knows it by

PARAMS = params([("n", "int"), ("alpha", "float"), ("x", "Tensor"), ("incx", "int"),
                 ("y", "Tensor"), ("incy", "int")], writes="y")


def axpy_overload(prec: str) -> Overload:
    name = f"cublas{prec}axpy_v2"
    return Overload(
        name=name,
        func_name=name,
        params=PARAMS,
        signature=signature(name, PARAMS),
        reference=axpy_reference,
        doc=(
            f"y[k] := alpha * x[k] + y[k] for the logical elements k = 0..n-1 of the {_dt(prec)} vectors x "
            "(increment incx) and y (increment incy); writes y in place and returns None. n and the "
            "increments are ints, alpha a Python float. Increments are nonzero and may be negative. "
            "When n <= 0 or alpha == 0 the routine returns at once and y is unchanged. "
            f"{pointer_doc(PRECISIONS[prec])} So x has 1 + (n-1)*|incx| elements and y 1 + (n-1)*|incy|."
        ),
    )


OVERLOAD = axpy_overload("S")


def axpy_sampler(prec: str, grid: dict[str, list[Any]]):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = (
            {"n": n, "alpha": alpha, "x": vector_spec(n, incx, dtype), "incx": incx,
             "y": vector_spec(n, incy, dtype), "incy": incy}
            for n, alpha, incx, incy in grid[size]
        )
        return iter(samples(rows))

    return sampler


# ---- copy -------------------------------------------------------------------------------------


def copy_reference(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    """Reference BLAS: y[k] := x[k]; nothing happens when n <= 0; y is never read."""
    if n <= 0:
        return
    write_vector(y, n, incy, vector_view(x, n, incx))


COPY_PARAMS = params([("n", "int"), ("x", "Tensor"), ("incx", "int"), ("y", "Tensor"), ("incy", "int")],
                     writes="y")


def copy_overload(prec: str) -> Overload:
    name = f"cublas{prec}copy_v2"
    return Overload(
        name=name, func_name=name, params=COPY_PARAMS, signature=signature(name, COPY_PARAMS),
        reference=copy_reference,
        doc=(
            f"y[k] := x[k] for the logical elements k = 0..n-1 of the {_dt(prec)} vectors x (increment "
            "incx) and y (increment incy); writes y in place and returns None. Increments are nonzero "
            "and may be negative. y is not read (it may hold NaN). When n <= 0 the routine returns at "
            f"once. {pointer_doc(PRECISIONS[prec])} So x has 1 + (n-1)*|incx| elements and y 1 + (n-1)*|incy|."
        ),
    )


def copy_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(n: int, incx: int, incy: int, poison: bool) -> dict[str, Any]:
            y = vector_spec(n, incy, dtype)
            return {"n": n, "x": vector_spec(n, incx, dtype), "incx": incx, "y": poisoned(y) if poison else y,
                    "incy": incy}

        return iter(samples(row(*r) for r in COPY[size]))

    return sampler


# ---- scal -------------------------------------------------------------------------------------


def scal_reference(n: int, alpha: Any, x: torch.Tensor, incx: int) -> None:
    """Reference BLAS (sscal.f): nothing happens when n <= 0 or incx <= 0."""
    if n <= 0 or incx <= 0:
        return
    write_vector(x, n, incx, alpha * vector_view(x, n, incx))


SCAL_PARAMS = params([("n", "int"), ("alpha", "float"), ("x", "Tensor"), ("incx", "int")], writes="x")


def scal_overload(prec: str) -> Overload:
    name = f"cublas{prec}scal_v2"
    return Overload(
        name=name, func_name=name, params=SCAL_PARAMS, signature=signature(name, SCAL_PARAMS),
        reference=scal_reference,
        doc=(
            f"x[k] := alpha * x[k] for the logical elements k = 0..n-1 of the {_dt(prec)} vector x "
            "(increment incx); writes x in place and returns None. alpha is a Python float. As in the "
            "reference BLAS, the routine returns at once, leaving x unchanged, when n <= 0 or incx <= 0. "
            f"{pointer_doc(PRECISIONS[prec])} So x has 1 + (n-1)*|incx| elements."
        ),
    )


def scal_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = ({"n": n, "alpha": alpha, "x": vector_spec(n, incx, dtype), "incx": incx}
                for n, alpha, incx in SCAL[size])
        return iter(samples(rows))

    return sampler


# ---- dot --------------------------------------------------------------------------------------


def dot_reference(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int, result: torch.Tensor) -> None:
    """Reference BLAS: the sum of x[k] * y[k]; 0 when n <= 0."""
    value = (vector_view(x, n, incx) * vector_view(y, n, incy)).sum() if n > 0 else 0.0
    write_scalar(result, value)


DOT_PARAMS = params([("n", "int"), ("x", "Tensor"), ("incx", "int"), ("y", "Tensor"), ("incy", "int"),
                     ("result", "Tensor")], writes="result")


def dot_overload(prec: str) -> Overload:
    name = f"cublas{prec}dot_v2"
    dtype = PRECISIONS[prec]
    return Overload(
        name=name, func_name=name, params=DOT_PARAMS, signature=signature(name, DOT_PARAMS),
        reference=dot_reference,
        doc=(
            f"The dot product sum_k x[k] * y[k] over the logical elements k = 0..n-1 of the {_dt(prec)} "
            "vectors x (increment incx) and y (increment incy); returns None. Increments are nonzero "
            f"and may be negative. When n <= 0 the result is 0. {result_doc(dtype)} "
            f"{pointer_doc(dtype)} So x has 1 + (n-1)*|incx| elements and y 1 + (n-1)*|incy|."
        ),
    )


def dot_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = ({"n": n, "x": vector_spec(n, incx, dtype), "incx": incx, "y": vector_spec(n, incy, dtype),
                 "incy": incy, "result": result_spec(dtype)} for n, incx, incy in DOT[size])
        return iter(samples(rows))

    return sampler


# ---- asum -------------------------------------------------------------------------------------


def asum_reference(n: int, x: torch.Tensor, incx: int, result: torch.Tensor) -> None:
    """Reference BLAS (dasum.f) and cuBLAS: the sum of |x[k]|; 0 when n <= 0 or incx <= 0."""
    value = vector_view(x, n, incx).abs().sum() if n > 0 and incx > 0 else 0.0
    write_scalar(result, value)


ASUM_PARAMS = params([("n", "int"), ("x", "Tensor"), ("incx", "int"), ("result", "Tensor")], writes="result")


def asum_overload(prec: str) -> Overload:
    name = f"cublas{prec}asum_v2"
    dtype = PRECISIONS[prec]
    return Overload(
        name=name, func_name=name, params=ASUM_PARAMS, signature=signature(name, ASUM_PARAMS),
        reference=asum_reference,
        doc=(
            f"The sum of absolute values sum_k |x[k]| over the logical elements k = 0..n-1 of the {_dt(prec)} "
            "vector x (increment incx); returns None. As in the reference BLAS and cuBLAS, the result is 0 "
            f"(and x is not read) when n <= 0 or incx <= 0. {result_doc(dtype)} {pointer_doc(dtype)} "
            "So x has 1 + (n-1)*|incx| elements."
        ),
    )


def asum_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        rows = ({"n": n, "x": vector_spec(n, incx, dtype), "incx": incx, "result": result_spec(dtype)}
                for n, incx in ASUM[size])
        return iter(samples(rows))

    return sampler


# ---- records ----------------------------------------------------------------------------------

# A float64 sum judged against a float64 truth: the truth's own roundoff is the floor (see level2).
FLOAT64_SUM = replace(FLOAT64_FLOOR, abs_scale=True)


def _precision(prec: str) -> str:
    return "single" if prec == "S" else "double"


def _data(op: Operator) -> Operator:
    """Moving data is the work: host code may not copy, so the copy is a Triton kernel."""
    return replace(op, work="data")


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasSaxpy_v2": partial(
        blas_operator, "cublasSaxpy_v2", "blas1",
        "cuBLAS single-precision axpy: y := alpha * x + y on strided device vectors, in place.",
        OVERLOAD, axpy_sampler("S", AXPY),
    ),
    "cublasDaxpy_v2": partial(
        blas_operator, "cublasDaxpy_v2", "blas1",
        "cuBLAS double-precision axpy: y := alpha * x + y on strided device vectors, in place.",
        axpy_overload("D"), axpy_sampler("D", DAXPY),
    ),
    "cublasDcopy_v2": lambda: _data(blas_operator(
        "cublasDcopy_v2", "blas1",
        "cuBLAS double-precision copy: y := x between strided device vectors.",
        copy_overload("D"), copy_sampler("D"),
        notes="work = data: the copy itself must be a Triton kernel.",
    )),
    "cublasSscal_v2": partial(
        blas_operator, "cublasSscal_v2", "blas1",
        "cuBLAS single-precision scal: x := alpha * x on a strided device vector, in place.",
        scal_overload("S"), scal_sampler("S"),
        notes="incx <= 0 is a quick return (reference BLAS sscal.f; cuBLAS does not document it). alpha == 0 "
              "is drawn on finite x only: reference BLAS multiplies (NaN stays NaN), some libraries store 0.",
    ),
    "cublasSdot_v2": partial(
        blas_operator, "cublasSdot_v2", "blas1",
        "cuBLAS single-precision dot product of strided device vectors, the result left in device memory.",
        dot_overload("S"), dot_sampler("S"), tolerance=SUM_TOLERANCE,
        notes="Summation order is free (libraries use trees): judged with the sum tolerance (error scale "
              "sum |x||y|).",
    ),
    "cublasDasum_v2": partial(
        blas_operator, "cublasDasum_v2", "blas1",
        "cuBLAS double-precision sum of absolute values of a strided device vector, the result left in "
        "device memory.",
        asum_overload("D"), asum_sampler("D"), tolerance=FLOAT64_SUM,
        notes="float64: the tolerance floor is 256 ulps of sum |x|, since the truth is float64 too. "
              "incx <= 0 gives 0 (cuBLAS documents it; reference BLAS dasum.f).",
    ),
}
