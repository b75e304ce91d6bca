"""Matrix products: mm (including the CUDA-only `out_dtype` overloads)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from ..build import FLOATS, MATMUL_TOLERANCE
from ..spec import Operator, Overload, Size, TensorSpec
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
}
