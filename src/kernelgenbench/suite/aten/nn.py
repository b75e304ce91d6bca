"""Losses and neural-network helpers: binary_cross_entropy_with_logits, huber_loss,
soft_margin_loss, margin_ranking_loss (family "loss"); pairwise_distance, im2col,
affine_grid_generator (family "nn").

Every loss reduction (`reduction` is an int: 0 none, 1 mean, 2 sum) meets every dtype; a mean
over an empty input is NaN and a sum 0 in ATen, so empty inputs are drawn with each. Sign targets
come from the `index` draw over [-1, 2): the values -1, 0 and 1 (ATen computes a 0 target by the
same formula; the suite has no draw of +-1 alone).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import torch

from ..build import FLOATS, SUM_TOLERANCE, covering
from ..spec import Layout, Operator, Overload, Size, TensorSpec
from .family import aten_operator, samples_of
from .index import fit
from .reduce import functional_perf

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16

LOSS_SHAPES = {
    "small": [(), (7,), (33, 65), (3, 5, 17), (0, 4), (4, 300)],
    "large": [(1025, 4097), (8, 512, 1023)],
    "perf": [(8192, 32000)],
}
SIGNS = ("index", -1.0, 2.0)  # -1, 0 or 1


def _layouts(size: Size) -> tuple[Layout, ...]:
    return ("contiguous",) if size == "perf" else ("contiguous", "transposed", "strided", "expanded")


def _loss_cases(size: Size):
    """(i, shape, dtype, layout, reduction): each dtype meets each reduction; perf cases are float32
    and bfloat16 with the mean first. A float16 sum of a large tensor overflows to inf in ATen
    and in any kernel alike, judging nothing, so the large tier sums only in float32 and bfloat16."""
    if size == "perf":
        for i, (dtype, reduction) in enumerate([(F32, 1), (BF16, 1), (F32, 0), (BF16, 2)]):
            yield i, LOSS_SHAPES["perf"][0], dtype, "contiguous", reduction
        return
    for i, (shape, dtype, layout) in enumerate(covering(LOSS_SHAPES[size], FLOATS, _layouts(size))):
        reduction = (i + i // 3) % 3
        if size == "large" and dtype == F16 and reduction == 2:
            reduction = 1
        yield i, shape, dtype, layout, reduction


def _skip_out(ov: Overload, i: int) -> bool:
    """The `out=` form takes every other case: its semantics are the functional form's."""
    return bool(ov.writes) and i % 2 == 1


def _wide(dtype: torch.dtype, fp16_bound: float, bound: float) -> tuple[str, float, float]:
    b = fp16_bound if dtype == F16 else bound
    return "uniform", -b, b


def _broadcast_operand(shape: tuple[int, ...], kind: int) -> tuple[int, ...]:
    """A shape that broadcasts to `shape`: the last dim, a column, a single element, or all of it."""
    if not shape:
        return ()
    return [shape[-1:], shape[:-1] + (1,), (1,), shape][kind % 4]


