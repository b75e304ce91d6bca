"""Creation and fill operators: tensors made from sizes and scalars, and fills of existing tensors.

One record per operator, built from shared samplers:
- `sized_sampler(fills)`: `zeros`, `full`: sizes x (fill value, dtype); `dtype=None` is ATen's
  inference (an int fill gives int64, a bool fill bool, a float fill the default float32), fill
  values are converted as ATen converts them (truncated into integers, nonzero into bool, rounded
  into half types; float64 fills keep every bit; int64 fills beyond int32).
- `like_sampler`: `*_like`: input layouts x dtypes x `memory_format` (preserve keeps a dense
  input's stride order, a non-dense one gets dense strides in its order; contiguous; channels_last).
- `new_sampler`: `new_*`: dtype and device from `self` unless given.
- `scalar_sampler`: `scalar_tensor` (0-d; the default dtype is float32 even for int and bool values).
- `fill_sampler(kind)`: `fill_.Scalar`/`fill_.Tensor` (a 0-d value tensor of another dtype, read on
  the device) and `zero_`, on every layout ATen writes (`fill_.Tensor` refuses expanded `self`).
- `arange_sampler`: integer and float bounds, negative steps, float steps whose length only the
  double computation gets right, int32 results of float bounds (bounds truncated first), empty ranges.
- `strided_sampler`: `empty_strided`/`new_empty_strided`: size/stride pairs (values undefined).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import LAYOUTS
from ..spec import DEVICE, Operator, OutputSpec, Overload, Size, TensorSpec
from .family import aten_operator, samples_of

F32, F16, BF16, F64 = torch.float32, torch.float16, torch.bfloat16, torch.float64
I32, I64, BOOL, U8 = torch.int32, torch.int64, torch.bool, torch.uint8
INF, NAN = float("inf"), float("nan")

PERF = [((4096, 4096), F32), ((8192, 14336), BF16), ((8192, 14336), F32)]
LARGE = [((1025, 4097), F32), ((8, 512, 1023), BF16)]
EXTRA = {"layout": torch.strided, "pin_memory": False}  # the keyword arguments a caller may spell out


def written_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """The fewest bytes a creation or fill moves: its outputs' distinct elements, written once.
    Nothing is read (`self` of `*_like`/`new_*` gives only metadata; a 0-d fill value is one element)."""
    total = 0
    for t in outputs:
        if isinstance(t, torch.Tensor) and t.numel():
            span = 1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()) if st > 0)
            total += min(span, t.numel()) * t.element_size()
    return total


def _inferred(value: Any) -> torch.dtype:
    """ATen's dtype for a fill value when `dtype=None`: bool, int64, or the default float32."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return I64
    return F32


def _fit(shape: tuple[int, ...], layout: str) -> str:
    """Layouts that need two dimensions fall back on smaller shapes (as `covering` does)."""
    if len(shape) == 0 or ((len(shape) < 2 or 0 in shape) and layout in ("transposed", "expanded")):
        return "contiguous"
    return layout


def _creation(ov: Overload, values: dict[str, Any], dtype: torch.dtype | None, out_dtype: torch.dtype,
              i: int) -> dict[str, Any]:
    """A creation call: dtype and device for the functional form (and, every third case, the
    layout/pin_memory keywords spelled out), an out buffer of `out_dtype` for the out= form."""
    if ov.writes:
        return {**values, "out": OutputSpec((), out_dtype)}
    extra = EXTRA if i % 3 == 2 else {}
    return {**values, "dtype": dtype, **extra, "device": DEVICE}


# --- zeros, full -----------------------------------------------------------------------------------

ZEROS = [(None, d) for d in (None, F32, F16, BF16, F64, I32, I64, BOOL, U8, None, F16, I32)]
FULLS = [(3, None), (-1.5, None), (True, None), (2**40 + 3, None), (0.1, F64), (7, F32), (-2.5, I64),
         (-INF, F16), (1 / 3, BF16), (2.7, I32), (0.5, BOOL), (-3, I32), (200, U8), (NAN, F32), (1e-3, F64)]
