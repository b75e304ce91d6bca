"""Reductions, scans and sorts: sum, mean, amin, argmax, softmax, _softmax, cumsum, diff, renorm, sort."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import torch

from ..build import FLOATS, SUM_TOLERANCE, covering
from ..inputs import exact_integers
from ..spec import Layout, Operator, Overload, Size, TensorSpec
from .family import aten_operator, samples_of
from .shapes import ROWS


def _dims(shape: tuple[int, ...], i: int) -> int:
    if len(shape) <= 1:
        return -1 if i % 2 else 0
    return (-1, 0, 1)[i % 3]


def _layouts(size: Size):
    return ("contiguous",) if size == "perf" else ("contiguous", "transposed", "strided", "expanded")


def reduction_sampler(ov: Overload, size: Size):
    """`dim` lists of one or two dims, keepdim both ways, and an fp32 `dtype` on low-precision input."""

    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(ROWS[size], FLOATS, _layouts(size))):
            d = _dims(shape, i)
            dim = [d] if (len(shape) < 3 or i % 2) else [0, 2]
            out_dtype = torch.float32 if (dtype != torch.float32 and i % 3 == 2) else None
            yield {
                "self": TensorSpec(shape, dtype, layout),
                "dim": dim,
                "keepdim": bool(i % 2),
                "dtype": out_dtype,
            }

    return samples_of(ov, grid())


def softmax_sampler(ov: Overload, size: Size):
    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(ROWS[size], FLOATS, _layouts(size))):
            wide = i % 4 == 3
            yield {
                "self": TensorSpec(shape, dtype, layout, "uniform" if wide else "normal",
                                   -60.0 if wide else -1.0, 60.0 if wide else 1.0),
                "dim": _dims(shape, i),
                "dtype": torch.float32 if (dtype != torch.float32 and i % 3 == 1) else None,
                "half_to_float": False,  # _softmax only; True is rejected by ATen's CPU kernel
            }

    return samples_of(ov, grid())


def scan_sampler(ov: Overload, size: Size):
    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(ROWS[size], FLOATS, _layouts(size))):
            yield {
                "self": TensorSpec(shape, dtype, layout),
                "dim": _dims(shape, i),
                "dtype": torch.float32 if (dtype != torch.float32 and i % 3 == 1) else None,
            }

    return samples_of(ov, grid())


def functional_perf(sampler, limit: int = 6):
    """`sampler` with perf cases only on the functional overload, at most `limit` of them."""

    def wrapped(ov: Overload, size: Size):
        if size == "perf" and ov.writes:
            return ()
        got = list(sampler(ov, size))
        return got[:limit] if size == "perf" else got

    return wrapped


INTS = (torch.int32, torch.int64)


def _int_cases(size: Size, dtypes=INTS):
    """A few integer (and bool) inputs, drawn from a range wide enough to have distinct values."""
    shapes = {"small": [(33, 65), (4, 300)], "large": [(1025, 4097)], "perf": []}[size]
    for shape in shapes:
        for dtype in dtypes:
            yield shape, dtype, "transposed" if dtype == torch.int32 else "contiguous"


def amin_sampler(ov: Overload, size: Size):
    """`dim` lists of one or two dims and the empty list (all dims), keepdim both ways, NaN rows
    (`special`), integer inputs; the `out=` form takes every other case."""

    def grid():
        cases = list(covering(ROWS[size], FLOATS, _layouts(size))) + list(_int_cases(size))
        for i, (shape, dtype, layout) in enumerate(cases):
            if ov.writes and i % 2:
                continue
            if 0 in shape:
                dim = [d for d in range(len(shape)) if shape[d]][-1:]  # a reduction over a zero-size dim raises
            elif i % 4 == 0:
                dim = []
            elif len(shape) >= 2 and i % 4 == 1:
                dim = [0, 2] if len(shape) >= 3 else [-1, 0]
            else:
                dim = [_dims(shape, i)]
            special = dtype.is_floating_point and size != "perf" and (i + i // 3) % 3 == 1
            yield {
                "self": TensorSpec(shape, dtype, layout, "special" if special else
                                   ("uniform" if not dtype.is_floating_point else "normal"),
                                   -1000.0 if not dtype.is_floating_point else -1.0,
                                   1000.0 if not dtype.is_floating_point else 1.0),
                "dim": dim,
                "keepdim": bool((i + i // 4) % 2),
            }

    return samples_of(ov, grid())


def _few_values(dtype: torch.dtype) -> dict:
    """(dist, low, high) that draw about 16 distinct values, so maxima and sort keys tie: integers
    from [-8, 8), 16-bit floats from the 16 representable values above 0.5. Not float32: values
    that close would let a lower-precision copy pass; its ties come from `special` (+-inf, +-0.0)."""
    if not dtype.is_floating_point:
        return {"dist": "uniform", "low": -8.0, "high": 8.0}
    if dtype == torch.float32:
        return {"dist": "normal"}
    return {"dist": "uniform", "low": 0.5, "high": 0.5 + 8 * torch.finfo(dtype).eps}


ARGMAX_PERF = [((64, 32000), torch.float32, -1), ((256, 128256), torch.bfloat16, -1),
               ((4096, 4096), torch.float16, 0), ((1 << 20,), torch.float32, None)]


def argmax_sampler(ov: Overload, size: Size):
    """dim None (the flattened tensor) and every dim, negative ones too, keepdim both ways; ties on
    purpose (about 16 distinct values, integers), so the first index of the maximum is judged, NaN
    rows (`special`: the first NaN wins) and plain draws; the `out=` form takes every other case.
    Perf: greedy sampling over logits rows, a column argmax and a flattened one."""

    def grid():
        if size == "perf":
            for shape, dtype, dim in ARGMAX_PERF:
                yield {"self": TensorSpec(shape, dtype), "dim": dim, "keepdim": False}
            return
        cases = list(covering(ROWS[size], FLOATS, _layouts(size)))
        cases += list(_int_cases(size))
        for i, (shape, dtype, layout) in enumerate(cases):
            if ov.writes and i % 2:
                continue
            if 0 in shape:  # a reduction over a zero-size dim (or the whole empty tensor) raises
                dim = [d for d in range(len(shape)) if shape[d]][-1] - len(shape)
            elif i % 3 == 0:
                dim = None
            else:
                dim = _dims(shape, i)
            kind = (i + i // 3) % 3 if dtype.is_floating_point else 2
            draw = ({"dist": "normal"}, {"dist": "special", "low": -2.0, "high": 2.0}, _few_values(dtype))[kind]
            yield {"self": TensorSpec(shape, dtype, layout, **draw), "dim": dim, "keepdim": bool((i + i // 4) % 2)}

    return samples_of(ov, grid())


SORT_ROWS = {
    "small": [(), (1,), (2,), (7,), (33, 65), (3, 5, 17), (0, 4), (4, 300), (2, 4999)],
    "large": [(1025, 4097), (8, 512, 1023), (4, 32769)],
}
# (shape, dtype, stable, descending): top-p sampling sorts logits rows, a bf16 matrix along its
# rows, one long 1-d sort. Stable ones are `sort.stable`'s (stable=True, ties allowed); the others
# are `sort`'s, which has no `stable`: their values are drawn distinct.
SORT_PERF = [((64, 32000), torch.float32, True, True), ((4096, 4096), torch.bfloat16, True, False),
             ((1 << 20,), torch.float32, False, False), ((64, 32000), torch.float32, False, True),
             ((4096, 4096), torch.float32, False, False)]


def _drawn_numel(shape: tuple[int, ...], layout: Layout) -> int:
    """How many values a layout draws for a shape (a strided view draws 2n + 1 per row)."""
    if layout == "strided" and shape:
        shape = shape[:-1] + (2 * shape[-1] + 1,)
    elif layout == "expanded" and shape:
        shape = (1,) + shape[1:]
    return math.prod(shape)


def sort_sampler(ov: Overload, size: Size):
    """dim (negative too), descending both ways, stable True / False / None. Where the order of
    ties is not fixed (stable False or None, and the overloads without `stable`) the values are
    drawn distinct, so the indices are unique; stable sorts meet ties (16-bit normals, about 16
    distinct values, integers, bool) and NaN, +-inf and +-0.0 (`special`). A 16-bit tensor too
    big to be drawn distinct is sorted stably where `stable` is an argument, else not drawn."""
    takes_stable = any(p.name == "stable" for p in ov.params)

    def grid():
        if size == "perf":
            for shape, dtype, stable, descending in SORT_PERF:
                if stable == takes_stable:
                    yield {"self": TensorSpec(shape, dtype, "contiguous", "normal" if stable else "distinct"),
                           "stable": True if stable else None, "dim": -1, "descending": descending}
            return
        cases = list(covering(SORT_ROWS[size], FLOATS, _layouts(size)))
        cases += list(_int_cases(size, (torch.int32, torch.int64, torch.bool)))
        for i, (shape, dtype, layout) in enumerate(cases):
            if (ov.writes and i % 4) or (not takes_stable and i % 2):  # `sort.stable` draws the most
                continue
            stable = (True, False, None)[i % 3] if takes_stable else False
            if not stable and _drawn_numel(shape, layout) > exact_integers(dtype):
                if not takes_stable:
                    continue
                stable = True
            dim = _dims(shape, i)
            if not stable and layout == "expanded" and dim % len(shape) == 0:
                dim = -1  # an expanded tensor repeats its rows along dim 0: ties
            if not stable:
                draw = {"dist": "distinct"}
            elif dtype.is_floating_point and i % 2:
                draw = {"dist": "special", "low": -2.0, "high": 2.0}
            elif dtype.is_floating_point and i % 4 == 0:
                draw = {"dist": "normal"}
            else:
                draw = _few_values(dtype)
            yield {"self": TensorSpec(shape, dtype, layout, **draw), "stable": stable, "dim": dim,
                   "descending": bool((i + i // 3) % 2)}

    return samples_of(ov, grid())


def diff_sampler(ov: Overload, size: Size):
    """n = 1, 2, 3 along any dim, prepend/append tensors, integer and bool (xor) inputs."""

    def grid():
        shapes = [s for s in ROWS[size] if s]
        cases = list(covering(shapes, FLOATS, _layouts(size)))
        cases += list(_int_cases(size, (torch.int32, torch.int64, torch.bool)))
        for i, (shape, dtype, layout) in enumerate(cases):
            if ov.writes and i % 2:
                continue
            dim = _dims(shape, i)
            n = 1 + (i + i // 3) % 3 if size != "perf" else 1
            extra = {}
            if size != "perf" and i % 4 in (1, 2):
                d = dim % len(shape)
                for j, name in enumerate(("prepend", "append")):
                    if i % 4 == 1 or j:
                        side = shape[:d] + (1 + (i + j) % 3,) + shape[d + 1:]
                        extra[name] = TensorSpec(side, dtype, "contiguous", "uniform" if dtype != torch.bool
                                                 and not dtype.is_floating_point else "normal", -100.0, 100.0)
            yield {
                "self": TensorSpec(shape, dtype, layout, "normal" if dtype.is_floating_point else "uniform",
                                   -100.0, 100.0),
                "n": n,
                "dim": dim,
                **extra,
            }

    return samples_of(ov, grid())


RENORM_P = (2, 1, 3.5, math.inf)


def _median_norm(p: float, k: int) -> float:
    """About the median p-norm of k standard normal values, so sub-tensors fall on both sides of it."""
    if k == 0:
        return 1.0
    if math.isinf(p):
        return round(math.sqrt(2) * torch.erfinv(torch.tensor(0.5 ** (1 / k), dtype=torch.float64)).item(), 3)
    moment = 2 ** (p / 2) * math.gamma((p + 1) / 2) / math.sqrt(math.pi)  # E|x|^p
    return round((k * moment) ** (1 / p), 3)


def renorm_sampler(ov: Overload, size: Size):
    """p = 1, 2, 3.5, inf along any dim, `maxnorm` near the median norm of the sub-tensors, so some
    are scaled down and some are left unchanged."""

    def grid():
        shapes = [s for s in ROWS[size] if len(s) >= 2]
        for i, (shape, dtype, layout) in enumerate(covering(shapes, FLOATS, _layouts(size))):
            if ov.writes and i % 2:
                continue
            dim = _dims(shape, i)
            p = RENORM_P[i % len(RENORM_P)] if size != "perf" else 2
            k = math.prod(shape) // max(shape[dim], 1)
            yield {"self": TensorSpec(shape, dtype, layout), "p": p, "dim": dim, "maxnorm": _median_norm(p, k)}

    return samples_of(ov, grid())


OPERATORS: dict[str, Callable[[], Operator]] = {
    "sum": partial(aten_operator, "sum", "reduce",
                   "Sum over all elements or over `dim`; low-precision input accumulates in float32.",
                   reduction_sampler, tolerance=SUM_TOLERANCE),
    "mean": partial(aten_operator, "mean", "reduce",
                    "Arithmetic mean over all elements or over `dim`; NaN for empty reductions.",
                    reduction_sampler, tolerance=SUM_TOLERANCE),
    "softmax": partial(aten_operator, "softmax", "reduce",
                       "exp(x - max) / sum(exp(x - max)) along `dim`, optionally in `dtype`.", softmax_sampler),
    "cumsum": partial(aten_operator, "cumsum", "reduce", "Inclusive prefix sum along `dim`, optionally in `dtype`.",
                      scan_sampler, tolerance=SUM_TOLERANCE),
    "amin": partial(aten_operator, "amin", "reduce",
                    "Minimum over all elements (`dim=[]`) or over `dim`; NaN wins; exact.",
                    functional_perf(amin_sampler),
                    notes="A reduction over a zero-size dim (or dim=[] on an empty tensor) raises in ATen, "
                          "min having no identity, and is not drawn."),
    "argmax": partial(aten_operator, "argmax", "reduce",
                      "Index of the maximum over the flattened tensor (`dim=None`) or along `dim`; the first "
                      "one where it ties; NaN is the maximum (the first NaN wins).", functional_perf(argmax_sampler),
                      notes="A reduction over a zero-size dim (or dim=None on an empty tensor) raises in ATen "
                            "and is not drawn; so does bool input."),
    "sort": partial(aten_operator, "sort", "reduce",
                    "Values sorted along `dim` (NaN after +inf ascending, first descending) and their "
                    "indices; with stable=True ties keep their input order.", functional_perf(sort_sampler),
                    notes="Where the order of ties is unspecified (stable False or None, and `sort` / "
                          "`sort.values`) the values are drawn distinct (no NaN, inf or +-0.0 there): the "
                          "indices of ties are not unique. 16-bit tensors too big for that are sorted "
                          "stably, or not drawn for the overloads without `stable`."),
    "_softmax": partial(aten_operator, "_softmax", "reduce",
                        "exp(x - max) / sum(exp(x - max)) along `dim` in the input dtype.",
                        functional_perf(softmax_sampler),
                        notes="half_to_float=True is left out: ATen's CPU kernel rejects it (and the float64 "
                              "reference cannot run it), so only half_to_float=False is drawn."),
    "diff": partial(aten_operator, "diff", "reduce",
                    "n-th forward difference along `dim`, after concatenating `prepend`/`append`; "
                    "bool is xor.", functional_perf(diff_sampler),
                    notes="prepend/append have self's dtype (mixed-dtype promotion is not drawn); n=0 "
                          "(a copy of self) is not drawn."),
    "renorm": partial(aten_operator, "renorm", "reduce",
                      "Scale each sub-tensor along `dim` whose p-norm exceeds `maxnorm` to norm `maxnorm`.",
                      functional_perf(renorm_sampler), tolerance=SUM_TOLERANCE,
                      notes="Float inputs only: ATen's norm rejects integer input; p <= 0 raises."),
}
