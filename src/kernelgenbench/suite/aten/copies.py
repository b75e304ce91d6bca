"""Copies, conversions and scalars: the operators whose work is moving data, or reading one value.

One conversion grid serves `_to_copy`, `to`, `copy_`, `clone` and `contiguous`: pairs of dtypes
among float32/float16/bfloat16/float64/int64/int32/int8/uint8/bool (float -> int truncation toward
zero, int narrowing that wraps, float -> bool as x != 0, bool -> numbers), small shapes in every
layout (transposed, strided with a storage offset, expanded), 4-d inputs for channels_last, and the
flags that decide between a copy and an alias (`to(copy=False)` returns self where nothing changes,
`contiguous()` returns self when already contiguous). Values are drawn where ATen defines the
conversion: a float converted to an integer type lies in that type's range (out-of-range float ->
int is undefined behaviour in C++ and differs between CPU and CUDA), and integers converted to
float16 stay within its finite range. Outputs are judged on values and strides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from typing import Any

import torch

from ..spec import DEVICE, Layout, Operator, OutputSpec, Overload, Size, TensorSpec
from .family import aten_operator, samples_of

F32, F16, BF16, F64 = torch.float32, torch.float16, torch.bfloat16, torch.float64
C64, C128 = torch.complex64, torch.complex128
I64, I32, I8, U8, BOOL = torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool
DTYPES = (F32, F16, BF16, F64, I64, I32, I8, U8, BOOL)
INTS = (I64, I32, I8, U8)

# (source, target) dtype pairs, each semantic class at least once; same-dtype pairs decide aliasing.
PAIRS: list[tuple[torch.dtype, torch.dtype]] = [
    (F32, F16), (F16, F32), (BF16, F32), (F32, F32), (F32, BF16), (F64, F32), (F32, I32), (BOOL, F32),
    (F16, I64), (I64, F32), (F32, BOOL), (I64, I8), (BF16, BF16), (F64, U8), (I32, F16), (BF16, I8),
    (U8, BF16), (F16, BOOL), (I8, F64), (I32, U8), (F32, F64), (U8, I8), (F64, BF16), (BOOL, I64),
    (I64, I64), (I8, I32), (F16, BF16), (U8, I64), (I64, BOOL), (BF16, F64), (F64, F16), (I32, I64),
    (F16, F16), (BOOL, BOOL), (F32, U8), (F64, F64), (F64, I64),
]

# Small inputs: shapes x layouts, non-contiguous layouts on the shapes that have the dims for them.
SMALL: list[tuple[tuple[int, ...], Layout]] = [
    ((33, 65), "transposed"), ((3, 5, 17), "contiguous"), ((7,), "strided"), ((33, 65), "expanded"),
    ((3, 5, 17), "transposed"), ((), "contiguous"), ((33, 65), "strided"), ((3, 5, 17), "expanded"),
    ((1,), "contiguous"), ((33, 65), "contiguous"), ((0, 4), "contiguous"), ((3, 5, 17), "strided"),
]
LARGE: list[tuple[tuple[int, ...], Layout]] = [
    ((1025, 4097), "contiguous"), ((1025, 4097), "transposed"), ((8, 512, 1023), "strided"),
    ((8, 512, 1023), "expanded"), ((8, 512, 1023), "transposed"), ((1025, 4097), "strided"),
]
# 4-d inputs, where channels_last is a memory format the result can take.
NCHW: list[tuple[tuple[int, ...], Layout]] = [
    ((2, 3, 5, 7), "contiguous"), ((2, 3, 5, 7), "transposed"), ((2, 3, 5, 7), "strided"), ((2, 3, 5, 7), "expanded"),
]

PRESERVE, CONTIGUOUS, CHANNELS_LAST = torch.preserve_format, torch.contiguous_format, torch.channels_last


def values_for(src: torch.dtype, dst: torch.dtype, i: int) -> tuple[str, float, float]:
    """(dist, low, high) of inputs of dtype `src` converted to `dst`, inside the range where the
    conversion is defined; specials (NaN, +-Inf, +-0.0) where the target is floating or bool."""
    if src == BOOL:
        return "uniform", 0, 1
    if src.is_complex:
        return "normal", -1.0, 1.0
    if not src.is_floating_point:
        full = {I64: (-2.0**62, 2.0**62), I32: (-2.0**31, 2.0**31 - 1), I8: (-128, 128), U8: (0, 256)}[src]
        if src == dst or dst == BOOL or (src in (I64, I32) and dst in (F32, F64, BF16)):
            return "uniform", *full  # past float32's mantissa (int64: past float64's): rounding is judged
        return "uniform", max(full[0], -3000), min(full[1], 3000)  # wraps in narrower ints, exact in float16
    if dst in INTS:  # inside the target's range; some draws past int16 (and past int32 for int64)
        wide = (i // 2) % 2 == 1 or src == F64
        high = {I8: 127.0, U8: 255.0, I32: 2.0e9 if wide else 3000.0, I64: 2.0**40 if wide else 3000.0}[dst]
        high = min(high, 6.0e4) if src == F16 else high
        return "uniform", {I8: -128.0, U8: -0.99}.get(dst, -high), high
    if dst == F16 and src in (F32, F64) and i % 2:
        return "uniform", -1.0e5, 1.0e5  # overflows to +-inf past 65504
    return ("special", -3.0, 3.0) if i % 2 == 0 else ("normal", -1.0, 1.0)


def spec(shape: tuple[int, ...], src: torch.dtype, dst: torch.dtype, layout: Layout, i: int) -> TensorSpec:
    dist, low, high = values_for(src, dst, i)
    return TensorSpec(shape, src, layout, dist, low, high)  # type: ignore[arg-type]


def _rows(size: Size) -> Iterator[tuple[int, tuple[int, ...], Layout, torch.dtype, torch.dtype]]:
    """(index, shape, layout, source dtype, target dtype) of the small or large tier."""
    inputs = SMALL if size == "small" else LARGE
    pairs = PAIRS if size == "small" else [(F32, BF16), (BF16, F32), (F16, I32), (F32, F32), (I64, I8), (F64, F16)]
    for i, (src, dst) in enumerate(pairs):
        shape, layout = inputs[(i * 5) % len(inputs)]
        yield i, shape, layout, src, dst


def _perf_rows() -> list[tuple[tuple[int, ...], Layout, torch.dtype, torch.dtype, Any]]:
    """LLM-scale conversions: a bf16 checkpoint to fp32, fp32 master weights to bf16, and a
    transposing conversion to a contiguous result."""
    return [((8192, 14336), "contiguous", BF16, F32, PRESERVE), ((8192, 14336), "contiguous", F32, BF16, PRESERVE),
            ((4096, 4096), "contiguous", F32, F16, PRESERVE), ((8192, 8192), "transposed", F16, F32, CONTIGUOUS)]


def _optional(ov: Overload, name: str) -> bool:
    return ov.param(name).type.startswith("Optional[")


def conversion_sampler(main: str, count: int):
    """`_to_copy` and `to`: the dtype given as a dtype, through `other`, with a device, or left out;
    `count` small cases per overload (the out= form and side overloads take every other one), plus
    4-d memory-format cases; `copy=False` on a same-dtype pair must return self."""

    def grid(ov: Overload, size: Size) -> Iterator[dict[str, Any]]:
        names = {p.name for p in ov.params}
        if size == "perf":
            if ov.name == main:
                for shape, layout, src, dst, mf in _perf_rows():
                    yield {"self": TensorSpec(shape, src, layout), "dtype": dst, "memory_format": mf}
            return
        rows = list(_rows(size))
        if size == "small":  # side overloads and the out= form take every other row
            rows = rows[:count] if ov.name == main else rows[:count:2]
        else:
            rows = rows[:3] if ov.name == main else rows[:1]
        for k, (i, shape, layout, src, dst) in enumerate(rows):
            values: dict[str, Any] = {"self": spec(shape, src, dst, layout, i)}
            if "dtype" in names:
                values["dtype"] = None if _optional(ov, "dtype") and src == dst and k % 2 == 0 else dst
            if "other" in names:
                values["other"] = TensorSpec((1,) if k % 2 else (), dst)
            if "device" in names:
                values["device"] = None if _optional(ov, "device") and k % 3 == 0 else DEVICE
            if "layout" in names and k % 3 == 1:
                values["layout"] = torch.strided
            if "pin_memory" in names and k % 4 == 2:
                values["pin_memory"] = False
            if "copy" in names:
                values["copy"] = k % 4 == 3
            values["non_blocking"] = k % 3 == 2
            if "memory_format" in names:
                values["memory_format"] = (None, PRESERVE, CONTIGUOUS)[k % 3]
            if ov.writes:
                values["out"] = OutputSpec((), dst)
            yield values
        if size == "small":
            yield from _memory_formats(ov, names)

    def _memory_formats(ov: Overload, names: set[str]) -> Iterator[dict[str, Any]]:
        """4-d inputs: channels_last results, and `to` returning self where the input is
        already in the asked format (a transposed input is 'contiguous' to `to`)."""
        if "memory_format" not in names or ov.writes:
            return
        fmts = [(CHANNELS_LAST, F32, F32), (CONTIGUOUS, F16, F16), (CHANNELS_LAST, BF16, F32), (PRESERVE, I32, F32)]
        for n, ((shape, layout), (mf, src, dst)) in enumerate(zip(NCHW, fmts)):
            if ov.name != main and n % 2:
                continue
            values = {"self": spec(shape, src, dst, layout, n), "dtype": dst, "memory_format": mf,
                      "other": TensorSpec((), dst), "device": DEVICE}
            yield values
        if "copy" in names:  # a transposed 2-d input is already in contiguous_format for `to`: self
            yield {"self": TensorSpec((33, 65), F32, "transposed"), "dtype": F32, "other": TensorSpec((), F32),
                   "device": DEVICE, "memory_format": CONTIGUOUS}

    return lambda ov, size: samples_of(ov, grid(ov, size))


def _broadcast_src(shape: tuple[int, ...], i: int) -> tuple[int, ...]:
    """A shape that broadcasts to `shape`: its trailing dims, a size-one dim, or 0-d."""
    if not shape:
        return shape
    return (shape[1:], (1,) + shape[1:], shape[:-1] + (1,), ())[i % 4]


def copy_sampler(ov: Overload, size: Size):
    """`copy_`: every dtype pair; self contiguous, transposed or strided; src in every layout,
    or broadcast from fewer or size-one dims."""

    def grid() -> Iterator[dict[str, Any]]:
        if size == "perf":
            for shape, src, dst, layout, src_shape in (((8192, 14336), F32, BF16, "contiguous", None),
                                                       ((8192, 14336), BF16, BF16, "contiguous", None),
                                                       ((8192, 8192), F16, F16, "transposed", None),
                                                       ((8192, 14336), F32, F32, "contiguous", (14336,))):
                yield {"self": TensorSpec(shape, dst), "src": TensorSpec(src_shape or shape, src, layout)}
            return
        selves: tuple[Layout, ...] = ("contiguous", "transposed", "strided")
        for i, shape, layout, src, dst in _rows(size):
            self_layout = selves[i % 3] if len(shape) >= (2 if selves[i % 3] == "transposed" else 1) else "contiguous"
            src_shape = _broadcast_src(shape, i // 4) if i % 4 == 1 and 0 not in shape else shape
            src_layout = layout if src_shape == shape else "contiguous"
            yield {"self": TensorSpec(shape, dst, self_layout), "src": spec(src_shape, src, dst, src_layout, i),
                   "non_blocking": i % 3 == 2}

    return samples_of(ov, grid())


def _copy_spec(shape: tuple[int, ...], dtype: torch.dtype, layout: Layout, i: int) -> TensorSpec:
    """An input copied as it is: specials among floats, integers past float32's mantissa."""
    return spec(shape, dtype, dtype, layout, i)


