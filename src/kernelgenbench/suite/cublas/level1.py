"""BLAS level 1: cublasSaxpy_v2, y := alpha * x + y over strided vectors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..spec import Operator, Overload, Size
from .family import blas_operator, params, pointer_doc, samples, signature, vector_spec, vector_view, write_vector

# (n, alpha, incx, incy)
AXPY = {
    "small": [(1, 1.0, 1, 1), (7, 1.5, 1, 1), (33, -0.75, -1, 1), (65, 2.0, 2, -3), (5, -2.5, 3, 2),
              (1000, 0.0, 1, 1), (0, 1.5, 1, 1), (4097, 1.0, -2, -1), (129, 0.5, 1, -1)],
    "large": [(1 << 24, 1.5, 1, 1), (1_000_003, -0.5, -3, 2), (3_000_001, 2.0, 1, -1)],
    "perf": [(1 << 26, 1.5, 1, 1), (1 << 28, -0.75, 1, 1), (1 << 24, 2.0, 2, 2)],
}


def saxpy_reference(n: int, alpha: Any, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    """Reference BLAS: nothing happens when n <= 0 or alpha == 0."""
    if n <= 0 or alpha == 0:
        return
    xv = vector_view(x, n, incx)
    yv = vector_view(y, n, incy)
    write_vector(y, n, incy, alpha * xv + yv)


PARAMS = params([("n", "int"), ("alpha", "float"), ("x", "Tensor"), ("incx", "int"),
                 ("y", "Tensor"), ("incy", "int")], writes="y")

OVERLOAD = Overload(
    name="cublasSaxpy_v2",
    func_name="cublasSaxpy_v2",
    params=PARAMS,
    signature=signature("cublasSaxpy_v2", PARAMS),
    reference=saxpy_reference,
    doc=(
        "y[k] := alpha * x[k] + y[k] for the logical elements k = 0..n-1 of the float32 vectors x "
        "(increment incx) and y (increment incy); writes y in place and returns None. n and the "
        "increments are ints, alpha a Python float. Increments are nonzero and may be negative. "
        "When n <= 0 or alpha == 0 the routine returns at once and y is unchanged. "
        f"{pointer_doc(torch.float32)} So x has 1 + (n-1)*|incx| elements and y 1 + (n-1)*|incy|."
    ),
)


def axpy_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    rows = (
        {"n": n, "alpha": alpha, "x": vector_spec(n, incx), "incx": incx,
         "y": vector_spec(n, incy), "incy": incy}
        for n, alpha, incx, incy in AXPY[size]
    )
    return iter(samples(rows))


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasSaxpy_v2": partial(
        blas_operator, "cublasSaxpy_v2", "blas1",
        "cuBLAS single-precision axpy: y := alpha * x + y on strided device vectors, in place.",
        OVERLOAD, axpy_sampler,
    ),
}
