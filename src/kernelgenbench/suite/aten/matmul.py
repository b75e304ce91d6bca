"""Matrix products: mm and bmm (including the CUDA-only `out_dtype` overloads), matmul, linear."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import cycle
from typing import Any

import torch

from ..build import FLOATS, MATMUL_TOLERANCE
from ..spec import Layout, Operator, Overload, Sample, Size, TensorSpec
from .family import aten_operator, samples_of

MNK = {
    "small": [(1, 1, 1), (7, 13, 5), (33, 65, 17), (64, 64, 64), (5, 0, 3), (0, 4, 6), (19, 130, 37)],
    "large": [(1024, 4096, 1024), (2049, 1023, 511), (127, 8191, 255)],
    "perf": [(4096, 4096, 4096), (8192, 4096, 14336), (16, 8192, 8192)],
}
LAYOUT_PAIRS = [("contiguous", "contiguous"), ("transposed", "contiguous"),
                ("contiguous", "transposed"), ("strided", "transposed")]


def mm_sampler(ov: Overload, size: Size):
    low_only = ov.name.startswith("mm.dtype")
    dtypes = (torch.float16, torch.bfloat16) if low_only else FLOATS

    def grid():
        i = 0
        for m, k, n in MNK[size]:
            for dtype in dtypes:
                la, lb = ("contiguous", "contiguous") if size == "perf" else LAYOUT_PAIRS[i % len(LAYOUT_PAIRS)]
                i += 1
                yield {
                    "self": TensorSpec((m, k), dtype, la),
                    "mat2": TensorSpec((k, n), dtype, lb),
                    "out_dtype": torch.float32,
                }

    return samples_of(ov, grid())


def _mm_dtype_reference(self, mat2, out_dtype):
    return torch.mm(self.to(out_dtype), mat2.to(out_dtype))


def _mm_dtype_out_reference(self, mat2, out_dtype, *, out):
    result = torch.mm(self.to(out_dtype), mat2.to(out_dtype))
    return out.resize_(result.shape).copy_(result)


# ---- bmm, matmul, linear: one shared sampler over (operand shapes) tables -------------------

# Operand layouts taken in turn: per-matrix transposes, a strided last dim, and "expanded"
# (a stride-0 leading dim: a batch broadcast by `expand`, or a matrix of repeated rows).
PRODUCT_LAYOUTS: list[tuple[Layout, Layout]] = [
    ("contiguous", "contiguous"), ("transposed", "contiguous"), ("contiguous", "transposed"),
    ("strided", "transposed"), ("expanded", "strided"), ("transposed", "expanded"),
]
LOW_FLOATS = (torch.float16, torch.bfloat16)

Shapes = tuple[Any, ...]
Make = Callable[[Shapes, torch.dtype, Layout, Layout], dict[str, Any]]


def _fit(shape: tuple[int, ...], layout: Layout) -> Layout:
    """The layout a shape can take: transposes and stride-0 expands need two non-empty dims."""
    if len(shape) < 2 or 0 in shape:
        return "contiguous" if layout in ("transposed", "expanded") else layout
    return layout


def product_sampler(table: dict[str, list[Shapes]], make: Make) -> Callable[[Overload, Size], Iterable[Sample]]:
    """A sampler drawing `make(shapes, dtype, layout_a, layout_b)` for every row of table[size].

    The main functional overload takes every float dtype per row; `out=` and `out_dtype` overloads
    take the dtypes in turn (one per row), which keeps the interpreter grid small; `out_dtype`
    overloads draw float16/bfloat16 into a float32 result. Perf rows go to the main functional
    overload only, contiguous.
    """

    def sampler(ov: Overload, size: Size) -> Iterable[Sample]:
        main = "." not in ov.name
        out_dtype = ".dtype" in ov.name
        if size == "perf" and not main:
            return ()
        dtypes = LOW_FLOATS if out_dtype else FLOATS
        lays = cycle(PRODUCT_LAYOUTS)
        turn = cycle(dtypes)

        def grid() -> Iterator[dict[str, Any]]:
            for row in table[size]:
                if size == "perf":
                    la, lb = "contiguous", "contiguous"
                    dts: Iterable[torch.dtype] = row[-1]
                    row = row[:-1]
                else:
                    dts = dtypes if main else (next(turn),)
                for dtype in dts:
                    if size != "perf":
                        la, lb = next(lays)
                    values = make(row, dtype, la, lb)
                    if out_dtype:
                        values["out_dtype"] = torch.float32
                    yield values

        return samples_of(ov, grid())

    return sampler


BF16, FP16, FP32 = torch.bfloat16, torch.float16, torch.float32

# (batch, m, k, n); perf rows end with their dtypes (attention-like: Q K^T and P V per head).
BMM = {
    "small": [(1, 1, 1, 1), (3, 7, 13, 5), (2, 33, 17, 65), (4, 19, 37, 23), (0, 4, 5, 6),
              (2, 0, 3, 4), (2, 5, 0, 3), (2, 64, 64, 64)],
    "large": [(8, 1024, 512, 1024), (3, 1025, 767, 513), (64, 127, 2049, 129)],
    "perf": [(32, 4096, 128, 4096, (BF16, FP16, FP32)), (32, 4096, 4096, 128, (BF16, FP16))],
}


def _bmm_make(row: Shapes, dtype: torch.dtype, la: Layout, lb: Layout) -> dict[str, Any]:
    b, m, k, n = row
    return {"self": TensorSpec((b, m, k), dtype, _fit((b, m, k), la)),
            "mat2": TensorSpec((b, k, n), dtype, _fit((b, k, n), lb))}


# (self shape, other shape): every rank pairing matmul accepts, with broadcast batch dims.
MATMUL = {
    "small": [((5,), (5,)), ((0,), (0,)), ((7,), (7, 3)), ((4, 7), (7,)), ((33, 65), (65, 17)),
              ((3, 4, 7), (7,)), ((3, 4, 7), (7, 5)), ((7,), (3, 7, 5)), ((6, 7), (3, 7, 5)),
              ((2, 1, 4, 7), (3, 7, 5)), ((2, 3, 4, 7), (2, 3, 7, 5)), ((3, 0, 7), (7, 5)),
              ((2, 3, 5), (1, 5, 0)), ((2, 1, 3, 4, 7), (3, 3, 7, 5))],
    "large": [((8, 512, 1024), (1024, 768)), ((2, 1, 256, 513), (3, 513, 384)),
              ((1000, 2049), (2049,)), ((4097,), (4097, 700))],
    "perf": [((4, 2048, 4096), (4096, 4096), (BF16, FP16, FP32)),
             ((32, 2048, 128), (32, 128, 2048), (BF16,))],
}


def _matmul_make(row: Shapes, dtype: torch.dtype, la: Layout, lb: Layout) -> dict[str, Any]:
    a, b = row
    return {"self": TensorSpec(a, dtype, _fit(a, la)), "other": TensorSpec(b, dtype, _fit(b, lb))}


# (input shape, out_features, with bias); weight is (out_features, in_features).
LINEAR = {
    "small": [((7,), 5, False), ((7,), 5, True), ((4, 7), 5, True), ((33, 65), 17, False),
              ((33, 65), 17, True), ((2, 3, 7), 5, True), ((2, 3, 7), 5, False), ((3, 0), 4, True),
              ((0, 7), 5, True), ((4, 7), 0, True), ((1, 1), 1, True)],
    "large": [((4096, 1024), 1536, True), ((3, 700, 2049), 513, True), ((2049,), 4095, False)],
    "perf": [((4096, 4096), 14336, True, (BF16, FP16)), ((4096, 4096), 4096, True, (FP32,)),
             ((4, 1024, 4096), 4096, False, (BF16,))],
}


def _linear_make(row: Shapes, dtype: torch.dtype, la: Layout, lb: Layout) -> dict[str, Any]:
    shape, n, bias = row
    weight = (n, shape[-1])
    return {"input": TensorSpec(shape, dtype, _fit(shape, la)),
            "weight": TensorSpec(weight, dtype, _fit(weight, lb)),
            "bias": TensorSpec((n,), dtype) if bias else None}


def _bmm_dtype_reference(self, mat2, out_dtype):
    return torch.bmm(self.to(out_dtype), mat2.to(out_dtype))


def _bmm_dtype_out_reference(self, mat2, out_dtype, *, out):
    result = torch.bmm(self.to(out_dtype), mat2.to(out_dtype))
    return out.resize_(result.shape).copy_(result)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "mm": partial(
        aten_operator,
        "mm", "matmul",
        "Matrix product of a (m, k) and a (k, n) matrix. float32 must be computed in full float32 "
        "(no TF32): PyTorch's default matmul is not TF32.",
        mm_sampler,
        tolerance=MATMUL_TOLERANCE,
        reference={"mm.dtype": _mm_dtype_reference, "mm.dtype_out": _mm_dtype_out_reference},
        notes="mm.dtype and mm.dtype_out have native kernels on CUDA only.",
    ),
    "bmm": partial(
        aten_operator,
        "bmm", "matmul",
        "Batched matrix product of a (b, m, k) and a (b, k, n) tensor: one mm per batch entry. "
        "Operands may be transposed per matrix, strided, or expanded along the batch (stride 0). "
        "float32 must be computed in full float32 (no TF32).",
        product_sampler(BMM, _bmm_make),
        tolerance=MATMUL_TOLERANCE,
        reference={"bmm.dtype": _bmm_dtype_reference, "bmm.dtype_out": _bmm_dtype_out_reference},
        notes="bmm.dtype and bmm.dtype_out have native kernels on CUDA only (float16/bfloat16 "
              "operands, float32 result); their reference is bmm on float32 copies.",
    ),
    "matmul": partial(
        aten_operator,
        "matmul", "matmul",
        "torch.matmul: dot product for two vectors (a 0-d result), matrix-vector and vector-matrix "
        "products, mm for two matrices, and batched products whose batch dimensions broadcast "
        "(a 1-d operand gets a dimension prepended or appended, then removed from the result). "
        "float32 must be computed in full float32 (no TF32).",
        product_sampler(MATMUL, _matmul_make),
        tolerance=MATMUL_TOLERANCE,
    ),
    "linear": partial(
        aten_operator,
        "linear", "matmul",
        "y = input @ weight^T + bias, with weight of shape (out_features, in_features), input of "
        "any rank >= 1 whose last dimension is in_features, and an optional bias of shape "
        "(out_features,). float32 must be computed in full float32 (no TF32).",
        product_sampler(LINEAR, _linear_make),
        tolerance=MATMUL_TOLERANCE,
    ),
}