def format_sampler(formats: tuple[Any, ...]):
    """`clone` and `contiguous`: every dtype in every layout, each memory format in `formats`
    (channels_last on 4-d inputs)."""

    def grid(ov: Overload, size: Size) -> Iterator[dict[str, Any]]:
        if size == "perf":
            if ov.writes:
                return
            for shape, dtype, layout, mf in (((8192, 8192), F16, "transposed", CONTIGUOUS),
                                             ((8192, 14336), BF16, "strided", formats[0]),
                                             ((8192, 14336), F32, "expanded", formats[0]),
                                             ((8192, 14336), F32, "contiguous", formats[0])):
                if layout != "contiguous" or ov.name != "contiguous":  # contiguous() returns such an input
                    yield {"self": TensorSpec(shape, dtype, layout), "memory_format": mf}
            return
        inputs = SMALL + NCHW if size == "small" else LARGE
        for i, (shape, layout) in enumerate(inputs):
            if ov.writes and i % 2:
                continue
            mf = formats[i % len(formats)]
            if len(shape) == 4:
                mf = CHANNELS_LAST if i % 2 == 0 else formats[i % len(formats)]
            dtype = DTYPES[i % len(DTYPES)] if size == "small" else (F32, BF16, I64)[i % 3]
            values = {"self": _copy_spec(shape, dtype, layout, i), "memory_format": mf}
            if mf is None and not _optional(ov, "memory_format"):
                del values["memory_format"]  # the default (contiguous_format)
            if ov.writes:
                values["out"] = OutputSpec((), dtype)
            yield values
            if size == "small" and len(shape) != 4 and not ov.writes:  # a second dtype per input
                yield {**values, "self": _copy_spec(shape, DTYPES[(i + 4) % len(DTYPES)], layout, i + 1)}

    return lambda ov, size: samples_of(ov, grid(ov, size))