SIZED_SHAPES = [(33, 65), (7,), (3, 5, 17), (), (1,), (0, 4)]


def sized_sampler(fills: list[tuple[Any, torch.dtype | None]], perf_fill: Any = None):
    """`zeros`/`full`: each (fill value, dtype) on a shape taken in turn; fill None means no
    `fill_value` argument."""

    def sampler(ov: Overload, size: Size):
        if size == "perf" and ov.writes:
            return ()

        def grid() -> Iterator[dict[str, Any]]:
            if size == "small":
                combos = [(SIZED_SHAPES[i % len(SIZED_SHAPES)], v, d) for i, (v, d) in enumerate(fills)]
            else:
                tier = LARGE if size == "large" else PERF
                value = fills[0][0] if perf_fill is None else perf_fill if size == "perf" else 1 / 3
                combos = [(shape, value, d) for shape, d in tier]
            for i, (shape, value, dtype) in enumerate(combos):
                values: dict[str, Any] = {"size": list(shape)}
                if value is not None:
                    values["fill_value"] = value
                out = dtype or (_inferred(value) if value is not None else F32)
                yield _creation(ov, values, dtype, out, i)

        return samples_of(ov, grid())

    return sampler


# --- ones_like, zeros_like -------------------------------------------------------------------------

LIKE_SHAPES = [(33, 65), (3, 5, 17), (7,), (), (2, 3, 5, 4), (1,), (0, 4), (5, 1, 6)]
LIKE_DTYPES = (F32, F16, BF16, I32, BOOL, F64, I64)
OTHER_DTYPES = (F64, I64, BF16, BOOL, F16, I32)
FORMATS = (None, torch.preserve_format, torch.contiguous_format)


def like_sampler(ov: Overload, size: Size):
    """`*_like`: every input layout with `memory_format` None/preserve/contiguous (channels_last on
    the 4-d shape) and `dtype` None or another; out= forms take every other sample."""
    if size == "perf" and ov.writes:
        return ()

    def grid() -> Iterator[dict[str, Any]]:
        if size == "small":
            combos = [(shape, LIKE_DTYPES[(i + j) % len(LIKE_DTYPES)], LAYOUTS[(i + j) % len(LAYOUTS)],
                       FORMATS[(i + 2 * j) % len(FORMATS)]) for i, shape in enumerate(LIKE_SHAPES) for j in range(3)]
            combos += [((2, 3, 5, 4), F16, "transposed", torch.channels_last),
                       ((2, 3, 5, 4), F32, "strided", torch.channels_last)]
        elif size == "large":
            combos = [(shape, dt, lay, fmt) for (shape, dt), lay, fmt in
                      zip(LARGE * 2, ("transposed", "strided", "expanded", "contiguous"), FORMATS * 2)]
        else:
            combos = [(shape, dt, "contiguous", None) for shape, dt in PERF]
        for i, (shape, dtype, layout, fmt) in enumerate(combos):
            if ov.writes and size == "small" and i % 2:
                continue
            values: dict[str, Any] = {"self": TensorSpec(shape, dtype, _fit(shape, layout))}
            other = OTHER_DTYPES[i % len(OTHER_DTYPES)] if i % 3 == 1 and size != "perf" else None
            if ov.writes:
                values["out"] = OutputSpec((), other or dtype)
            else:
                values["dtype"] = other
                if i % 4 == 3:
                    values.update(EXTRA)
                if i % 2:
                    values["device"] = DEVICE
            values["memory_format"] = fmt
            yield values

    return samples_of(ov, grid())


# --- new_ones --------------------------------------------------------------------------------------

