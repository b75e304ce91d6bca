"""Indexing and joining operators: index_select, gather, embedding, cat, stack, scatter, index,
index_put_, _index_put_impl_, rot90.

Index tensors are drawn in range (`dist="index"`): an out-of-range index makes ATen raise (a device
assert on CUDA), which cannot be judged, so none is drawn. Where ATen's result is undefined with
repeated indices (a plain scatter, a non-accumulating put), they are drawn without repeats
(`dist="unique"`). Joining grids mix sizes along `dim`, negative dims, empty tensors, dtypes that
promote, and non-contiguous inputs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import cycle
from typing import Any

import torch

from ..build import FLOATS, LAYOUTS, SUM_TOLERANCE, covering
from ..spec import Layout, Operator, OutputSpec, Overload, Size, TensorSpec
from .family import aten_operator, samples_of
from .reduce import functional_perf

F32, F16, BF16, F64 = torch.float32, torch.float16, torch.bfloat16, torch.float64
I64, I32, BOOL = torch.int64, torch.int32, torch.bool


def gather_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """A gather reads the index and only the slices it selects (as many bytes as it writes)."""
    index = values["index"]
    written = sum(t.numel() * t.element_size() for t in outputs if isinstance(t, torch.Tensor))
    return 2 * written + index.numel() * index.element_size()


def embedding_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """An embedding lookup reads the ids and only the rows they pick (as many bytes as it writes)."""
    return gather_traffic(ov, {"index": values["indices"]}, outputs)


SHAPES = {
    "small": [(), (1,), (9,), (33, 65), (3, 5, 17), (0, 4), (6, 0)],
    "large": [(50257, 1024), (64, 1024, 33)],
    "perf": [(128256, 4096), (4096, 8192)],
}
INDEX_LEN = {"small": (1, 5, 0, 40), "large": (4096, 513), "perf": (8192,)}


def index_select_sampler(ov: Overload, size: Size):
    layouts = ("contiguous",) if size == "perf" else ("contiguous", "transposed", "strided", "expanded")

    def grid():
        lengths = INDEX_LEN[size]
        for i, (shape, dtype, layout) in enumerate(covering(SHAPES[size], FLOATS, layouts)):
            dim = 0 if len(shape) <= 1 or i % 2 == 0 else len(shape) - 1
            extent = shape[dim] if shape else 1
            if not shape:
                length = 1  # a 0-d self takes exactly one index
            elif extent == 0:
                length = 0
            else:
                length = lengths[i % len(lengths)]
            index_dtype = torch.int32 if i % 5 == 4 else torch.int64
            yield {
                "self": TensorSpec(shape, dtype, layout),
                "dim": dim,
                "index": TensorSpec((length,), index_dtype, dist="index", low=0, high=max(extent, 1)),
            }

    return samples_of(ov, grid())


# ---- shared pieces of the gather / embedding / cat / stack grids --------------------------------

def fit(layout: Layout, shape: tuple[int, ...]) -> Layout:
    """The layout a shape can take (as `covering` does): transposed and expanded need two
    non-empty dims, strided needs one."""
    if not shape:
        return "contiguous"
    if len(shape) < 2 or 0 in shape:
        return "contiguous" if layout in ("transposed", "expanded") else layout
    return layout


def drawn(shape: tuple[int, ...], dtype: torch.dtype, layout: Layout) -> TensorSpec:
    """An input tensor of any dtype: floats normal, integers over a signed range, bools as drawn."""
    if dtype.is_floating_point or dtype == BOOL:
        return TensorSpec(shape, dtype, fit(layout, shape))
    return TensorSpec(shape, dtype, fit(layout, shape), dist="uniform", low=-100, high=100)


def ids(shape: tuple[int, ...], dtype: torch.dtype, extent: int, layout: Layout = "contiguous") -> TensorSpec:
    """Indices drawn in [0, extent): in range, with repeats wherever there are more ids than slots."""
    return TensorSpec(shape, dtype, fit(layout, shape), dist="index", low=0, high=max(extent, 1))


def tiers(ov: Overload, size: Size, table: dict[str, list[Any]]) -> list[Any]:
    """The table rows of a tier; perf rows only for the functional overload, every other small
    row for an `out=` form (its semantics are the functional's plus the write)."""
    if ov.writes and size == "perf":
        return []
    rows = table[size]
    return rows[::2] if ov.writes and size == "small" else rows


# ---- gather ---------------------------------------------------------------------------------------

# (self shape, index shape, dim): index dims <= self's except along dim, where it may be longer.
GATHER = {
    "small": [
        ((), (), 0), ((), (1,), -1), ((9,), (5,), 0), ((9,), (20,), -1), ((9,), (0,), 0),
        ((33, 65), (33, 65), 1), ((33, 65), (20, 100), 1), ((33, 65), (40, 7), 0), ((33, 65), (33, 1), -1),
        ((3, 5, 17), (2, 5, 9), -1), ((3, 5, 17), (3, 4, 17), 1), ((3, 5, 17), (6, 2, 3), -3),
        ((0, 4), (0, 4), 1), ((6, 0), (2, 0), 1),
    ],
    "large": [((4096, 2048), (4096, 513), 1), ((8, 1024, 513), (8, 1024, 513), 1), ((2048, 4097), (3000, 64), 0)],
    "perf": [((8, 4096, 4096), (8, 2048, 4096), 1), ((16384, 8192), (16384, 1024), 1),
             ((4096, 4096), (4096, 4096), 0)],
}
GATHER_DTYPES = (*FLOATS, I64)
INDEX_LAYOUTS: tuple[Layout, ...] = ("contiguous", "transposed", "contiguous", "expanded", "strided")


def gather_sampler(ov: Overload, size: Size):
    perf = size == "perf"
    layouts = cycle(("contiguous",) if perf else LAYOUTS)
    index_layouts = cycle(("contiguous",) if perf else INDEX_LAYOUTS)
    dtypes = cycle((BF16, F32, F32) if perf else GATHER_DTYPES)
    repeats = 2 if size != "perf" and not ov.writes else 1

    def grid() -> Iterator[dict[str, Any]]:
        for i, (shape, index_shape, dim) in enumerate(tiers(ov, size, GATHER) * repeats):
            extent = shape[dim] if shape else 1
            values = {
                "self": drawn(shape, next(dtypes), next(layouts)),
                "dim": dim,
                "index": ids(index_shape, I32 if i % 4 == 3 else I64, extent, next(index_layouts)),
            }
            if i == 6:
                values["sparse_grad"] = True  # backward-only flag: the forward is the same gather
            yield values

    return samples_of(ov, grid())


# ---- embedding ------------------------------------------------------------------------------------

# (weight shape, indices shape, extra arguments): padding_idx, scale_grad_by_freq and sparse only
# change the backward; the forward looks every id up as-is, the padding row included.
EMBEDDING = {
    "small": [
        ((10, 8), (), {}), ((10, 8), (1,), {}), ((10, 8), (40,), {"padding_idx": 3}),
        ((33, 65), (5, 7), {}), ((33, 65), (2, 3, 4), {"padding_idx": 0, "scale_grad_by_freq": True}),
        ((1, 17), (6,), {}), ((7, 300), (3, 5), {"sparse": True}), ((5, 0), (4,), {}),
        ((0, 4), (0,), {}), ((10, 8), (0, 3), {}), ((33, 65), (9, 20), {"padding_idx": 32}),
    ],
    "large": [((50257, 1024), (4, 1024), {}), ((32000, 4096), (2048,), {"padding_idx": 0}),
              ((1000, 4097), (3, 5, 7), {})],
    "perf": [((128256, 4096), (8192,), {}), ((151936, 3584), (4, 4096), {}),
             ((32000, 4096), (16, 1024), {"padding_idx": 0}), ((50257, 768), (8, 2048), {})],
}


def embedding_sampler(ov: Overload, size: Size):
    perf = size == "perf"
    layouts = cycle(("contiguous",) if perf else LAYOUTS)
    index_layouts = cycle(("contiguous",) if perf else INDEX_LAYOUTS)
    dtypes = cycle((BF16, BF16, F16, F32) if perf else FLOATS)
    repeats = 2 if size != "perf" and not ov.writes else 1

    def grid() -> Iterator[dict[str, Any]]:
        for i, (shape, index_shape, extra) in enumerate(tiers(ov, size, EMBEDDING) * repeats):
            yield {
                "weight": drawn(shape, next(dtypes), next(layouts)),
                "indices": ids(index_shape, I32 if i % 3 == 2 else I64, shape[0], next(index_layouts)),
                **extra,
            }

    return samples_of(ov, grid())


# ---- cat and stack --------------------------------------------------------------------------------

# (shapes, dim, dtypes): dtypes None takes one floating dtype for the whole list, in turn.
Join = tuple[Sequence[tuple[int, ...]], int, Sequence[torch.dtype] | None]
# "out_cast" rows (shapes, dim, dtypes, out dtype) go to the `out=` form only.
CAT: dict[str, list[Any]] = {
    "small": [
        ([(3, 5), (4, 5)], 0, None), ([(3, 5), (3, 7), (3, 1)], -1, None),
        ([(2, 3, 4), (2, 5, 4), (2, 0, 4), (2, 1, 4)], 1, None), ([(7,), (9,)], 0, None),
        ([(1,)], 0, None), ([(0,), (3, 4), (2, 4)], 0, None),  # legacy rule: a 1-d empty tensor is skipped
        ([(3, 4), (0,), (3, 6)], 1, None), ([(0,), (0,)], 0, None),
        ([(2, 3, 4, 5), (2, 3, 4, 7)], 3, None), ([(2, 3, 4, 5), (1, 3, 4, 5), (3, 3, 4, 5)], -4, None),
        ([(33, 65), (33, 64)], 1, None), ([(0, 4), (5, 4)], 0, None),
        ([(3, 5), (4, 5)], 0, (F16, F32)), ([(3, 5), (3, 2)], 1, (BF16, F16)), ([(4,), (5,)], 0, (I64, F32)),
        ([(0,), (3, 4), (2, 4)], 0, (F64, F16, F16)),  # the skipped tensor still takes part in promotion
        ([(2, 3), (2, 3)], 0, (BOOL, I32)), ([(5,), (3,)], -1, (BOOL, BOOL)),
    ],
    "large": [([(1025, 4097), (1025, 31)], 1, None), ([(8, 512, 1023)] * 3, 0, None),
              ([(513, 4097), (1000, 4097)], 0, (F16, F32))],
    # out= buffers of another dtype than the promoted one: the copy converts to out's dtype.
    "out_cast": [([(3, 5), (4, 5)], 0, (F16, BF16), F64), ([(7,), (9,)], -1, (F32, F32), BF16),
                 ([(2, 3), (2, 1)], 1, (I64, I32), F32)],
    "perf": [([(8, 32, 4096, 128)] * 2, 2, (BF16, BF16)), ([(8192, 4096), (8192, 1024), (8192, 1024)], 1, (BF16,) * 3),
             ([(4096, 4096)] * 4, 0, (F32,) * 4), ([(16384, 32, 64)] * 2, -1, (BF16, BF16))],
}
STACK: dict[str, list[Any]] = {
    "small": [
        ([(3, 5)] * 3, 0, None), ([(3, 5)] * 2, 2, None), ([(3, 5)] * 4, -1, None), ([(3, 5)], -3, None),
        ([()] * 3, 0, None), ([()], -1, None), ([(7,)] * 2, 1, None), ([(0, 4)] * 3, 1, None),
        ([(0,)] * 2, 0, None), ([(2, 3, 4)] * 2, 1, None), ([(33, 65)] * 2, 1, None), ([(1,)] * 4, 0, None),
        ([(3, 5)] * 2, 1, (F16, F32)), ([(4,)] * 2, 0, (BF16, F16)), ([(2, 3)] * 3, -1, (I64, F32, BOOL)),
        ([(6,)] * 2, 0, (BOOL, BOOL)),
    ],
    "large": [([(1025, 4097)] * 3, 1, None), ([(8, 512, 1023)] * 2, -1, None)],
    "out_cast": [([(3, 5)] * 2, 1, (F16, BF16), F64), ([(7,)] * 3, -1, (F32, F32, F32), F16),
                 ([(2, 3)] * 2, 0, (BOOL, I32), F32)],
    "perf": [([(4096, 4096)] * 8, 0, (BF16,) * 8), ([(16384, 32, 64)] * 2, -1, (BF16, BF16)),
             ([(8192, 4096)] * 4, 1, (F32,) * 4)],
}


def join_sampler(table: dict[str, list[Any]], ov: Overload, size: Size):
    """Lists of 1-4 tensors, each with its own layout (taken in turn) and dtype; `out=` forms also
    get buffers of another dtype than the promoted one."""
    perf = size == "perf"
    layouts = cycle(("contiguous",) if perf else LAYOUTS)
    floats = cycle(FLOATS)
    repeats = 2 if size == "small" and not ov.writes else 1

    def grid() -> Iterator[dict[str, Any]]:
        for shapes, dim, dtypes in tiers(ov, size, table) * repeats:
            kinds = dtypes or [next(floats)] * len(shapes)
            yield {"tensors": [drawn(s, d, next(layouts)) for s, d in zip(shapes, kinds)], "dim": dim}
        if ov.writes and size == "small":
            for shapes, dim, kinds, out in table["out_cast"]:
                yield {"tensors": [drawn(s, d, next(layouts)) for s, d in zip(shapes, kinds)], "dim": dim,
                       "out": OutputSpec((), out)}

    return samples_of(ov, grid())


# ---- scatter --------------------------------------------------------------------------------------

# (self shape, index shape, src shape, dim): index no larger than src anywhere, nor than self
# outside `dim`; no empty index into a non-empty self (the result would be a copy of self, which a
# null candidate gives too).
SCATTER = {
    "small": [
        ((), (), (), 0), ((9,), (5,), (7,), 0), ((9,), (9,), (9,), -1), ((33, 65), (20, 30), (25, 40), 0),
        ((33, 65), (33, 50), (33, 65), 1), ((33, 65), (10, 65), (12, 70), -1), ((3, 5, 17), (3, 4, 9), (3, 5, 9), 1),
        ((3, 5, 17), (2, 5, 17), (3, 5, 17), -3), ((4, 300), (4, 128), (4, 300), 1), ((0, 4), (0, 4), (0, 4), 1),
        ((6, 0), (2, 0), (2, 0), 0), ((2, 3, 4, 5), (2, 3, 4, 4), (2, 3, 4, 5), 3),
    ],
    "large": [((4096, 2048), (4096, 513), (4096, 513), 1), ((1000, 4097), (777, 4097), (1000, 4097), 0)],
    "perf": [((4096, 8192), (4096, 1024), (4096, 1024), 1), ((8192, 4096), (2048, 4096), (2048, 4096), 0),
             ((32, 4096, 128), (32, 512, 128), (32, 512, 128), 1)],
}
REDUCE_LAYOUTS: tuple[Layout, ...] = ("contiguous", "transposed", "strided", "expanded")


def _quiet_scatter_reduce() -> None:
    """ATen warns once per process that scatter's `reduce=` is deprecated, straight to stderr when
    the call comes through torch.ops (as sizing the `out=` buffers does); taking that one warning
    through the Python binding, silenced, keeps building the record (and every CLI command) quiet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.zeros(1).scatter(0, torch.zeros(1, dtype=I64), torch.zeros(1), reduce="add")


def scatter_sampler(ov: Overload, size: Size):
    """Plain scatters draw indices that never repeat along `dim` (ATen's result is undefined where
    two writes meet); `reduce="add"` draws repeats, `"multiply"` repeats of values near 1."""
    _quiet_scatter_reduce()
    perf = size == "perf"
    names = {p.name for p in ov.params}
    reduce, scalar = "reduce" in names, "value" in names
    layouts = cycle(("contiguous",) if perf else LAYOUTS)
    index_layouts = cycle(("contiguous",) if perf else REDUCE_LAYOUTS)
    dtypes = cycle((BF16, F32) if perf else FLOATS if reduce else (*FLOATS, I64))
    modes = cycle(("add", "multiply", "add") if perf else ("add", "multiply"))

    def grid() -> Iterator[dict[str, Any]]:
        for i, (shape, index_shape, src_shape, dim) in enumerate(tiers(ov, size, SCATTER)):
            extent = shape[dim] if shape else 1
            dtype = next(dtypes)
            mode = next(modes) if reduce else None
            index_layout = next(index_layouts)
            if mode is None:
                # never expanded along `dim`, where the repeats would be
                if index_layout == "expanded" and (not shape or dim % len(shape) == 0):
                    index_layout = "contiguous"
                index = TensorSpec(index_shape, I32 if i % 4 == 3 else I64, fit(index_layout, index_shape),
                                   dist="unique", low=0, high=max(extent, 1), along=dim)
            else:
                index = ids(index_shape, I32 if i % 4 == 3 else I64, extent, index_layout)
            near_one = mode == "multiply"
            values: dict[str, Any] = {
                "self": (TensorSpec(shape, dtype, fit(next(layouts), shape), "uniform", 0.5, 1.5) if near_one
                         else drawn(shape, dtype, next(layouts))),
                "dim": dim,
                "index": index,
            }
            if scalar:
                values["value"] = (1.25 if near_one else -2.5 if dtype.is_floating_point else 7) if i % 2 else \
                    (0.75 if near_one else 3.0 if dtype.is_floating_point else -3)
            else:
                values["src"] = (TensorSpec(src_shape, dtype, "contiguous", "uniform", 0.75, 1.25) if near_one
                                 else drawn(src_shape, dtype, "contiguous" if perf or i % 3 else "transposed"))
            if mode is not None:
                values["reduce"] = mode
            yield values

    return samples_of(ov, grid())


# ---- index (advanced indexing) ---------------------------------------------------------------------

# (self shape, indices): an entry is None (that dim is sliced whole) or an index tensor's shape;
# the index tensors broadcast together, and where None separates them the broadcast dims come first
# (numpy's rule), else they stand where the indexed dims were.
INDEX = {
    "small": [
        ((9,), [(5,)]), ((9,), [()]), ((33, 65), [(40,)]), ((33, 65), [None, (7,)]),
        ((33, 65), [(4, 1), (1, 5)]), ((33, 65), [(2, 3), (2, 3)]), ((3, 5, 17), [(6,), None, (6,)]),
        ((3, 5, 17), [(2, 1), None, (4,)]), ((3, 5, 17), [None, (2, 3), (3,)]), ((3, 5, 17), [None, (4,)]),
        ((3, 5, 17), [(2, 2)]), ((0, 4), [None, (3,)]), ((6, 0), [(2,)]), ((33, 65), [(0,)]),
        ((2, 3, 4, 5), [None, (3,), None, (2, 1)]), ((4, 300), [(2,), (2,)]), ((50, 64), [(8, 3)]),
        ((33, 65), [("mask", 2, 300)]), ((33, 65), [("mask", 1, 20)]), ((3, 5, 17), [None, ("mask", 2, 30)]),
        ((3, 5, 17), [("mask", 1, 2), (2,)]), ((3, 5, 17), [("mask", 1, 0)]), ((9,), [("mask", 1, 9)]),
    ],
    "large": [((50257, 1024), [(4, 1024)]), ((64, 1024, 33), [None, (513,), None]),
              ((1024, 4097), [(2048,), None]), ((1000, 4097), [(777, 1), (1, 64)]),
              ((1024, 4097), [None, ("mask", 1, 1500)])],
    "perf": [((128256, 4096), [(8192,)]), ((16, 4096, 128), [None, (2048,)]),
             ((4096, 8192), [(4096, 1), (4096, 256)]), ((32, 8192, 256), [(32, 1), (32, 2048)]),
             ((8, 4096, 1024), [("mask", 2, 16384)])],
}


def index_sampler(ov: Overload, size: Size):
    """Index tensors (int64 and int32, some negative, some non-contiguous) that broadcast, with
    None slots before, between and after them, and bool masks (alone, after a None, beside an
    index tensor, none or all True); self of any dtype and layout."""
    perf = size == "perf"
    layouts = cycle(("contiguous",) if perf else LAYOUTS)
    index_layouts = cycle(("contiguous",) if perf else INDEX_LAYOUTS)
    dtypes = cycle((BF16, F32) if perf else (*FLOATS, I64, F32, BOOL))
    kinds = cycle((I64, I32, I64) if perf else (I64, I32, I64, I64, I32))
    signs = cycle((False,) if perf else (False, True, False))

    def grid() -> Iterator[dict[str, Any]]:
        for shape, entries in tiers(ov, size, INDEX):
            indices: list[TensorSpec | None] = []
            d = 0
            for entry in entries:
                if entry is None:
                    indices.append(None)
                    d += 1
                elif entry[:1] == ("mask",):  # a bool mask over the next k dims, with `count` True values
                    _, k, count = entry
                    indices.append(TensorSpec(shape[d:d + k], BOOL, dist="mask", high=count))
                    d += k
                else:
                    extent, negative = shape[d], next(signs)
                    indices.append(TensorSpec(entry, next(kinds), fit(next(index_layouts), entry), "index",
                                              -extent if negative else 0, max(extent, 1)))
                    d += 1
            yield {"self": drawn(shape, next(dtypes), next(layouts)), "indices": indices}

    return samples_of(ov, grid())


def index_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """Advanced indexing reads the index tensors and only the elements they pick."""
    written = sum(t.numel() * t.element_size() for t in outputs if isinstance(t, torch.Tensor))
    return 2 * written + sum(t.numel() * t.element_size() for t in values["indices"] if t is not None)


# ---- index_put_ and _index_put_impl_ ---------------------------------------------------------------

# (self shape, indices, values shape, accumulate): an entry is None, an index tensor's shape, or
# ("mask", k, n): a bool mask over the next k dims of self with exactly n True values. Where
# accumulate is False, the positions written are distinct (ATen's result is undefined where two
# writes meet): each index tensor draws distinct values and they broadcast as an outer product.
PUT = {
    "small": [
        ((9,), [(5,)], (5,), False), ((9,), [(40,)], (40,), True), ((9,), [(3,)], (), False),
        ((33, 65), [(20,)], (20, 65), True), ((33, 65), [(20,)], (65,), False),
        ((33, 65), [None, (7,)], (33, 7), True), ((33, 65), [(4, 1), (1, 5)], (4, 5), False),
        ((33, 65), [(6,), (6,)], (1,), True), ((33, 65), [(100,)], (1, 65), True),
        ((3, 5, 17), [(3,), None, (3,)], (3, 5), False), ((3, 5, 17), [None, (2, 1), (1, 3)], (2, 3), True),
        ((6, 5, 17), [(2, 2)], (1, 5, 17), False), ((2, 3, 4, 5), [None, (2,), None, (3, 1)], (2, 4), False),
        ((33, 65), [("mask", 2, 40)], (40,), False), ((33, 65), [("mask", 2, 25)], (), True),
        ((3, 5, 17), [None, ("mask", 1, 3)], (3, 3, 17), True), ((3, 5, 17), [None, ("mask", 2, 10)], (1,), False),
        ((0, 4), [None, (2,)], (0, 2), False), ((5, 0), [(3,)], (3, 0), True),
    ],
    "large": [((50257, 1024), [(4096,)], (4096, 1024), True), ((1000, 4097), [(777,)], (777, 4097), False),
              ((1024, 4097), [None, ("mask", 1, 2000)], (), False)],
    "perf": [((32000, 4096), [(8192,)], (8192, 4096), True), ((128256, 4096), [(8192,)], (8192, 4096), False),
             ((16, 4096, 1024), [None, ("mask", 1, 2048)], (), False), ((4096, 8192), [(4096, 1), (4096, 256)],
                                                                          (4096, 256), True)],
}
PUT_LAYOUTS: tuple[Layout, ...] = ("contiguous", "transposed", "strided")  # an expanded self cannot be written


def put_sampler(ov: Overload, size: Size):
    """Index tensors with None slots and bool masks, values that broadcast, accumulate both ways:
    distinct positions without it, repeats with it (summed: the sum tolerance)."""
    perf = size == "perf"
    layouts = cycle(("contiguous",) if perf else PUT_LAYOUTS)
    value_layouts = cycle(("contiguous",) if perf else ("contiguous", "transposed", "contiguous", "expanded"))
    floats = cycle((BF16, F32) if perf else FLOATS)
    exact = cycle((I64, BOOL))
    kinds = cycle((I64, I32, I64) if perf else (I64, I32, I64, I64, I32))
    signs = cycle((False,) if perf else (False, True, False))

    def index(shape: tuple[int, ...], extent: int, accumulate: bool) -> TensorSpec:
        kind, layout, negative = next(kinds), fit(next(value_layouts), shape), next(signs)
        if accumulate:
            return TensorSpec(shape, kind, layout, "index", -extent if negative else 0, max(extent, 1))
        if layout == "expanded":
            layout = "contiguous"
        # distinct positions: all from [0, extent) or all from [-extent, 0), never both
        return TensorSpec(shape, kind, layout, "unique", -extent if negative else 0, extent if not negative else 0)

    def grid() -> Iterator[dict[str, Any]]:
        for i, (shape, entries, values_shape, accumulate) in enumerate(PUT[size]):  # in place: every tier
            dtype = next(floats) if accumulate or perf or i % 3 else next(exact)
            indices: list[TensorSpec | None] = []
            d = 0
            for entry in entries:
                if entry is None:
                    indices.append(None)
                    d += 1
                elif entry[0] == "mask":
                    _, k, count = entry
                    indices.append(TensorSpec(shape[d:d + k], BOOL, dist="mask", high=count))
                    d += k
                else:
                    indices.append(index(entry, shape[d], accumulate))
                    d += 1
            values = {"self": drawn(shape, dtype, next(layouts)), "indices": indices,
                      "values": drawn(values_shape, dtype, next(value_layouts)), "accumulate": accumulate}
            if "unsafe" in {p.name for p in ov.params}:
                values["unsafe"] = bool(i % 2)  # skips checks only: the same result
            yield values

    return samples_of(ov, grid())


def put_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """A put reads the values and the indices and writes (with accumulate, also reads) only the
    elements they reach, not all of self (at least as many as values holds)."""
    v, self = values["values"], values["self"]
    touched = v.numel() * self.element_size() * (2 if values.get("accumulate") else 1)
    return touched + v.numel() * v.element_size() + sum(
        t.numel() * t.element_size() for t in values["indices"] if t is not None)


NOTES_INDEX = ("Indices are drawn in range: out-of-range ids make ATen raise (a device assert on CUDA), "
               "which cannot be judged.")

# ---- rot90 ----------------------------------------------------------------------------------------

# (self shape, dims pairs taken in turn): negative and reversed pairs; k runs through -5..5.
ROT90 = {
    "small": [((33, 65), ([0, 1], [1, 0])), ((1, 7), ([-2, -1],)), ((3, 5, 17), ([0, 2], [2, 1], [-1, 0])),
              ((2, 3, 4, 5), ([1, 3], [-1, -4])), ((0, 4), ([0, 1],)), ((6, 0), ([-1, 0],)),
              ((4, 300), ([0, -1], [1, 0])), ((5, 9), ([-2, 1],))],
    "large": [((1025, 4097), ([0, 1], [1, 0])), ((8, 512, 1023), ([1, 2], [-1, 0]))],
    "perf": [((8192, 8192), ([0, 1], [0, 1], [1, 0])), ((32, 1024, 1024), ([1, 2],))],
}
ROT90_K = (1, 2, 3, 0, -1, -2, -3, 4, -4, 5, -5)


def rot90_sampler(ov: Overload, size: Size):
    """Every k in -5..5 (0 and multiples of 4: a copy; odd k swaps the two dims' sizes), over
    dtypes and layouts."""
    perf = size == "perf"
    layouts = cycle(("contiguous",) if perf else LAYOUTS)
    dtypes = cycle((BF16, F32) if perf else (*FLOATS, I64, F32, F16, BOOL))
    ks = cycle((1, 2, -1, 4) if perf else ROT90_K)

    def grid() -> Iterator[dict[str, Any]]:
        rows = [(shape, dims) for shape, pairs in ROT90[size] for dims in pairs]
        if size == "small" and not ov.writes:
            rows += rows  # a second round of k for each (shape, dims)
        if ov.writes:
            rows = [] if perf else rows[::2] if size == "small" else rows
        for shape, dims in rows:
            yield {"self": drawn(shape, next(dtypes), next(layouts)), "k": next(ks), "dims": list(dims)}

    return samples_of(ov, grid())


PUT_DOC = ("In place, self[indices] = values (accumulate=False) or self[indices] += values (accumulate=True, "
           "repeated positions summed), returning self: the indices as for aten::index (index tensors that "
           "broadcast, None slots, bool masks over one or more dims), values broadcast to the indexed shape.")
NOTES_PUT = (NOTES_INDEX + " With accumulate=False, the positions written are distinct: ATen's result is undefined "
             "where two writes meet. A mask is drawn alone in the list (with None slots before it), not mixed "
             "with index tensors; values then have the mask's count or broadcast. An expanded self (overlapping "
             "memory) makes ATen raise: not drawn. Accumulation is drawn on floating dtypes; int64 and bool self "
             "without it.")

OPERATORS: dict[str, Callable[[], Operator]] = {
    "index_select": partial(aten_operator, "index_select", "index",
                            "Rows (or slices along `dim`) of self picked by an int index; repeats allowed.",
                            index_select_sampler, traffic=gather_traffic),
    "gather": partial(aten_operator, "gather", "index",
                      "out[i][j][k] = self[index[i][j][k]][j][k] (for dim 0): the output has index's shape; "
                      "index may be smaller than self outside `dim`.",
                      gather_sampler, traffic=gather_traffic, notes=NOTES_INDEX),
    "embedding": partial(aten_operator, "embedding", "index",
                         "Rows of a 2-d weight picked by integer ids of any shape: out = weight[indices]. "
                         "padding_idx, scale_grad_by_freq and sparse only change the backward.",
                         embedding_sampler, traffic=embedding_traffic, notes=NOTES_INDEX),
    "cat": partial(aten_operator, "cat", "index",
                   "Concatenate tensors along `dim` (dtypes promote; 1-d empty tensors are skipped).",
                   partial(join_sampler, CAT), work="data",
                   notes="A 0-d tensor makes ATen raise: not drawn. A list of 1-d empty tensors alone gives "
                         "an empty result."),
    "stack": partial(aten_operator, "stack", "index",
                     "Stack same-shaped tensors along a new dim `dim` (dtypes promote).",
                     partial(join_sampler, STACK), work="data"),
    "scatter": partial(aten_operator, "scatter", "index",
                       "A copy of self with out[index[i][j]][j] = src[i][j] (for dim 0; `value` for every "
                       "index with the Scalar forms); `reduce=\"add\"`/`\"multiply\"` combine with self and "
                       "with each other instead. index is no larger than src, nor than self outside `dim`.",
                       scatter_sampler, tolerance=SUM_TOLERANCE,
                       notes=NOTES_INDEX + " Without `reduce`, indices never repeat along `dim` (each fiber is "
                             "part of a permutation): ATen's result is undefined where two writes meet. An "
                             "empty index into a non-empty self (a plain copy of self) is not drawn. Reduce "
                             "forms are drawn on floating dtypes, with repeated indices (multiply: values "
                             "near 1); integer self only without reduce."),
    "index": partial(aten_operator, "index", "index",
                     "Advanced indexing, self[indices]: the index tensors (int64 or int32, negative counting "
                     "from the end) broadcast together and pick elements along the dims they stand for; None "
                     "slices a dim whole; a bool mask over k dims stands for the indices of its True "
                     "values. Where None separates index tensors, the broadcast dims come first (numpy's "
                     "rule); otherwise they replace the indexed dims in place.",
                     functional_perf(index_sampler), traffic=index_traffic, size_reads=1,
                     notes=NOTES_INDEX + " With a bool mask the result's size is its number of True values: "
                           "host code may read that one count (`.item()`, counted in a kernel), as ATen does. "
                           "uint8 masks (deprecated in ATen), an all-None list and a 0-d self are not drawn."),
    "index_put_": partial(aten_operator, "index_put_", "index", PUT_DOC, put_sampler, tolerance=SUM_TOLERANCE,
                          traffic=put_traffic, notes=NOTES_PUT),
    "_index_put_impl_": partial(aten_operator, "_index_put_impl_", "index",
                                PUT_DOC + " `unsafe` only skips argument checks: the result is the same.",
                                put_sampler, tolerance=SUM_TOLERANCE, traffic=put_traffic, notes=NOTES_PUT),
    "rot90": partial(aten_operator, "rot90", "index",
                     "Rotate by k * 90 degrees in the plane of `dims`, from dims[0] towards dims[1]: k = 1 is "
                     "flip(dims[1]) then transpose; k = 2 flips both; k = 3 flips dims[0] then transposes; k taken "
                     "mod 4, so k = 0 and multiples of 4 give a copy of self.",
                     rot90_sampler, work="data",
                     notes="For k = 0 (mod 4) ATen returns a contiguous clone of self, never a view: a new tensor "
                           "in every case, its values moved by a kernel. Equal or out-of-range dims and inputs "
                           "with fewer than 2 dims make ATen raise: not drawn."),
}
