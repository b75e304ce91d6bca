"""Twins of cuBLAS routines: the C signature unchanged, the operands' roles or an epilogue changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from .. import registry
from ..cublas.family import vector_view, write_vector
from ..spec import Operator
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


def _of(op_id: str, p: Perturbation) -> tuple[str, Callable[[], Operator]]:
    return f"{op_id}~{p.tag}", lambda: twin(registry.get(op_id), p)


TWINS: dict[str, Callable[[], Operator]] = dict([
    _of("cublas::cublasSaxpy_v2", SAXPY_SWAPPED),
])