NEW_SELF = [(F32, "contiguous"), (F16, "transposed"), (I32, "contiguous"), (BOOL, "strided"), (BF16, "expanded"),
            (F64, "contiguous"), (I64, "transposed"), (U8, "contiguous")]


def new_sampler(ov: Overload, size: Size):
    """`new_*(self, size)`: dtype (and device) from `self` unless given; `self`'s shape and layout
    are irrelevant to the result."""
    if size == "perf" and ov.writes:
        return ()

    def grid() -> Iterator[dict[str, Any]]:
        if size == "small":
            combos = [(SIZED_SHAPES[i % len(SIZED_SHAPES)], sd, lay, OTHER_DTYPES[i % len(OTHER_DTYPES)]
                       if i % 3 == 1 else None) for i, (sd, lay) in enumerate(NEW_SELF + NEW_SELF[:4])]
        else:
            tier = LARGE if size == "large" else PERF
            combos = [(shape, dt, "contiguous", F32 if i == 1 and size == "large" else None)
                      for i, (shape, dt) in enumerate(tier)]
        for i, (shape, self_dtype, layout, dtype) in enumerate(combos):
            if ov.writes and size == "small" and i % 2:
                continue
            values: dict[str, Any] = {"self": TensorSpec((4, 3), self_dtype, layout), "size": list(shape)}
            if ov.writes:
                values["out"] = OutputSpec((), self_dtype)
            else:
                values["dtype"] = dtype
                if i % 3 == 2:
                    values.update(EXTRA)
                if i % 2:
                    values["device"] = DEVICE
            yield values

    return samples_of(ov, grid())


# --- scalar_tensor ---------------------------------------------------------------------------------

SCALARS = [(3, None), (True, None), (-2.5, F16), (0.1, F64), (2**40 + 3, I64), (2.7, I32), (0.5, BOOL),
           (1 / 3, BF16), (NAN, F32), (-INF, F16), (7, U8), (-1.5, None), (-7, F64)]


def scalar_sampler(ov: Overload, size: Size):
    """`scalar_tensor(s)`: a 0-d tensor; `dtype=None` is float32 whatever the value's type."""
    if size != "small":
        return ()
    grid = (_creation(ov, {"s": s}, dtype, dtype or F32, i) for i, (s, dtype) in enumerate(SCALARS))
    return samples_of(ov, grid)


# --- fill_, zero_ ----------------------------------------------------------------------------------

FILL_SHAPES = [(33, 65), (3, 5, 17), (7,), (), (1,), (0, 4)]
FILL_DTYPES = (F32, F16, BF16, I32, F64, BOOL, I64, U8)
VALUES = {
    "float": (-1.5, 1 / 3, 3, 0.1, NAN, -INF, True, 2**40 + 3),
    "int": (7, -3, 2.7, -2.5, True, 100, 2**40 + 3),
    "bool": (True, -0.0, 0.5, 2, False),  # -0.0 is False: a bool fill is value != 0, not "any bit set"
}
# 0-d value tensors for fill_.Tensor, by self's kind: (dtype, distribution, low, high); a float value
# into an unsigned self is never negative (C++ leaves that conversion undefined)
VALUE_TENSORS = {
    "float": ((F64, "normal", -1, 1), (I64, "uniform", -100, 100), (F32, "special", -3, 3), (F64, "normal", -1, 1),
              (F32, "normal", -1, 1), (BOOL, "uniform", 0, 2), (F16, "normal", -1, 1)),
    "int": ((F32, "uniform", -50, 50), (I32, "uniform", -100, 100), (F64, "uniform", 0, 250), (BOOL, "uniform", 0, 2)),
    "bool": ((F32, "normal", -1, 1), (I64, "uniform", -1, 2)),
}


def _kind(dtype: torch.dtype) -> str:
    return "bool" if dtype == BOOL else "float" if dtype.is_floating_point else "int"