def resolve_sampler(bit: str, dtypes: tuple[torch.dtype, ...]):
    """`resolve_conj`/`resolve_neg`: tensors with the bit set in every layout (a copy with the bit
    applied, into a new tensor), and tensors without it (self, as a view)."""

    def sampler(ov: Overload, size: Size):
        if size != "small":
            return ()
        grid = ({"self": replace(_copy_spec(shape, dtypes[i % len(dtypes)], layout, i), bit=bit if i % 3 else "")}
                for i, (shape, layout) in enumerate(SMALL))
        return samples_of(ov, grid)

    return sampler


def item_sampler(ov: Overload, size: Size):
    """One element as a Python number: float for floating dtypes (NaN and +-inf among them), int
    for integer dtypes (int64 past 2**53, so a read through float64 is caught), bool for bool;
    0-d, and one-element n-d inputs, with a storage offset (strided)."""
    if size != "small":
        return ()
    shapes: list[tuple[tuple[int, ...], Layout]] = [((), "contiguous"), ((1,), "strided"), ((1, 1), "contiguous"),
                                                      ((1, 1, 1), "strided")]
    dtypes = [(F32, "special", -100.0, 100.0), (F16, "special", -100.0, 100.0), (BF16, "special", -100.0, 100.0),
              (F64, "special", -100.0, 100.0), (I64, "uniform", -2.0**62, 2.0**62), (I32, "uniform", -2.0**31, 2.0**31),
              (I8, "uniform", -128, 128), (U8, "uniform", 0, 256), (BOOL, "uniform", 0, 1)]
    grid = ({"self": TensorSpec(shape, dtype, layout, dist, low, high)}  # type: ignore[arg-type]
            for shape, layout in shapes for dtype, dist, low, high in dtypes)
    return samples_of(ov, grid)


