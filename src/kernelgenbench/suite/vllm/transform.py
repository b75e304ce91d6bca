"""vLLM 0.13 transforms: `hadacore_transform`.

- hadacore_transform (csrc/quantization/hadamard/hadacore/hadamard_transform_cuda.cu, schema
  `hadacore_transform(Tensor! x, bool inplace) -> Tensor` in csrc/torch_bindings.cpp, wrapper in
  vllm/_custom_ops.py, test tests/kernels/quantization/test_hadacore.py): the orthonormal
  Walsh-Hadamard transform of every row along the last dim, y = x @ H / sqrt(n), with H the
  Sylvester (natural-order) Hadamard matrix H_2n = [[H_n, H_n], [H_n, -H_n]] (vLLM's test compares
  with compressed_tensors' deterministic_hadamard_matrix, a Sylvester matrix, divided by sqrt(n);
  the kernel folds the scaling into its 16x16 tensor-core fragments). n is a power of two up to
  2^15, x float16/bfloat16 of any rank. vLLM computes it in stages of 16-point transforms, rounded
  to the dtype between stages; the truth here is the float64 transform. With inplace the result is
  written into x (and returned); without, x is left as it is and a new tensor is returned.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import torch

from ..build import sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec
from .family import compute_dtype, vllm_operator

f16, bf16 = torch.float16, torch.bfloat16

MAX_HADAMARD = 1 << 15


def sylvester(n: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The n x n Sylvester Hadamard matrix: H[i, j] = (-1)^popcount(i & j)."""
    idx = torch.arange(n)
    bits = idx[:, None] & idx[None, :]
    parity = torch.zeros_like(bits)
    while bool(bits.any()):
        parity ^= bits & 1
        bits = bits >> 1
    return (1 - 2 * parity).to(dtype)


def hadacore_transform_reference(x: torch.Tensor, inplace: bool = True) -> torch.Tensor:
    n = x.shape[-1]
    y = x.to(compute_dtype(x.dtype)).reshape(-1, n)
    h = 1
    while h < n:  # the fast transform, one butterfly of stride h per stage (natural order)
        pairs = y.reshape(-1, n // (2 * h), 2, h)
        a, b = pairs[:, :, 0], pairs[:, :, 1]
        y = torch.stack((a + b, a - b), dim=2).reshape(-1, n)
        h *= 2
    out = (y / math.sqrt(n)).reshape(x.shape).to(x.dtype)
    if inplace:
        x.copy_(out)
        return x
    return out


# x shapes (rows..., n): n from 2 to 2^15, row counts whose numel is and is not a multiple of 256
# (vLLM pads those to whole 256-element chunks), 3-D activations
HADAMARD_SHAPES: dict[str, list[tuple[int, ...]]] = {
    "small": [(3, 2), (5, 4), (7, 8), (16, 16), (3, 32), (2, 3, 64), (5, 128), (4, 256), (3, 512),
              (2, 1024), (1, 2048), (2, 4096), (1, 8192), (1, 32768)],
    "large": [(4096, 128), (1000, 4096), (257, 8192), (64, 16384), (33, 32768)],
    # QuaRot/SpinQuant online rotations: per-head (head_dim 128) and full hidden sizes (Llama-3-8B
    # 4096, Llama-3-70B 8192, 16384)
    "perf": [(8192 * 32, 128), (8192, 4096), (8192, 8192), (4096, 16384)],
}


def hadacore_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    i = 0
    for shape in HADAMARD_SHAPES[size]:
        dtypes = (bf16, f16) if size == "small" else ((bf16, f16)[i % 2],) if size == "large" else (bf16,)
        for dtype in dtypes:
            rows = math.prod(shape[:-1])
            whole = rows * shape[-1] % 256 == 0
            # in place only on packed inputs of whole chunks (see notes); copies take every layout
            inplace = size == "perf" or (whole and i % 2 == 0)
            layout = "contiguous"
            if not inplace and size == "small" and rows > 1:
                layout = ("contiguous", "transposed", "strided")[i % 3]
            yield sample({"x": TensorSpec(shape, dtype, layout=layout), "inplace": inplace})
            i += 1


def hadacore_transform() -> Operator:
    return vllm_operator(
        "hadacore_transform", "transform",
        "Orthonormal fast Walsh-Hadamard transform (Sylvester order, 1/sqrt(n)) of every row along the "
        "last dim, as QuaRot/SpinQuant-style rotations apply it; in place or into a new tensor.",
        params=(Param("x", "Tensor!", writes=True), Param("inplace", "bool")),
        signature="hadacore_transform(x: torch.Tensor, inplace: bool = True) -> torch.Tensor",
        reference=hadacore_transform_reference,
        sampler=hadacore_sampler,
        ov_doc=("x [..., n] float16/bfloat16, n a power of two in [2, 32768]. Returns y with y[r] = x[r] @ H / "
                "sqrt(n) for every row r over the last dim, H the n x n Sylvester Hadamard matrix "
                "(H[i, j] = (-1)^popcount(i & j)), shape and dtype of x. inplace=True: y is written into x "
                "and x is returned (x is then contiguous with numel a multiple of 256); inplace=False: x "
                "is left unchanged and y is a new contiguous tensor."),
        notes="csrc/quantization/hadamard/hadacore/hadamard_transform_cuda.cu. Not drawn: float32 and sizes "
              "that are not powers of two or above 2^15 (vLLM raises); n = 1 (vLLM launches no kernel and "
              "returns uninitialised memory without inplace); empty x (vLLM launches an empty grid, which "
              "CUDA rejects); inplace=True on non-contiguous x or with numel not a multiple of 256 (vLLM "
              "then transforms a padded or packed copy and leaves x as it was); row-strided x whose last "
              "dim is packed (vLLM's kernel reads it as if the rows were adjacent).",
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "hadacore_transform": hadacore_transform,
}
