"""Helpers every source's families share: dtype sets, shape grids, labels, visibility."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import cycle
from typing import Any

import torch

from .spec import (
    Case,
    DeviceArg,
    GeneratorArg,
    Joint,
    Layout,
    OutputSpec,
    Overload,
    Sample,
    Size,
    TensorSpec,
    Tolerance,
)

FLOATS: tuple[torch.dtype, ...] = (torch.float32, torch.float16, torch.bfloat16)
LAYOUTS: tuple[Layout, ...] = ("contiguous", "transposed", "strided", "expanded")

Sampler = Callable[[Overload, Size], Iterable[Sample]]

MATMUL_TOLERANCE = Tolerance(k_rms=50.0, k_max=100.0, abs_scale=True)
SUM_TOLERANCE = Tolerance(abs_scale=True)
"""For long float32 dot products, where the library's own summation (split-K, trees) is far more
accurate than a plain tiled loop: measured on the H200, an ieee tiled Triton matmul (BK=32) had
23.6x cuBLAS's RMS error at 127x8191x255, while TF32 is about 1,350x and bf16 inputs far more.
50x keeps every legitimate summation order and still rejects both downgrades."""


def describe_value(v: Any) -> str:
    if isinstance(v, (TensorSpec, OutputSpec, DeviceArg, GeneratorArg, Joint)):
        return v.describe()
    if isinstance(v, torch.dtype):
        return str(v).replace("torch.", "")
    if isinstance(v, (list, tuple)) and v and all(x is None or isinstance(x, (TensorSpec, OutputSpec)) for x in v) \
            and any(x is not None for x in v):
        return "[" + ", ".join("None" if x is None else x.describe() for x in v) + "]"
    return repr(v)


def sample(values: Mapping[str, Any], *, hide: Sequence[str] = ()) -> Sample:
    """A sample whose label lists every argument except the ones named in `hide`."""
    label = ", ".join(f"{k}={describe_value(v)}" for k, v in values.items() if k not in hide)
    return Sample(values=dict(values), label=label)


def covering(shapes: Sequence[tuple[int, ...]], dtypes: Sequence[torch.dtype],
             layouts: Sequence[Layout] = LAYOUTS) -> Iterator[tuple[tuple[int, ...], torch.dtype, Layout]]:
    """Every shape with every dtype; layouts taken in turn, so each shows up without a full product.

    Layouts that need two dimensions fall back to contiguous on smaller shapes.
    """
    lay = cycle(layouts)
    for shape in shapes:
        for dtype in dtypes:
            layout = next(lay)
            if len(shape) < 2 or 0 in shape:
                layout = "contiguous" if layout in ("transposed", "expanded") else layout
            if len(shape) == 0:
                layout = "contiguous"
            yield shape, dtype, layout


def visibility(index: int) -> str:
    """One case in three is public (shown in prompts and `verify --public`); the rest are hidden.

    The public third runs diagonally (0, 4, 8, 9, 13, ...) so it does not line up with grids that
    cycle through three dtypes, and every dtype has public cases.
    """
    return "public" if index % 3 == (index // 3) % 3 else "hidden"


def build_cases(overloads: Iterable[Overload], sampler: Sampler,
                complete: Callable[[Overload, Sample], Sample] = lambda ov, s: s) -> tuple[Case, ...]:
    """Every tier's cases of every overload; a call a smaller tier already has is not repeated
    (a case is its name: the same name draws the same inputs)."""
    cases: list[Case] = []
    seen: set[str] = set()
    for ov in overloads:
        for size in ("small", "large", "perf"):
            for i, s in enumerate(sampler(ov, size)):
                vis = "public" if size == "perf" else visibility(i)
                case = Case(ov.name, complete(ov, s), size, vis)
                if case.name not in seen:
                    seen.add(case.name)
                    cases.append(case)
    return tuple(cases)
