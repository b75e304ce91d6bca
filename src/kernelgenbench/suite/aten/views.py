"""View operators: results that alias their input (metadata only), and the copies some of them make.

Every record shares one sampler: each small shape in every layout it can take (contiguous,
transposed, strided with storage offset 1, expanded), dtypes in turn (int64 and bool among the
floats, so a copy that goes through float32 is caught), times a few argument variants per input
chosen by the operator (negative dims and indices, -1 sizes, zero-size results, new leading dims
of size one, whose stride ATen defines too). Aliasing is judged from the native result: same input,
storage offset relative to the input's, strides. Only the cases where ATen copies (`reshape` of a
non-viewable input, the `out=` forms of the splits) have a "large" tier; view operators are not timed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

import torch

from ..build import LAYOUTS, describe_value
from ..spec import Layout, Operator, Overload, Sample, Size, TensorSpec
from .family import aten_operator, only_present

Variants = Callable[[Overload, tuple[int, ...], Layout, int], Iterable[dict[str, Any]]]
Shape = tuple[int, ...]

SMALL: list[Shape] = [(), (1,), (7,), (33, 65), (3, 5, 17), (0, 4)]
# `expand`/`expand_as`: size-one dims to broadcast, first, last and between others.
SINGLETONS: list[Shape] = [(), (1,), (7,), (1, 65), (33, 1), (3, 1, 17), (1, 0)]
MATRICES: list[Shape] = [(), (1,), (7,), (33, 65), (1, 9), (0, 4)]  # `t`: at most 2 dims
DTYPES = (torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.bool)


def _spec(shape: Shape, dtype: torch.dtype, layout: Layout) -> TensorSpec:
    if dtype == torch.int64:  # beyond float32's 24-bit mantissa: a copy through float32 is caught
        return TensorSpec(shape, dtype, layout, "uniform", -2.0**40, 2.0**40)
    if dtype == torch.bool:
        return TensorSpec(shape, dtype, layout, "uniform")
    return TensorSpec(shape, dtype, layout)


def _layouts(shape: Shape) -> Iterator[Layout]:
    """The layouts a shape can take: none for 0-d, no transposed or expanded view below two dims
    or with a zero-size dim."""
    for layout in LAYOUTS:
        if layout == "contiguous" or (shape and (layout == "strided" or (len(shape) >= 2 and 0 not in shape))):
            yield layout


def inputs(shapes: Iterable[Shape]) -> Iterator[tuple[Shape, torch.dtype, Layout]]:
    """Every shape in every layout it can take; dtypes in turn."""
    i = 0
    for shape in shapes:
        for layout in _layouts(shape):
            yield shape, DTYPES[i % len(DTYPES)], layout
            i += 1


def _describe(v: Any) -> str:
    if isinstance(v, TensorSpec) and v.dist == "index" and v.shape == () and v.high == v.low + 1:
        return f"tensor({int(v.low)})"  # a 0-d index tensor: its value is part of the case
    return describe_value(v)


def _samples(ov: Overload, grid: Iterable[dict[str, Any]]) -> Iterator[Sample]:
    seen: set[str] = set()
    for values in grid:
        values = only_present(ov, values)
        label = ", ".join(f"{k}={_describe(v)}" for k, v in values.items())
        if label not in seen:
            seen.add(label)
            yield Sample(values=values, label=label)


def view_sampler(variants: Variants, shapes: list[Shape] = SMALL,
                 large: Callable[[Overload], Iterable[dict[str, Any]]] | None = None):
    """Small: each input of `inputs(shapes)` with the argument dicts `variants` gives for it.
    Large: what `large` gives, for the overloads and cases where ATen copies; never perf."""

    def sampler(ov: Overload, size: Size):
        if size == "small":
            grid = ({"self": _spec(shape, dtype, layout), **args}
                    for k, (shape, dtype, layout) in enumerate(inputs(shapes))
                    for args in variants(ov, shape, layout, k))
        elif size == "large" and large is not None:
            grid = large(ov)
        else:
            return ()
        return _samples(ov, grid)

    return sampler


def _pick(options: list[Any], k: int, n: int) -> list[Any]:
    """`n` of `options`, starting at a position that moves with the input index `k`."""
    return [options[(k * n + j) % len(options)] for j in range(min(n, len(options)))]


# --- as_strided ------------------------------------------------------------------------------


def _storage_elements(shape: Shape, layout: Layout) -> int:
    """Elements from the start of the storage that every draw of this input holds (the layout's own
    and the contiguous one the case checker uses): an expanded input's storage is one slice."""
    n = math.prod(shape)
    return n // shape[0] if layout == "expanded" and n else n