def bce_sampler(ov: Overload, size: Size):
    """Soft and hard {0, 1} targets; logits up to +-100 (+-30 in float16), where exp(|x|)
    overflows float32 (float16), so log(1 + exp(-x)) must be taken stably; weight and pos_weight
    absent or broadcast from the last dim, a column, one element or the full shape."""

    def grid():
        for i, shape, dtype, layout, reduction in _loss_cases(size):
            if _skip_out(ov, i):
                continue
            wide = size != "perf" and i % 4 == 3
            dist, lo, hi = _wide(dtype, 30.0, 100.0) if wide else ("normal", -1.0, 1.0)
            hard = size != "perf" and i % 5 == 2
            values: dict[str, Any] = {
                "self": TensorSpec(shape, dtype, layout, dist, lo, hi),
                "target": (TensorSpec(shape, dtype, fit("strided" if i % 2 else "contiguous", shape), "index", 0, 2)
                           if hard else TensorSpec(shape, dtype, fit(layout if i % 2 else "contiguous", shape),
                                                   "uniform", 0.0, 1.0)),
                "weight": None,
                "pos_weight": None,
                "reduction": reduction,
            }
            if size == "perf":
                if i == 1:
                    values["pos_weight"] = TensorSpec(shape[-1:], dtype, dist="uniform", low=0.5, high=3.0)
            else:
                if i % 3 != 1:
                    values["weight"] = TensorSpec(_broadcast_operand(shape, i // 3), dtype, dist="uniform",
                                                  low=0.0, high=2.0)
                if i % 4 in (1, 2):
                    values["pos_weight"] = TensorSpec(_broadcast_operand(shape, i // 2 + 1), dtype,
                                                      dist="uniform", low=0.5, high=3.0)
            yield values

    return samples_of(ov, grid())


HUBER_DELTAS = (1.0, 0.05, 5.0, 0.5)


def huber_sampler(ov: Overload, size: Size):
    """delta from 0.05 (almost every element on the linear branch) to 5 (almost all quadratic)."""

    def grid():
        for i, shape, dtype, layout, reduction in _loss_cases(size):
            if _skip_out(ov, i):
                continue
            yield {
                "self": TensorSpec(shape, dtype, layout),
                "target": TensorSpec(shape, dtype, fit(layout if i % 2 else "contiguous", shape)),
                "reduction": reduction,
                "delta": HUBER_DELTAS[(i + i // 4) % len(HUBER_DELTAS)] if size != "perf" else 1.0,
            }

    return samples_of(ov, grid())


def soft_margin_sampler(ov: Overload, size: Size):
    """log(1 + exp(-y x)) with y in {-1, 0, 1}; wide inputs up to +-30 (+-8 in float16, where
    ATen's exp overflows past 11)."""

    def grid():
        for i, shape, dtype, layout, reduction in _loss_cases(size):
            if _skip_out(ov, i):
                continue
            wide = size != "perf" and i % 4 == 3
            dist, lo, hi = _wide(dtype, 8.0, 30.0) if wide else ("normal", -1.0, 1.0)
            yield {
                "self": TensorSpec(shape, dtype, layout, dist, lo, hi),
                "target": TensorSpec(shape, dtype, fit(layout if i % 2 else "contiguous", shape), *SIGNS),
                "reduction": reduction,
            }

    return samples_of(ov, grid())


MARGINS = (0.0, 0.5, 2.0, -0.3)


def margin_ranking_sampler(ov: Overload, size: Size):
    """max(0, -y (x1 - x2) + margin) with margins 0, positive and negative."""

    def grid():
        for i, shape, dtype, layout, reduction in _loss_cases(size):
            yield {
                "input1": TensorSpec(shape, dtype, layout),
                "input2": TensorSpec(shape, dtype, fit(layout if i % 2 else "contiguous", shape)),
                "target": TensorSpec(shape, dtype, "contiguous", *SIGNS),
                "margin": MARGINS[(i + i // 4) % len(MARGINS)] if size != "perf" else 0.5,
                "reduction": reduction,
            }

    return samples_of(ov, grid())


# ---- pairwise_distance ---------------------------------------------------------------------------

PAIRWISE_P = (2.0, 1.0, 0.0, 3.5, math.inf)
PAIRS = {  # (x1 shape, x2 shape): equal shapes, broadcasts both ways, 1-d and 0-d inputs, empties
    "small": [((33, 65), (33, 65)), ((7,), (7,)), ((4, 300), (1, 300)), ((9,), (5, 9)),
              ((3, 1, 17), (6, 17)), ((0, 4), (0, 4)), ((5, 0), (5, 0)), ((), ())],
    "large": [((4096, 1023), (4096, 1023)), ((33, 1, 4097), (17, 4097))],
    "perf": [((65536, 256), (65536, 256))],
}


def pairwise_sampler(ov: Overload, size: Size):
    """p = 2, 1, 0 (the count of non-zero differences: drawn on small integers with eps = 0 so
    that some differences are exactly zero), 3.5 and inf; eps 1e-6, 0 and 1e-3; keepdim both ways."""

    def grid():
        i = 0
        for (s1, s2) in PAIRS[size]:
            for dtype in (FLOATS if size != "perf" else (F32, BF16)):
                p = PAIRWISE_P[(i + i // 5) % len(PAIRWISE_P)] if size != "perf" else 2.0
                if math.isinf(p) and (s1[-1:] == (0,) or s2[-1:] == (0,)):
                    p = 2.0  # the inf norm of an empty dim raises in ATen
                counted = p == 0.0
                dist = ("index", -2.0, 3.0) if counted else ("normal", -1.0, 1.0)
                layout = _layouts(size)[i % len(_layouts(size))]
                yield {
                    "x1": TensorSpec(s1, dtype, fit(layout, s1), *dist),
                    "x2": TensorSpec(s2, dtype, "contiguous", *dist),
                    "p": p,
                    "eps": 0.0 if counted else (1e-6, 1e-3)[i % 2] if size != "perf" else 1e-6,
                    "keepdim": bool(i % 3 == 1),
                }
                i += 1

    return samples_of(ov, grid())


# ---- im2col --------------------------------------------------------------------------------------

IM2COL = {  # (input shape, kernel_size, dilation, padding, stride)
    "small": [
        ((2, 3, 8, 9), [3, 3], [1, 1], [1, 1], [1, 1]),
        ((3, 7, 6), [2, 3], [1, 2], [0, 1], [2, 1]),
        ((1, 2, 11, 5), [3, 1], [2, 1], [2, 0], [1, 2]),
        ((2, 4, 5, 7), [1, 1], [1, 1], [0, 0], [2, 3]),
        ((1, 1, 1, 1), [1, 1], [1, 1], [0, 0], [1, 1]),
        ((3, 6, 9), [4, 2], [1, 1], [1, 2], [3, 2]),
        ((0, 2, 5, 5), [2, 2], [1, 1], [0, 0], [1, 1]),
        ((2, 1, 6, 6), [5, 5], [1, 1], [2, 2], [1, 1]),
    ],
    "large": [
        ((8, 64, 56, 56), [3, 3], [1, 1], [1, 1], [1, 1]),
        ((4, 16, 131, 97), [5, 3], [2, 1], [1, 2], [2, 3]),
    ],
    "perf": [
        ((32, 64, 56, 56), [3, 3], [1, 1], [1, 1], [1, 1]),
        ((32, 3, 224, 224), [16, 16], [1, 1], [0, 0], [16, 16]),
    ],
}


def im2col_sampler(ov: Overload, size: Size):
    """Non-square kernels, dilations, paddings and strides; batched 4-d and unbatched 3-d input,
    an empty batch. Every drawn configuration has a positive output size (ATen raises otherwise)."""

    def grid():
        i = 0
        for shape, kernel, dilation, padding, stride in IM2COL[size]:
            for dtype in (FLOATS if size != "perf" else (F32, BF16)):
                unbatched_out = ov.writes and len(shape) == 3  # CPU and CUDA disagree on its shape
                if not (_skip_out(ov, i) or unbatched_out or (size == "large" and dtype != F32 and i % 3)):
                    layout = _layouts(size)[i % len(_layouts(size))]
                    if layout == "expanded" and shape[0] == 0:
                        layout = "strided"
                    yield {"self": TensorSpec(shape, dtype, layout), "kernel_size": kernel,
                           "dilation": dilation, "padding": padding, "stride": stride}
                i += 1

    return samples_of(ov, grid())


# ---- affine_grid_generator -----------------------------------------------------------------------

GRIDS = {  # output sizes: [N, C, H, W] (2-d, theta (N, 2, 3)) or [N, C, D, H, W] (3-d, theta (N, 3, 4))
    "small": [[2, 3, 5, 7], [1, 1, 1, 9], [3, 2, 4, 1], [0, 3, 4, 4], [2, 1, 3, 4, 5], [2, 1, 16, 17],
              [1, 2, 1, 6, 1]],
    "large": [[8, 3, 224, 225], [2, 1, 33, 64, 65]],
    "perf": [[32, 3, 224, 224], [8, 1, 64, 128, 128]],
}


def affine_grid_sampler(ov: Overload, size: Size):
    """2-d and 3-d grids, align_corners both ways, sizes of 1 (whose coordinate is 0, not -1:
    float32 only, both ways, as ATen's float16 and bfloat16 kernels raise there)."""

    def grid():
        i = 0
        for g, out_size in enumerate(GRIDS[size]):
            spatial = len(out_size) - 2
            theta = (out_size[0], spatial, spatial + 1)
            ones = 1 in out_size[2:]
            for k, dtype in enumerate((F32, F32) if ones else FLOATS if size != "perf" else (F32, BF16)):
                align = bool((g + k) % 2)
                if not _skip_out(ov, i):
                    layout = _layouts(size)[i % len(_layouts(size))]
                    yield {"theta": TensorSpec(theta, dtype, fit(layout, theta)), "size": out_size,
                           "align_corners": align}
                i += 1

    return samples_of(ov, grid())


LOSS_NOTES = ("reduction is 0 (none), 1 (mean) or 2 (sum); an empty input is drawn with each "
              "(mean is NaN, sum 0). Input and target have one shape (a broadcast between them "
              "warns in torch.nn.functional and is not drawn).")

OPERATORS: dict[str, Callable[[], Operator]] = {
    "binary_cross_entropy_with_logits": partial(
        aten_operator, "binary_cross_entropy_with_logits", "loss",
        "(1 - y) x + (1 + (pos_weight - 1) y) log(1 + exp(-x)), times weight, then reduced; "
        "stable for large |x|.",
        functional_perf(bce_sampler), tolerance=SUM_TOLERANCE,
        notes=LOSS_NOTES + " weight and pos_weight broadcast to the loss's shape (ATen raises when "
                           "they would grow it, so that is not drawn)."),
    "huber_loss": partial(
        aten_operator, "huber_loss", "loss",
        "0.5 d^2 where |d| < delta else delta (|d| - 0.5 delta), d = self - target; then reduced.",
        functional_perf(huber_sampler), tolerance=SUM_TOLERANCE,
        notes=LOSS_NOTES + " delta <= 0 raises in ATen and is not drawn."),
    "soft_margin_loss": partial(
        aten_operator, "soft_margin_loss", "loss", "log(1 + exp(-target * self)), then reduced.",
        functional_perf(soft_margin_sampler), tolerance=SUM_TOLERANCE,
        notes=LOSS_NOTES + " Targets are -1, 0 or 1. float16 inputs stay within +-8: ATen takes "
                           "exp in float16, which overflows to inf past 11."),
    "margin_ranking_loss": partial(
        aten_operator, "margin_ranking_loss", "loss",
        "max(0, -target (input1 - input2) + margin), then reduced.",
        functional_perf(margin_ranking_sampler), tolerance=SUM_TOLERANCE,
        notes=LOSS_NOTES + " Targets are -1, 0 or 1. No out= form in ATen."),
    "pairwise_distance": partial(
        aten_operator, "pairwise_distance", "nn",
        "The p-norm of x1 - x2 + eps over the last dim of their broadcast (p = 0 counts non-zeros).",
        functional_perf(pairwise_sampler), tolerance=SUM_TOLERANCE,
        notes="p = inf over an empty last dim raises in ATen and is not drawn; negative p is not drawn."),
    "im2col": partial(
        aten_operator, "im2col", "nn",
        "Unfold: (N, C, H, W) -> (N, C*kh*kw, L) sliding blocks with dilation, zero padding and stride.",
        functional_perf(im2col_sampler),
        notes="Configurations with no output position, and inputs with an empty non-batch dim, raise "
              "in ATen and are not drawn. im2col.out takes batched input only: for an unbatched one, "
              "ATen's CPU kernel resizes `out` to (C*kh*kw, L) and its CUDA kernel to (1, C*kh*kw, L) "
              "(seen on the H200), and cases are the same on every platform."),
    "affine_grid_generator": partial(
        aten_operator, "affine_grid_generator", "nn",
        "theta applied to the normalised [-1, 1] coordinates of every output position (2-d or 3-d).",
        functional_perf(affine_grid_sampler),
        notes="A size of 1 in float16 or bfloat16 raises in ATen's CPU kernel (it makes the 0 coordinate "
              "with at::tensor, which has no 16-bit CPU kernel), so sizes of 1 are drawn in float32 only."),
}