def _fits(value: Any, dtype: torch.dtype) -> bool:
    """Whether ATen converts `value` into `dtype` (an overflowing or non-finite conversion raises)."""
    if isinstance(value, bool) or dtype == BOOL:
        return True
    if dtype.is_floating_point:
        return abs(value) != abs(value) or abs(value) == INF or abs(value) <= torch.finfo(dtype).max
    return abs(value) != INF and value == value and torch.iinfo(dtype).min <= value <= torch.iinfo(dtype).max


def fill_sampler(kind: str):
    """`fill_.Scalar`/`fill_.Tensor` (kind "fill") and `zero_` (kind "zero"): shapes x dtypes x
    layouts in turn; a written `self` is never expanded for `fill_.Tensor` (ATen's copy_ refuses
    internal overlap; `fill_.Scalar` and `zero_` write it)."""

    def sampler(ov: Overload, size: Size):
        tensor_value = ov.name == "fill_.Tensor"
        layouts = [lay for lay in LAYOUTS if not (tensor_value and lay == "expanded")]

        def grid() -> Iterator[dict[str, Any]]:
            if size == "small":
                n = 20 if kind == "zero" else 18
                combos = [(FILL_SHAPES[i % len(FILL_SHAPES)], FILL_DTYPES[i % len(FILL_DTYPES)],
                           layouts[(i + i // len(FILL_SHAPES)) % len(layouts)]) for i in range(n)]
            elif size == "large":
                combos = [(shape, dt, lay) for (shape, dt), lay in zip(LARGE, ("transposed", "strided"))]
                combos += [((1025, 4097), I32, "expanded" if not tensor_value else "contiguous")]
            else:
                if tensor_value:
                    return
                combos = [(shape, dt, "contiguous") for shape, dt in PERF]
            seen: dict[str, int] = {}  # values are taken in turn per kind of self dtype
            for shape, dtype, layout in combos:
                values: dict[str, Any] = {"self": TensorSpec(shape, dtype, _fit(shape, layout))}
                k = _kind(dtype)
                j = seen[k] = seen.get(k, -1) + 1
                if kind == "zero":
                    pass
                elif tensor_value:
                    vd, dist, lo, hi = VALUE_TENSORS[k][j % len(VALUE_TENSORS[k])]
                    values["value"] = TensorSpec((), vd, "contiguous", dist, lo, hi)  # type: ignore[arg-type]
                else:
                    choices = [v for v in VALUES[k] if _fits(v, dtype)]
                    values["value"] = choices[j % len(choices)] if size == "small" else -INF if k == "float" else 7
                yield values

        return samples_of(ov, grid())

    return sampler


# --- arange ----------------------------------------------------------------------------------------

# (start, end, step, dtype): the functional overloads take the arguments they have (`arange` the
# end, `arange.start` start and end with step 1), the out= forms an out buffer of the dtype.
ARANGE_SMALL = [
    (0, 7, 1, None),  # int64
    (0, 7.5, 1, None),  # a float bound: float32
    (0, 0, 1, None),  # empty
    (0, 2049, 1, F16),  # fp16 rounds past 2048
    (0, 300, 1, BF16),  # bf16 rounds past 256
    (0, 1000, 1, F64),
    (-3, 100, 1, I32),
    (-2.5, 4, 1, None),
    (1.5, 40.2, 1, F16),
    (1e6, 1e6 + 33, 1, F32),
    (0, 1, 0.1, None),
    (1, 1.6, 0.2, None),  # (end - start) / step is 3.0000000000000004 in double: 4 elements (3 in float32)
    (0.5, 1.2, 0.07, F64),  # 9.999999999999998 in double: 10 elements (11 in float32)
    (1, 2.3, 0.1, F32),
    (5, -3, -1.5, F32),  # negative step
    (10, 0, -3, None),  # int64, negative step
    (0.5, 9.7, 2.5, I32),  # integer result of float bounds: start and step truncated first, length in double
    (-1.0, 1.0, 0.1, F64),  # float64 values need a full-precision start and step
    (2, 2, 1, F32),  # empty
    (-8, 8, 0.25, BF16),
    (2**40, 2**40 + 100, 7, None),  # int64 values far beyond float32's 24 bits: integer arithmetic
    (3, 100, 7, F16),
    (1e6, 1e6 + 10, 0.37, F32),
    (0, 250, 3, U8),
]
ARANGE_LARGE = [(0, 4_000_000, 1, None), (-1.0, 1.0, 2**-21, F32), (0, 1025 * 4097, 1, F32),
                (3.5, -4e6, -1.25, F64), (7, 5_000_000, 3, I32), (-2.0, 2.0, 1e-6, BF16)]
ARANGE_PERF = [(0, 2**27, 1, None), (-1.0, 1.0, 2**-26, F32), (0, 2**27, 1, BF16)]


def _arange_dtype(start: Any, end: Any, step: Any) -> torch.dtype:
    return F32 if any(isinstance(v, float) for v in (start, end, step)) else I64


def arange_sampler(ov: Overload, size: Size):
    """`arange`: each overload keeps the grid rows it can express (`arange`: start 0 and step 1;
    `arange.start`: step 1); out= forms get out buffers of the row's dtype (its inference where None)."""
    names = {p.name for p in ov.params}
    if size == "perf" and (ov.writes or "start" in names and "step" not in names):
        return ()
    rows = {"small": ARANGE_SMALL, "large": ARANGE_LARGE, "perf": ARANGE_PERF}[size]

    def grid() -> Iterator[dict[str, Any]]:
        for i, (start, end, step, dtype) in enumerate(rows):
            if "start" not in names and start != 0 or "step" not in names and step != 1:
                continue
            if size == "small" and ("step" not in names and "start" in names and start == 0 and i % 2
                                    or "step" in names and ov.writes and i % 3 == 0):
                continue  # thinned: `arange.start` is mostly `start != 0`; `start_out` two rows in three
            values: dict[str, Any] = {"start": start, "end": end, "step": step}
            out = dtype or _arange_dtype(start, end, step)
            yield _creation(ov, values, dtype, out, i)

    return samples_of(ov, grid())


# --- empty_strided, new_empty_strided --------------------------------------------------------------

STRIDED = [([], []), ([0], [1]), ([7], [1]), ([7], [3]), ([33, 65], [1, 33]), ([3, 5, 17], [85, 1, 5]),
           ([2, 3], [0, 1]), ([2, 0, 3], [5, 7, 1]), ([4, 6], [12, 2]), ([5, 1, 4], [4, 99, 1]),
           ([3, 4, 5], [1, 3, 12]), ([6, 2], [1, 6])]
STRIDED_DTYPES = (None, F16, BF16, I32, BOOL, F64, I64, U8)


def strided_sampler(ov: Overload, size: Size):
    """`empty_strided`/`new_empty_strided`: size/stride pairs (column-major, gaps, stride 0,
    zero-size dims, 0-d) x dtypes; the out= forms (which ATen resizes to contiguous) take every other."""
    if size != "small":
        return ()
    with_self = any(p.name == "self" for p in ov.params)

    def grid() -> Iterator[dict[str, Any]]:
        for i, (shape, stride) in enumerate(STRIDED):
            if ov.writes and i % 2:
                continue
            dtype = STRIDED_DTYPES[i % len(STRIDED_DTYPES)]
            values: dict[str, Any] = {"size": shape, "stride": stride}
            if with_self:
                values = {"self": TensorSpec((3,), FILL_DTYPES[i % len(FILL_DTYPES)]), **values}
                dtype = dtype if i % 2 else None
                if not ov.writes:
                    values["dtype"] = dtype
                    if i % 3 == 0:
                        values["device"] = DEVICE
                    if i % 4 == 2:
                        values.update(EXTRA)
                yield values
            else:
                yield _creation(ov, values, dtype, dtype or F32, i)

    return samples_of(ov, grid())


NOTES_KWARGS = "Layouts other than strided (ATen has sparse factories) and pin_memory=True are not drawn."
NOTES_FILL = ("Fill values ATen refuses (a finite value that overflows the dtype, NaN or Inf into an integer) are "
              "not drawn.")
NOTES_ARANGE = ("An int64 result of non-integer bounds is not drawn: this torch truncates the bounds before computing "
                "the length for int64 only, and newer sources do not. Integer results whose step truncates to 0 "
                "(every value is then start), values that overflow the dtype and bool results (ATen refuses them) "
                "are not drawn.")
NOTES_FILL_TENSOR = ("fill_.Tensor is not drawn with an expanded self (ATen raises: internal overlap), with a value "
                     "tensor that aliases self, or with a CPU value tensor for a CUDA self (ATen reads it on the host; "
                     "every tensor of a case is on the case's device).")

# Creations and fills with values: the fill is a Triton kernel, nothing is read (see `written_traffic`).
data_operator = partial(aten_operator, work="data", traffic=written_traffic)
# Where memory_format or contiguity is part of the contract, the strides are judged too.
strided_data_operator = partial(data_operator, compare="values_and_strides")

OPERATORS: dict[str, Callable[[], Operator]] = {
    "zeros": partial(strided_data_operator, "zeros", "creation",
                     "A contiguous tensor of zeros of the given size and dtype.", sized_sampler(ZEROS),
                     notes=NOTES_KWARGS),
    "full": partial(strided_data_operator, "full", "creation",
                    "A contiguous tensor of the given size filled with a scalar; dtype=None infers int64/bool/float32 "
                    "from it.", sized_sampler(FULLS, perf_fill=-INF), notes=f"{NOTES_FILL} {NOTES_KWARGS}"),
    "ones_like": partial(strided_data_operator, "ones_like", "creation",
                         "A tensor of ones with the shape (and, by memory_format, the strides) of the input.",
                         like_sampler, notes=NOTES_KWARGS),
    "zeros_like": partial(strided_data_operator, "zeros_like", "creation",
                          "A tensor of zeros with the shape (and, by memory_format, the strides) of the input.",
                          like_sampler, notes=NOTES_KWARGS),
    "new_ones": partial(strided_data_operator, "new_ones", "creation",
                        "A contiguous tensor of ones of the given size, with self's dtype and device unless given.",
                        new_sampler, notes=NOTES_KWARGS),
    "scalar_tensor": partial(data_operator, "scalar_tensor", "creation",
                             "A 0-d tensor holding a scalar (float32 unless a dtype is given).", scalar_sampler,
                             notes=f"{NOTES_FILL} {NOTES_KWARGS}"),
    "fill_": partial(data_operator, "fill_", "fill",
                     "Fill self in place with a scalar or a 0-d tensor's value, converted to self's dtype.",
                     fill_sampler("fill"), notes=f"{NOTES_FILL} {NOTES_FILL_TENSOR}"),
    "zero_": partial(data_operator, "zero_", "fill", "Fill self in place with zeros.", fill_sampler("zero")),
    "arange": partial(strided_data_operator, "arange", "creation",
                      "Values start + i * step for i < ceil((end - start) / step), the length computed in double.",
                      arange_sampler, notes=f"{NOTES_ARANGE} {NOTES_KWARGS}"),
    "empty_strided": partial(aten_operator, "empty_strided", "creation",
                             "An uninitialised tensor with the given sizes and strides.",
                             strided_sampler, work="view", compare="strides"),
    "new_empty_strided": partial(aten_operator, "new_empty_strided", "creation",
                                 "An uninitialised tensor with the given sizes and strides, self's dtype and device "
                                 "unless given.", strided_sampler, work="view", compare="strides"),
}