def as_strided_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    """Windows that stay inside the storage: flat, rows, a transposed order, overlapping (unfold),
    a broadcast (stride 0), a 0-d and an empty result; `storage_offset` None (the input's own) or
    absolute (for the strided layout, whose offset is 1, an absolute 0 lies before the input)."""
    cap = _storage_elements(shape, layout)
    found: list[tuple[list[int], list[int], int | None]] = [([0, 2], [2, 1], None)]
    if cap >= 1:
        found += [([cap], [1], None), ([], [], cap - 1), ([2, 1], [0, 1], 0)]
    if cap >= 4:
        b = max(2, cap // 3)
        a = (cap - 1) // b
        w = min(cap, 5)
        found += [([a, b - 1], [b, 1], None),            # rows, skipping one element each
                  ([b - 1, a], [1, b], 1),               # the transposed order
                  ([cap - 3, 4], [1, 1], 0),             # overlapping windows
                  ([3, w], [0, 1], cap - w),             # a broadcast row at the end
                  ([(cap - cap // 4 + 1) // 2], [2], cap // 4)]
    return [{"size": s, "stride": st, "storage_offset": o} for s, st, o in _pick(found[1:], k, 3)] + (
        [{"size": found[0][0], "stride": found[0][1], "storage_offset": found[0][2]}] if k % 4 == 3 else [])


# --- expand, expand_as -------------------------------------------------------------------------


def _expansions(shape: Shape) -> list[list[int]]:
    """Targets for `shape`: new leading dims (of size one too, whose stride ATen sets from the next
    dim), size-one dims broadcast (also to zero), -1 for dims kept, and the shape itself."""
    ones = [3 if n == 1 else n for n in shape]
    found = [[2, *[-1] * len(shape)], [*shape], [1, *ones], [*ones], [4, 1, *shape]]
    if 1 in shape:
        i = shape.index(1)
        found.append([*shape[:i], 0, *[-1] * (len(shape) - i - 1)])
    return found


def expand_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    return [{"size": s, "implicit": (k + j) % 3 == 2} for j, s in enumerate(_pick(_expansions(shape), k, 3))]


def expand_as_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    out = []
    for j, target in enumerate(_pick(_expansions(shape), k, 3)):
        full = [shape[len(shape) - len(target) + i] if n == -1 else n for i, n in enumerate(target)]
        dtype = (torch.float32, torch.int64, torch.float16)[(k + j) % 3]  # only its shape matters
        out.append({"other": TensorSpec(tuple(full), dtype, "contiguous")})
    return out


# --- narrow, select, unsqueeze, t ----------------------------------------------------------------


def _interleave(groups: list[list[Any]]) -> list[Any]:
    """The first of every group, then the second of every group, ...: consecutive picks vary the dim."""
    return [g[i] for i in range(max(map(len, groups), default=0)) for g in groups if i < len(g)]


def _dims(shape: Shape, k: int) -> list[int]:
    """A positive and a negative spelling of dims, varied with k."""
    n = len(shape)
    return [d if (k + d) % 2 else d - n for d in range(n)]


def narrow_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    tensor_start = ov.param("start").type == "Tensor"
    if not shape:
        return []  # narrow of a 0-d tensor is an error
    per_dim = []
    for dim in _dims(shape, k):
        n = shape[dim]
        per_dim.append([(dim, 0, n), (dim, -n, n // 2), (dim, 1, n - 2), (dim, -2, 1)] if n >= 3 else
                       [(dim, 0, n), (dim, -n, n // 2)])
    last = _dims(shape, k)[-1]
    found = [*_interleave(per_dim), (last, shape[last], 0)]  # an empty view starting at the end
    out = []
    for dim, start, length in _pick(found, k, 2):  # two overloads share ~60 cases
        index = TensorSpec((), torch.int64, dist="index", low=start, high=start + 1)
        out.append({"dim": dim, "start": index if tensor_start else start, "length": length})
    return out


def select_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    found = _interleave([[(dim, i) for i in dict.fromkeys((-1, shape[dim] // 2, 0, -shape[dim], shape[dim] - 1))]
                         for dim in _dims(shape, k) if shape[dim]])
    return [{"dim": d, "index": i} for d, i in _pick(found, k, 3)]


def unsqueeze_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    n = len(shape)
    return [{"dim": d} for d in _pick([*range(-n - 1, n + 1)], k, 3)]


def no_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    return [{}]


# --- reshape -----------------------------------------------------------------------------------


def _reshapes(shape: Shape) -> list[list[int]]:
    """Targets for `shape`: flat, -1 in several places, dims split and merged, size-one dims added."""
    n = math.prod(shape)
    if not shape:
        return [[1, 1], [-1], []]
    if n == 0:
        return [[4, 0], [2, -1, 2], [-1, *shape[1:]], [1, *shape]]  # -1 is inferred from the other dims
    found = [[-1], [*shape, 1], [1, -1]]
    if len(shape) >= 2:
        found += [[shape[-1], -1], [-1, shape[-1]], [shape[0] * shape[1], *shape[2:]], [*shape[:-2], -1]]
    if len(shape) >= 3:
        found += [[shape[0], -1], [shape[0], shape[1] * shape[2]]]
    if n > 1 and len(shape) == 1:
        found += [[n, 1, 1], [1, n]]
    return found


def reshape_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    return [{"shape": s} for s in _pick(_reshapes(shape), k, 3)]


def reshape_large(ov: Overload) -> list[dict[str, Any]]:
    """Only inputs ATen cannot view with the new shape, so it copies (large data for the kernel)."""
    rows = [((1025, 4097), "transposed", [-1]), ((1025, 4097), "strided", [4097, 1025]),
            ((1025, 4097), "expanded", [-1]), ((8, 512, 1023), "transposed", [8, -1]),
            ((8, 512, 1023), "strided", [8, 512 * 1023]), ((8, 512, 1023), "expanded", [4096, 1023])]
    dtypes = (torch.float32, torch.bfloat16, torch.int64)
    return [{"self": _spec(shape, dtypes[i % 3], layout), "shape": target}
            for i, (shape, layout, target) in enumerate(rows)]


# --- unsafe_split, unsafe_split_with_sizes ------------------------------------------------------


def _parts(n: int) -> list[list[int]]:
    """Ways to cut a dim of size n: uneven, with empty parts, one part."""
    if n == 0:
        return [[0], [0, 0]]
    found = [[n], [n - 1, 1] if n > 1 else [0, 1]]
    if n >= 3:
        found += [[n // 3, 0, n - n // 3], [1, 1, n - 2]]
    return found


def split_variants(ov: Overload, shape: Shape, layout: Layout, k: int) -> list[dict[str, Any]]:
    if not shape:
        return []  # a split of a 0-d tensor is an error
    out = []
    for j, dim in enumerate(_dims(shape, k)[:2]):
        n = shape[dim]
        if "with_sizes" in ov.name:
            parts = _parts(n)
            out.append({"split_sizes": parts[(k + j) % len(parts)], "dim": dim})
        else:
            sizes = [2, n, n + 3, max(1, n // 3)] if n else [0, 3]
            out.append({"split_size": sizes[(k + j) % len(sizes)], "dim": dim})
    return out


def split_large(ov: Overload) -> list[dict[str, Any]]:
    """The `out=` forms copy every part into its own buffer: large data for their kernels."""
    if not ov.writes:
        return []
    rows = [((1025, 4097), "transposed", 1, 1000, [4000, 0, 97]), ((1025, 4097), "strided", 0, 512, [1, 1000, 24]),
            ((8, 512, 1023), "expanded", -1, 300, [511, 512]), ((8, 512, 1023), "contiguous", 1, 100, [3, 509])]
    dtypes = (torch.float32, torch.bfloat16, torch.int64, torch.float16)
    out = []
    for i, (shape, layout, dim, size, sizes) in enumerate(rows):
        args = {"split_sizes": sizes} if "with_sizes" in ov.name else {"split_size": size}
        out.append({"self": _spec(shape, dtypes[i], layout), **args, "dim": dim})
    return out


# --- records -----------------------------------------------------------------------------------

_view = partial(aten_operator, family="view", work="view")

OPERATORS: dict[str, Callable[[], Operator]] = {
    "as_strided": partial(
        _view, "as_strided",
        doc="A view of self's storage with the given sizes, strides and storage offset (absolute in the storage, "
            "not relative to self; None keeps self's).",
        sampler=view_sampler(as_strided_variants),
        notes="Windows are drawn inside the storage every draw of the input has; out-of-storage sizes raise."),
    "expand": partial(
        _view, "expand",
        doc="A view with size-one dims broadcast (stride 0) and new leading dims; -1 keeps a dim's size.",
        sampler=view_sampler(expand_variants, SINGLETONS)),
    "expand_as": partial(
        _view, "expand_as", doc="self expanded to other's shape, as a view.",
        sampler=view_sampler(expand_as_variants, SINGLETONS)),
    "narrow": partial(
        _view, "narrow",
        doc="A view of `length` entries of dim `dim` from `start` (negative start counts from the end; "
            "narrow.Tensor takes start as a 0-d integer tensor).",
        sampler=view_sampler(narrow_variants),
        notes="narrow.Tensor's start is a 0-d int64 tensor: its value places the view, so it is read on the "
              "host (as ATen does), which the host-code rule allows view operators."),
    "reshape": partial(
        _view, "reshape",
        doc="self with a new shape (-1 inferred): a view when the strides allow one, else a contiguous copy.",
        sampler=view_sampler(reshape_variants, large=reshape_large)),
    "select": partial(
        _view, "select",
        doc="The slice of self at `index` of dim `dim` (both may be negative), as a view with that dim removed.",
        sampler=view_sampler(select_variants)),
    "t": partial(
        _view, "t", doc="The transpose of a tensor of at most 2 dims (0-d and 1-d: itself), as a view.",
        sampler=view_sampler(no_variants, MATRICES)),
    "unsqueeze": partial(
        _view, "unsqueeze", doc="A view with a size-one dim inserted at `dim` (negative counts from the end).",
        sampler=view_sampler(unsqueeze_variants)),
    "unsafe_split": partial(
        _view, "unsafe_split",
        doc="self cut along `dim` into parts of split_size (the last may be smaller), as views; the out= form "
            "copies the parts into the given list.",
        sampler=view_sampler(split_variants, large=split_large)),
    "unsafe_split_with_sizes": partial(
        _view, "unsafe_split_with_sizes",
        doc="self cut along `dim` into parts of the given sizes (zeros allowed), as views; the out= form copies "
            "the parts into the given list.",
        sampler=view_sampler(split_variants, large=split_large)),
}