NOTES = ("Floats converted to integer types are drawn inside the target's range: out-of-range float -> int "
         "(and NaN/Inf -> int) is undefined behaviour in C++ and differs between ATen's CPU and CUDA kernels. "
         "Integers converted to float16 are drawn within its finite range (|x| < 3000). "
         "Cross-device conversions, pinned memory and sparse layouts are not drawn.")

OPERATORS: dict[str, Callable[[], Operator]] = {
    "_to_copy": partial(aten_operator, "_to_copy", "copy",
                        "A copy of self converted to dtype (truncation toward zero for float -> int, x != 0 for "
                        "-> bool) in the memory format asked (preserve keeps a dense input's strides).",
                        conversion_sampler("_to_copy", 30), work="data", compare="values_and_strides", notes=NOTES),
    "to": partial(aten_operator, "to", "copy",
                  "self converted to a dtype (and device): self itself when nothing changes and copy=False, else "
                  "a converted copy in the memory format asked.",
                  conversion_sampler("to.dtype", 18), work="data", compare="values_and_strides", notes=NOTES),
    "copy_": partial(aten_operator, "copy_", "copy",
                     "Copies src into self in place, converting its dtype and broadcasting it to self's shape.",
                     copy_sampler, work="data", compare="values_and_strides", notes=NOTES),
    "clone": partial(aten_operator, "clone", "copy",
                     "A copy of self in the memory format asked (preserve keeps a dense input's strides).",
                     format_sampler((PRESERVE, CONTIGUOUS, None)), work="data", compare="values_and_strides"),
    "contiguous": partial(aten_operator, "contiguous", "copy",
                          "self itself when already contiguous in the memory format asked, else a contiguous copy.",
                          format_sampler((CONTIGUOUS, None)), work="data", compare="values_and_strides"),
    "resolve_conj": partial(aten_operator, "resolve_conj", "view",
                            "self with its conjugate bit materialised into a new tensor; self itself for a "
                            "tensor without the bit.",
                            resolve_sampler("conj", (C64, C128, C64, F32)), work="view"),
    "resolve_neg": partial(aten_operator, "resolve_neg", "view",
                           "self with its negative bit materialised into a new tensor; self itself for a "
                           "tensor without the bit.",
                           resolve_sampler("neg", (F32, F16, BF16, F64, C64)), work="view"),
    "item": partial(aten_operator, "item", "scalar", "The one element of a tensor as a Python number.",
                    item_sampler, work="read"),
    "_local_scalar_dense": partial(aten_operator, "_local_scalar_dense", "scalar",
                                   "The one element of a tensor as a Python number (what `item` calls).",
                                   item_sampler, work="read"),
}
