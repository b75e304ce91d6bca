"""BLAS level 2: gemv, y := alpha * op(A) @ x + beta * y with a column-major A.

One builder serves both real precisions. The suite publishes cublasDgemv_v2 (float64) but not
cublasSgemv_v2, so only the D record is registered; `gemv_operator("S")` builds the float32 twin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..spec import Operator, Overload, Size, Tolerance
from .family import (
    ENUM_DOC,
    OP_N,
    PRECISIONS,
    blas_operator,
    matrix_spec,
    op_code,
    op_matrix,
    params,
    pointer_doc,
    poisoned,
    samples,
    signature,
    vector_spec,
    vector_view,
    write_vector,
)

# (trans, m, n, lda - m, incx, incy, alpha, beta, y arrives all-NaN)
GEMV: dict[str, list[tuple[Any, int, int, int, int, int, float, float, bool]]] = {
    "small": [
        (0, 1, 1, 0, 1, 1, 1.0, 0.0, False),
        (0, 7, 13, 2, 2, 1, 1.5, -0.5, False),
        (1, 33, 65, 0, -1, 3, -0.75, 1.0, False),
        (2, 65, 33, 3, 1, -2, 2.0, 0.0, True),
        ("N", 40, 50, 1, -3, -1, 0.5, 2.0, False),
        ("T", 17, 100, 0, 1, 1, 1.0, 0.0, True),
        (0, 100, 3, 5, 1, 1, 1.25, 0.5, False),
        (1, 3, 100, 0, 2, 2, -1.0, -1.0, False),
        (0, 64, 64, 0, 1, 1, 0.0, -1.5, False),
        (1, 50, 20, 0, 1, 1, 0.0, 0.0, True),
        ("C", 128, 64, 0, 1, -1, 1.0, 0.25, False),
        (0, 24, 200, 0, -1, 1, 1.0, 1.0, False),
        (0, 0, 5, 0, 1, 1, 1.0, 0.5, False),
        (1, 0, 5, 0, 1, 1, 1.0, 0.5, False),
        (0, 5, 0, 0, 1, -1, -1.0, 2.0, False),
    ],
    "large": [
        (0, 8192, 8192, 0, 1, 1, 1.0, 0.0, False),
        (1, 8192, 8192, 0, 1, 1, 1.5, -0.5, False),
        (0, 4099, 1021, 1, -2, 3, -0.75, 1.0, False),
        ("T", 1021, 4099, 5, 1, -1, 2.0, 0.0, True),
        (0, 8, 100_000, 0, 1, 1, 1.0, 0.5, False),
        (1, 100_000, 8, 0, 1, 1, 1.0, 0.5, False),
    ],
    "perf": [
        (0, 16384, 16384, 0, 1, 1, 1.0, 0.0, False),
        (1, 16384, 16384, 0, 1, 1, 1.0, 0.0, False),
        (1, 4096, 14336, 0, 1, 1, 1.0, 1.0, False),
    ],
}


def gemv_reference(trans: Any, m: int, n: int, alpha: Any, A: torch.Tensor, lda: int, x: torch.Tensor,
                   incx: int, beta: Any, y: torch.Tensor, incy: int) -> None:
    """Reference BLAS: quick return on an empty A or (alpha == 0 and beta == 1); y unread when beta == 0."""
    op = op_code(trans)
    if lda < max(1, m):
        raise ValueError(f"lda={lda} < max(1, m={m})")
    if m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return
    xlen, ylen = (n, m) if op == OP_N else (m, n)
    if alpha == 0:
        prod = torch.zeros(ylen, dtype=y.dtype, device=y.device)
    else:
        prod = alpha * (op_matrix(A, op, ylen, xlen, lda) @ vector_view(x, xlen, incx))
    out = prod if beta == 0 else prod + beta * vector_view(y, ylen, incy)
    write_vector(y, ylen, incy, out)


PARAMS = params([("trans", "int | str"), ("m", "int"), ("n", "int"), ("alpha", "float"), ("A", "Tensor"),
                 ("lda", "int"), ("x", "Tensor"), ("incx", "int"), ("beta", "float"), ("y", "Tensor"),
                 ("incy", "int")], writes="y")


def gemv_overload(prec: str) -> Overload:
    name = f"cublas{prec}gemv_v2"
    dt = str(PRECISIONS[prec]).replace("torch.", "")
    return Overload(
        name=name,
        func_name=name,
        params=PARAMS,
        signature=signature(name, PARAMS),
        reference=gemv_reference,
        doc=(
            f"y := alpha * op(A) @ x + beta * y, where A is an m x n column-major {dt} matrix with "
            "leading dimension lda >= max(1, m), op(A) = A when trans is N and A^T when trans is T or C. "
            "For N, x has n logical elements and y has m; for T/C, x has m and y has n. Writes y in place "
            "and returns None. alpha and beta are Python floats; incx and incy are nonzero and may be "
            "negative. When beta == 0, y is not read (it may hold NaN) and is set to alpha * op(A) @ x. "
            "When m == 0 or n == 0, or alpha == 0 and beta == 1, the routine returns at once and y is "
            f"unchanged. {ENUM_DOC} {pointer_doc(PRECISIONS[prec])} So A has lda*n elements."
        ),
    )


def gemv_sampler(prec: str):
    dtype = PRECISIONS[prec]

    def sampler(ov: Overload, size: Size) -> Iterator[Any]:
        def row(trans: Any, m: int, n: int, pad: int, incx: int, incy: int, alpha: float, beta: float,
                poison: bool) -> dict[str, Any]:
            xlen, ylen = (n, m) if op_code(trans) == OP_N else (m, n)
            lda = max(1, m) + pad
            y = vector_spec(ylen, incy, dtype)
            return {"trans": trans, "m": m, "n": n, "alpha": alpha, "A": matrix_spec(m, n, lda, dtype),
                    "lda": lda, "x": vector_spec(xlen, incx, dtype), "incx": incx, "beta": beta,
                    "y": poisoned(y) if poison else y, "incy": incy}

        return iter(samples(row(*r) for r in GEMV[size]))

    return sampler


# A float64 routine has no truth more precise than the float64 reference, and its native result can
# equal that reference (on the CPU it is the reference; on CUDA torch's float64 mv is cuBLAS's own
# dgemv), leaving only the floor. A tiled Triton dgemv measured 20 ulps of the output's scale at
# 16384 x 16384 and a plain sequential sum is estimated near 100, so the floor is 256 ulps; an
# fp32 downgrade (about 5e8 ulps) still fails.
FLOAT64_FLOOR = Tolerance(floor_ulps=256.0)


def gemv_operator(prec: str) -> Operator:
    dt = "single" if prec == "S" else "double"
    return blas_operator(
        f"cublas{prec}gemv_v2", "blas2",
        f"cuBLAS {dt}-precision matrix-vector product: y := alpha * op(A) @ x + beta * y, "
        "A column-major with a leading dimension, strided x and y, y written in place.",
        gemv_overload(prec), gemv_sampler(prec),
        tolerance=FLOAT64_FLOOR if prec == "D" else Tolerance(),
        notes="" if prec == "S" else "float64: the tolerance floor is 256 ulps, since the truth is float64 too.",
    )


OPERATORS: dict[str, Callable[[], Operator]] = {"cublasDgemv_v2": partial(gemv_operator, "D")}
