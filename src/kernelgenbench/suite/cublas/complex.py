"""The complex contract of the cuBLAS suite: interleaved real buffers, complex scalars and results.

Triton has no complex type, so a cuComplex / cuDoubleComplex device array stands as its
interleaved real view, a 1-D float32 / float64 tensor of twice the complex length (re, im, re,
im, ...), exactly what `torch.view_as_real(z).flatten()` is. The harness then draws, poisons,
snapshots and compares only real tensors (a complex output's error is its two parts' errors), and
a reference reads and writes the same storage as complex through `as_complex`. BLAS increments
and leading dimensions keep counting complex elements.

Complex arithmetic subtracts (re(a*b) = ar*br - ai*bi), so the reference on |inputs| is no bound
of its terms' magnitudes; an `abs_scale` tolerance takes the overload's `scale` instead, built
from `bound_matmul` (the same products with every term counted positive).
"""

from __future__ import annotations

from typing import Any

import torch

from ..spec import OutputSpec, TensorSpec
from .family import POINTER_DOC
from .library import vector_extent

COMPLEX: dict[str, torch.dtype] = {"C": torch.complex64, "Z": torch.complex128}
REAL: dict[str, torch.dtype] = {"C": torch.float32, "Z": torch.float64}

COMPLEX_DOC = (
    "Complex data: Triton has no complex type, so a complex device array (DTYPE) arrives as its "
    "interleaved real view, a 1-D contiguous REAL tensor of twice as many elements holding re, im, "
    "re, im, ... (torch.view_as_real(z).flatten()). Below, an element is a complex element: buf[p] "
    "is the pair of REAL values at positions 2*p (real part) and 2*p + 1 (imaginary part), the "
    "element counts and buf[...] positions count complex elements, and so do increments and leading "
    "dimensions; logical element k of a vector with increment inc > 0 is at REAL positions 2*k*inc "
    "and 2*k*inc + 1. Complex scalars (alpha, beta) arrive as Python complex. A complex scalar "
    "result is written to a 2-element REAL device tensor: result[0] = real part, result[1] = "
    "imaginary part."
)


def complex_pointer_doc(prec: str) -> str:
    """How REAL tensors stand for complex device pointers, for the prompt."""
    real = str(REAL[prec]).replace("torch.", "")
    cplx = str(COMPLEX[prec]).replace("torch.", "")
    return (COMPLEX_DOC.replace("DTYPE", cplx).replace("REAL", real) + " "
            + POINTER_DOC.replace("DTYPE", f"{real} (interleaved {cplx})"))


def complex_vector_spec(n: int, inc: int, prec: str) -> TensorSpec:
    """A complex vector's interleaved buffer: 2 real values per addressed complex element."""
    return TensorSpec((2 * vector_extent(n, inc),), REAL[prec])


def complex_matrix_spec(cols: int, ld: int, prec: str) -> TensorSpec:
    """A column-major complex matrix's interleaved buffer of ld * cols complex elements."""
    return TensorSpec((2 * ld * max(cols, 0),), REAL[prec])


def result_spec(dtype: torch.dtype, is_complex: bool = False) -> OutputSpec:
    """A scalar result in device memory (device pointer mode): 1 element, (re, im) when complex;
    it arrives all-NaN, since the routine writes it without reading it."""
    return OutputSpec((2 if is_complex else 1,), dtype)


def as_complex(buf: torch.Tensor) -> torch.Tensor:
    """The complex view of an interleaved real buffer, sharing its storage (writes go through)."""
    if buf.dim() != 1 or buf.numel() % 2 or not buf.is_contiguous():
        raise ValueError(f"an interleaved complex buffer is 1-D, contiguous and even-sized; got {list(buf.shape)}")
    return torch.view_as_complex(buf.view(-1, 2))


def write_scalar(result: torch.Tensor, value: Any) -> None:
    """Store a scalar result: result[0] = value, or (re, im) for a 2-element complex result."""
    value = torch.as_tensor(value)
    if result.numel() == 2:
        result.copy_(torch.view_as_real(value.to(torch.complex128)).to(result.dtype))
    else:
        result.copy_(value.to(result.dtype).reshape(1))


def bound_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b with every real product counted positive: (ar br + ai bi) + i (ar bi + ai br) per term.

    On |inputs| (componentwise, as the error scale is computed) this bounds the magnitudes the
    complex product sums in each part, as |A| |B| does for a real one; conjugation changes signs
    only, so it bounds a @ b, conj(a) @ b and their transposes alike."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    return torch.complex(ar @ br + ai @ bi, ar @ bi + ai @ br)
