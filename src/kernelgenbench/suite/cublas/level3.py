"""BLAS level 3: cublasSgemm_v2, C := alpha * op(A) @ op(B) + beta * C, all column-major."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import MATMUL_TOLERANCE
from ..spec import Operator, Overload, Size
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
)

# (transa, transb, m, n, k, lda pad, ldb pad, ldc pad, alpha, beta, C arrives all-NaN)
GEMM: dict[str, list[tuple[Any, Any, int, int, int, int, int, int, float, float, bool]]] = {
    "small": [
        (0, 0, 1, 1, 1, 0, 0, 0, 1.0, 0.0, False),
        (0, 0, 7, 13, 5, 0, 0, 0, 1.5, -0.5, False),
        (1, 0, 33, 17, 65, 3, 0, 0, -1.25, 1.0, False),
        (0, 1, 65, 33, 7, 0, 1, 2, 0.5, 0.0, True),
        (1, 1, 19, 70, 37, 1, 2, 3, 2.0, 0.75, False),
        ("C", "N", 20, 9, 31, 0, 0, 0, 1.0, 1.0, False),
        ("T", "T", 64, 64, 64, 0, 0, 0, 1.0, 0.0, True),
        ("N", "C", 16, 48, 40, 2, 0, 1, -0.5, 2.0, False),
        (2, 2, 5, 3, 130, 0, 0, 0, 1.0, -1.0, False),
        (0, 0, 9, 11, 0, 0, 0, 1, 1.0, 0.5, False),
        (1, 0, 8, 6, 0, 0, 0, 0, 1.0, 0.0, True),
        (0, 0, 12, 10, 20, 0, 0, 0, 0.0, -1.0, False),
        (0, 1, 0, 5, 4, 0, 0, 0, 1.0, 0.5, False),
        (1, 0, 6, 0, 4, 0, 0, 0, 1.0, 0.5, False),
    ],
    "large": [
        (0, 0, 1024, 1024, 4096, 0, 0, 0, 1.0, 0.0, False),
        (1, 0, 2049, 511, 1023, 1, 0, 3, 1.5, -0.5, False),
        (0, 1, 127, 255, 8191, 0, 5, 0, -1.0, 1.0, False),
        ("T", "T", 1000, 1500, 700, 0, 0, 0, 0.5, 0.0, True),
        (0, 0, 4096, 1, 4096, 0, 0, 0, 1.0, 0.25, False),
    ],
    "perf": [
        (0, 0, 4096, 4096, 4096, 0, 0, 0, 1.0, 0.0, False),
        (1, 0, 14336, 2048, 4096, 0, 0, 0, 1.0, 0.0, False),
        (0, 1, 8192, 8192, 2048, 0, 0, 0, 1.0, 0.0, False),
    ],
}


def _stored(trans: Any, rows: int, cols: int) -> tuple[int, int]:
    """Stored shape of a matrix whose op() is (rows, cols)."""
    return (rows, cols) if op_code(trans) == OP_N else (cols, rows)


def sgemm_reference(transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any, A: torch.Tensor, lda: int,
                    B: torch.Tensor, ldb: int, beta: Any, C: torch.Tensor, ldc: int) -> None:
    """Reference BLAS: quick return when C is empty or ((alpha == 0 or k == 0) and beta == 1);
    C is not read when beta == 0; A and B are not read when alpha == 0 or k == 0."""
    for name, ld, rows in (("lda", lda, _stored(transa, m, k)[0]), ("ldb", ldb, _stored(transb, k, n)[0]),
                           ("ldc", ldc, m)):
        if ld < max(1, rows):
            raise ValueError(f"{name}={ld} < max(1, {rows})")
    if m <= 0 or n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return
    c = matrix_view(C, m, n, ldc)
    if alpha == 0 or k <= 0:
        prod = torch.zeros((m, n), dtype=C.dtype, device=C.device)
    else:
        prod = alpha * (op_matrix(A, transa, m, k, lda) @ op_matrix(B, transb, k, n, ldb))
    c.copy_(prod if beta == 0 else prod + beta * c)


PARAMS = params([("transa", "int | str"), ("transb", "int | str"), ("m", "int"), ("n", "int"), ("k", "int"),
                 ("alpha", "float"), ("A", "Tensor"), ("lda", "int"), ("B", "Tensor"), ("ldb", "int"),
                 ("beta", "float"), ("C", "Tensor"), ("ldc", "int")], writes="C")

OVERLOAD = Overload(
    name="cublasSgemm_v2",
    func_name="cublasSgemm_v2",
    params=PARAMS,
    signature=signature("cublasSgemm_v2", PARAMS),
    reference=sgemm_reference,
    doc=(
        "C := alpha * op(A) @ op(B) + beta * C with op(A) m x k, op(B) k x n and C m x n, all "
        "column-major float32. A is stored m x k (lda >= max(1, m)) when transa is N and k x m "
        "(lda >= max(1, k)) when transa is T or C; B is stored k x n (ldb >= max(1, k)) when transb "
        "is N and n x k (ldb >= max(1, n)) when transb is T or C; ldc >= max(1, m). Writes C in place "
        "and returns None; rows m..ldc-1 of each column of C are padding and must stay unchanged. "
        "alpha and beta are Python floats. Compute in full float32 precision (no TF32 or lower-precision "
        "products). When beta == 0, C is not read (it may hold NaN) and is set to alpha * op(A) @ op(B). "
        "When k == 0 or alpha == 0, C := beta * C (C := 0 when beta == 0) and A and B are not read. When "
        "m == 0 or n == 0 the routine returns at once. "
        f"{ENUM_DOC} {pointer_doc(torch.float32)} So A has lda*k (N) or lda*m (T/C) elements, B has ldb*n (N) or "
        "ldb*k (T/C), and C has ldc*n."
    ),
)


def gemm_sampler(ov: Overload, size: Size) -> Iterator[Any]:
    def row(ta: Any, tb: Any, m: int, n: int, k: int, pa: int, pb: int, pc: int, alpha: float, beta: float,
            poison: bool) -> dict[str, Any]:
        a_rows, a_cols = _stored(ta, m, k)
        b_rows, b_cols = _stored(tb, k, n)
        lda, ldb, ldc = max(1, a_rows) + pa, max(1, b_rows) + pb, max(1, m) + pc
        c = matrix_spec(m, n, ldc)
        return {"transa": ta, "transb": tb, "m": m, "n": n, "k": k, "alpha": alpha,
                "A": matrix_spec(a_rows, a_cols, lda), "lda": lda, "B": matrix_spec(b_rows, b_cols, ldb),
                "ldb": ldb, "beta": beta, "C": poisoned(c) if poison else c, "ldc": ldc}

    return iter(samples(row(*r) for r in GEMM[size]))


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cublasSgemm_v2": partial(
        blas_operator, "cublasSgemm_v2", "blas3",
        "cuBLAS single-precision general matrix product: C := alpha * op(A) @ op(B) + beta * C, "
        "column-major with leading dimensions and transpose flags, C written in place, full fp32.",
        OVERLOAD, gemm_sampler, tolerance=MATMUL_TOLERANCE,
    ),
}
