"""What every cuBLAS record shares: BLAS enums, column-major buffers, and the record builder.

A device pointer is stood for by a 1-D contiguous tensor holding exactly the storage the routine
may touch, so BLAS addressing (`A[i + j*lda]`, `x[k*incx]`) is spelled out in the prompt and a
reference, a library call and a candidate all index the same flat buffer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch

from ..build import Sampler, build_cases, sample
from ..spec import Operator, OutputSpec, Overload, Param, Sample, TensorSpec, Tolerance
from . import library
from .library import OP_N, matrix_extent, op_code, vector_extent

ENUM_DOC = (
    "Transpose flags are cublasOperation_t values given either as an int (0 = CUBLAS_OP_N, "
    "1 = CUBLAS_OP_T, 2 = CUBLAS_OP_C) or as a one-letter str ('N', 'T', 'C'); both forms are "
    "used. For real data 'C' (conjugate transpose) means the same as 'T'."
)
PRECISIONS: dict[str, torch.dtype] = {"S": torch.float32, "D": torch.float64}

POINTER_DOC = (
    "Every device pointer is a 1-D contiguous DTYPE tensor on the device holding exactly the "
    "storage the routine may touch, starting at the pointer. Matrices are column-major: element "
    "(i, j) of a matrix with leading dimension ld is buf[i + j*ld] (0-based), and the buffer has "
    "ld*cols elements. A vector of n elements with increment inc has 1 + (n-1)*|inc| elements "
    "(0 when n == 0); element k (0-based) is buf[k*inc] when inc > 0 and buf[(n-1-k)*|inc|] when "
    "inc < 0 (the reference-BLAS rule: a negative increment walks the storage backwards). "
    "Elements of an output buffer that the routine does not address must be left unchanged."
)


def pointer_doc(dtype: torch.dtype) -> str:
    """How tensors stand for device pointers, for the prompt."""
    return POINTER_DOC.replace("DTYPE", str(dtype).replace("torch.", ""))


def is_transposed(trans: Any) -> bool:
    return op_code(trans) != OP_N


def matrix_len(rows: int, cols: int, ld: int) -> int:
    """Storage of a column-major matrix buffer as this suite allocates it: ld * cols."""
    return ld * max(cols, 0)


def _need(buf: torch.Tensor, elements: int, what: str) -> None:
    if buf.dim() != 1 or buf.numel() < elements:
        raise ValueError(f"{what}: expected a 1-D buffer of at least {elements} elements, got {list(buf.shape)}")


def vector_view(buf: torch.Tensor, n: int, inc: int) -> torch.Tensor:
    """The n logical elements of a BLAS vector; a copy in logical order when inc < 0."""
    if inc == 0:
        raise ValueError("increment must be nonzero")
    _need(buf, vector_extent(n, inc), "vector")
    view = buf.as_strided((n,), (abs(inc),))
    return view.flip(0) if inc < 0 else view


def write_vector(buf: torch.Tensor, n: int, inc: int, values: torch.Tensor) -> None:
    """Store logical elements into the addressed positions only."""
    if inc == 0:
        raise ValueError("increment must be nonzero")
    _need(buf, vector_extent(n, inc), "vector")
    view = buf.as_strided((n,), (abs(inc),))
    view.copy_(values.flip(0) if inc < 0 else values)


def matrix_layout(rows: int, cols: int, ld: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Shape and strides of a (rows, cols) column-major matrix in its buffer."""
    if ld < max(1, rows):
        raise ValueError(f"leading dimension {ld} < max(1, {rows})")
    return (rows, cols), (1, ld)


def op_layout(trans: Any, rows: int, cols: int, ld: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """op(M)'s (rows, cols) shape and strides, where M is stored (rows, cols) or, transposed, (cols, rows)."""
    if is_transposed(trans):
        _, (down, across) = matrix_layout(cols, rows, ld)
        return (rows, cols), (across, down)
    return matrix_layout(rows, cols, ld)


def matrix_view(buf: torch.Tensor, rows: int, cols: int, ld: int) -> torch.Tensor:
    """A (rows, cols) view of a column-major buffer; writing it touches only rows < `rows`."""
    layout = matrix_layout(rows, cols, ld)
    _need(buf, matrix_extent(rows, cols, ld), "matrix")
    return buf.as_strided(*layout)


def op_matrix(buf: torch.Tensor, trans: Any, rows: int, cols: int, ld: int) -> torch.Tensor:
    """op(M) as a (rows, cols) view, where M is stored (rows, cols) or, transposed, (cols, rows)."""
    layout = op_layout(trans, rows, cols, ld)
    _need(buf, matrix_extent(*((cols, rows) if is_transposed(trans) else (rows, cols)), ld), "matrix")
    return buf.as_strided(*layout)


def vector_spec(n: int, inc: int, dtype: torch.dtype = torch.float32) -> TensorSpec:
    return TensorSpec((vector_extent(n, inc),), dtype)


def matrix_spec(rows: int, cols: int, ld: int, dtype: torch.dtype = torch.float32) -> TensorSpec:
    return TensorSpec((matrix_len(rows, cols, ld),), dtype)


def poisoned(spec: TensorSpec) -> OutputSpec:
    """The same buffer arriving all-NaN: for beta == 0, where BLAS must not read it."""
    return OutputSpec(spec.shape, spec.dtype)


def params(names: Iterable[tuple[str, str]], writes: str) -> tuple[Param, ...]:
    return tuple(Param(name=n, type=t, writes=(n == writes)) for n, t in names)


def signature(func_name: str, ps: tuple[Param, ...]) -> str:
    args = ", ".join(f"{p.name}: {p.type}{' (written)' if p.writes else ''}" for p in ps)
    return f"{func_name}({args}) -> None"


def samples(rows: Iterable[Mapping[str, Any]]) -> list[Sample]:
    return [sample(r) for r in rows]


def blas_operator(name: str, family: str, doc: str, overload: Overload, sampler: Sampler, *,
                  tolerance: Tolerance = Tolerance(), notes: str = "") -> Operator:
    return Operator(
        id=f"cublas::{name}",
        source="cublas",
        family=family,
        doc=doc,
        overloads=(overload,),
        cases=build_cases((overload,), sampler),
        tolerance=tolerance,
        baseline=library.baseline,
        notes=notes,
    )
