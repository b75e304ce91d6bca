"""Unary pointwise ATen operators: one record each, from one parameterised sampler.

Each operator names the value ranges where its semantics live (domains, overflow, poles, the
pieces of a piecewise function), the extra scalar arguments it takes (`polygamma`'s `n`, `logit`'s
`eps`) and which integer or bool inputs ATen defines a result for; `unary_family` crosses them
with the shared shapes, dtypes and layouts. Case labels do not show a value range, so every range
gets its own shapes: two cases never differ only in how their values were drawn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import cycle
from typing import Any

import torch

from ..build import FLOATS, LAYOUTS, covering
from ..spec import Operator, OutputSpec, Overload, Size, TensorSpec
from .family import aten_operator, samples_of
from .shapes import ELEMENTWISE

FLOAT_OUTPUT = "float"  # integer inputs give float32 (ATen promotes them to the default float type)
SAME_OUTPUT = "same"  # integer inputs give their own dtype (neg, floor, sgn, bitwise_not, ...)


@dataclass(frozen=True)
class Draw:
    """One value range (a `TensorSpec` distribution) with the scalar arguments drawn with it.

    `dtypes` limits the floating dtypes it is drawn in (None: every one the operator takes)."""

    dist: str = "normal"
    low: float = -1.0
    high: float = 1.0
    args: Mapping[str, Any] = field(default_factory=dict)
    dtypes: tuple[torch.dtype, ...] | None = None

    def spec(self, shape: tuple[int, ...], dtype: torch.dtype, layout: str, dist: str | None = None) -> TensorSpec:
        return TensorSpec(shape, dtype, layout, dist or self.dist, self.low, self.high)

    def takes(self, dtype: torch.dtype) -> bool:
        return self.dtypes is None or dtype in self.dtypes


def draws(ranges: Sequence[tuple[str, float, float]], **params: Sequence[Any]) -> tuple[Draw, ...]:
    """Every range with every value of each scalar argument (`n=(0, 1)` -> two draws a range)."""
    out = [Draw(d, lo, hi) for d, lo, hi in ranges]
    for name, values in params.items():
        out = [Draw(d.dist, d.low, d.high, {**d.args, name: v}) for d in out for v in values]
    return tuple(out)


@dataclass(frozen=True)
class IntDraw:
    dtype: torch.dtype
    low: int
    high: int
    args: Mapping[str, Any] = field(default_factory=dict)

    def spec(self, shape: tuple[int, ...], layout: str) -> TensorSpec:
        return TensorSpec(shape, self.dtype, layout, "uniform", self.low, self.high)


# Full-range integer draws; bool is drawn as fair coin flips.
INT_RANGES = {
    torch.bool: (0, 2), torch.uint8: (0, 256), torch.int8: (-128, 128), torch.int16: (-32768, 32768),
    torch.int32: (-2**31, 2**31), torch.int64: (-2**62, 2**62),
}


def ints(*dtypes: torch.dtype, low: int | None = None, high: int | None = None, **args: Any) -> tuple[IntDraw, ...]:
    """Integer draws: each dtype's full range unless `low`/`high` say otherwise."""
    out = []
    for dt in dtypes:
        lo, hi = INT_RANGES[dt]
        if dt != torch.bool:
            lo = max(lo, low) if low is not None else lo
            hi = min(hi, high) if high is not None else hi
        out.append(IntDraw(dt, lo, hi, args))
    return tuple(out)


# Shapes of the range-by-range cases, kept apart from ELEMENTWISE so no label repeats.
SMALL_RANGE_SHAPES = [(19, 37), (3, 129), (5, 2, 41), (23, 29), (67,), (2, 3, 37), (9, 61), (130,)]
SMALL_SPECIAL_SHAPES = [(11, 43), (4, 97), (131,), (7, 9, 5)]
LARGE_RANGE_SHAPES = [(513, 2049), (257, 4101), (3, 300, 1001), (1031, 1023)]
LARGE_SPECIAL_SHAPES = [(1027, 1031), (4099, 257)]


def unary_family(ranges: Sequence[Draw], *, floats: Sequence[torch.dtype] = FLOATS,
                 int_draws: Sequence[IntDraw] = (), int_output: str = FLOAT_OUTPUT,
                 float64: bool = True, special: bool = True, special_large: bool = True, per_range: int = 3):
    """The sampler of a unary pointwise operator.

    small: every ELEMENTWISE shape x dtype x layout (ranges taken in turn), then each range in
    `per_range` dtypes it allows on shapes of its own, `special` (NaN/+-Inf/+-0.0) draws per distinct
    scalar argument set, each integer dtype, and float64. `out=` forms get a lighter grid of the
    same. large: the same at GPU sizes; perf: the functional form only, contiguous."""
    ranges = tuple(ranges)
    arg_sets = []  # the first draw of each distinct set of scalar arguments
    for d in ranges:
        if all(d.args != e.args for e in arg_sets):
            arg_sets.append(d)
    finite = [d for d in ranges if d.dist != "special"] or list(ranges)

    def pick(i: int, dtype: torch.dtype) -> Draw:
        options = [d for d in ranges if d.takes(dtype)]
        return options[i % len(options)]

    def int_out(ov: Overload, d: IntDraw) -> dict[str, Any]:
        if not ov.writes or int_output == SAME_OUTPUT:
            return {}
        return {"out": OutputSpec((), torch.float32)}

    def small(ov: Overload):
        out_form = bool(ov.writes)
        shapes = ELEMENTWISE["small"] if not out_form else [(), (7,), (33, 65), (0, 4)]
        for i, (shape, dtype, layout) in enumerate(covering(shapes, floats, LAYOUTS)):
            d = pick(i, dtype)
            yield {**d.args, "self": d.spec(shape, dtype, layout)}
        if out_form:
            d = arg_sets[0]
            if special:
                yield {**d.args, "self": d.spec((5, 9), floats[0], "contiguous", "special")}
            for idraw in int_draws[:1]:
                yield {**idraw.args, "self": idraw.spec((6, 11), "contiguous"), **int_out(ov, idraw)}
            return
        lay = cycle(LAYOUTS)
        for j, d in enumerate(ranges):
            own = [dt for dt in floats if d.takes(dt)]
            for k in range(min(per_range, len(own))):
                dtype = own[(j + k) % len(own)]
                yield {**d.args, "self": d.spec(SMALL_RANGE_SHAPES[j % len(SMALL_RANGE_SHAPES)], dtype, next(lay))}
        if special:
            for j, d in enumerate(arg_sets):
                dtype = next(dt for dt in (floats[j % len(floats)], *floats) if d.takes(dt))
                shape = SMALL_SPECIAL_SHAPES[j % len(SMALL_SPECIAL_SHAPES)]
                yield {**d.args, "self": d.spec(shape, dtype, next(lay), "special")}
        for k, idraw in enumerate(int_draws):
            yield {**idraw.args, "self": idraw.spec((33, 65) if k % 2 == 0 else (3, 5, 17), next(lay))}
        if float64:
            for j, d in enumerate(finite[:2]):
                yield {**d.args, "self": d.spec((9, 33), torch.float64, ("contiguous", "transposed")[j])}
            if special:
                d = arg_sets[0]
                yield {**d.args, "self": d.spec((9, 33), torch.float64, "strided", "special")}

    def large(ov: Overload):
        if ov.writes:
            for i, dtype in enumerate(floats[:2]):
                d = pick(i, dtype)
                yield {**d.args, "self": d.spec(ELEMENTWISE["large"][0], dtype, "contiguous")}
            return
        for i, (shape, dtype, layout) in enumerate(covering(ELEMENTWISE["large"], floats, LAYOUTS)):
            d = pick(i, dtype)
            yield {**d.args, "self": d.spec(shape, dtype, layout)}
        lay = cycle(LAYOUTS)
        for j, d in enumerate(ranges):
            dtype = next(dt for dt in (floats[j % len(floats)], *floats) if d.takes(dt))
            yield {**d.args, "self": d.spec(LARGE_RANGE_SHAPES[j % len(LARGE_RANGE_SHAPES)], dtype, next(lay))}
        if special and special_large:
            for j, d in enumerate(arg_sets[:2]):
                dtype = next(dt for dt in (floats[j % len(floats)], *floats) if d.takes(dt))
                yield {**d.args, "self": d.spec(LARGE_SPECIAL_SHAPES[j], dtype, "contiguous", "special")}
        for idraw in int_draws[:1]:
            yield {**idraw.args, "self": idraw.spec((1025, 4097), "transposed")}

    def perf(ov: Overload):
        if ov.writes:
            return
        for i, (shape, dtype) in enumerate((s, dt) for s in ELEMENTWISE["perf"] for dt in floats):
            d = [r for r in finite if r.takes(dtype)][i % len([r for r in finite if r.takes(dtype)])]
            yield {**d.args, "self": d.spec(shape, dtype, "contiguous")}

    def sampler(ov: Overload, size: Size):
        grid = {"small": small, "large": large, "perf": perf}[size](ov)
        return samples_of(ov, grid)

    return sampler


def integer_family(int_draws: Sequence[IntDraw]):
    """The sampler of an operator defined on bool and integers only (bitwise_not)."""
    dtypes = tuple(d.dtype for d in int_draws)
    by_dtype = {d.dtype: d for d in int_draws}

    def grid(ov: Overload, size: Size):
        if size == "perf":
            if ov.writes:
                return
            for shape in ELEMENTWISE["perf"]:
                for dt in (torch.bool, torch.int32, torch.int64):
                    yield {"self": by_dtype[dt].spec(shape, "contiguous")}
            return
        shapes = ELEMENTWISE[size] if not ov.writes else ELEMENTWISE[size][1:4]
        for shape, dtype, layout in covering(shapes, dtypes if size == "small" else dtypes[::2], LAYOUTS):
            if math.prod(shape) == 1 and dtype in (torch.int8, torch.uint8):
                continue  # one byte: 1 in 256 draws would equal the ghost replay's 0x7F fill
            yield {"self": by_dtype[dtype].spec(shape, layout)}

    return lambda ov, size: samples_of(ov, grid(ov, size))


def _op(name: str, doc: str, sampler, notes: str = "") -> Callable[[], Operator]:
    return partial(aten_operator, name, "pointwise", doc, sampler, notes=notes)


F, H, B, D = torch.float32, torch.float16, torch.bfloat16, torch.float64
WIDE = (F, B, D)  # ranges whose values (or results) pass float16's 65504: drawn in the wide types only
ALL_INTS = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)

OPERATORS: dict[str, Callable[[], Operator]] = {
    "acosh": _op(
        "acosh", "Inverse hyperbolic cosine: NaN below 1, 0 at 1, +inf at +inf; integer inputs give float32.",
        unary_family(draws([("uniform", 1.0, 12.0), ("uniform", 0.25, 3.0), ("uniform", 0.5, 1e4)]),
                     int_draws=ints(torch.int64, low=-3, high=50))),
    "asin": _op(
        "asin", "Arcsine: NaN outside [-1, 1]; integer inputs give float32.",
        unary_family(draws([("uniform", -1.0, 1.0), ("uniform", -1.25, 1.25), ("uniform", 0.9, 1.0)]),
                     int_draws=ints(torch.int8, low=-2, high=3))),
    "cos": _op(
        "cos", "Cosine (radians), accurate over a wide argument range; integer inputs give float32.",
        unary_family(draws([("uniform", -6.5, 6.5), ("uniform", -100.0, 100.0), ("normal", -1, 1)]),
                     int_draws=ints(torch.int32, torch.uint8, low=-100, high=101))),
    "cosh": _op(
        "cosh", "Hyperbolic cosine: overflows to +inf (fp16 past ~11.8, float32 past ~89.4); integer inputs "
        "give float32.",
        unary_family(draws([("uniform", -5.0, 5.0), ("uniform", -12.0, 12.0)])
                     + (Draw("uniform", -88.0, 88.0, dtypes=WIDE),),
                     int_draws=ints(torch.int16, low=-12, high=13)),
        notes="float32 arguments with 88.72 < |x| < 89.42 are not drawn: cosh is finite there, but ATen's "
              "vectorised CPU kernel overflows to inf in its vector lanes and not in its scalar tail."),
    "erfc": _op(
        "erfc", "Complementary error function 1 - erf(x), accurate in the tail (erfc(5) ~ 1.5e-12, so "
        "1 - erf(x) is wrong there); integer inputs give float32.",
        unary_family(draws([("uniform", -3.0, 3.0), ("uniform", 2.5, 9.0)])
                     + (Draw("uniform", -6.0, 12.0, dtypes=(F, H)),),
                     int_draws=ints(torch.int64, low=-4, high=8)),
        notes="bfloat16 is not drawn past x = 9 (results below float32's smallest normal): Triton's "
              "interpreter rounds subnormal float32 values to bfloat16 wrongly."),
    "floor": _op(
        "floor", "Largest integer <= x; integer inputs are returned unchanged (a copy, same dtype).",
        unary_family(draws([("uniform", -10.0, 10.0), ("normal", -1, 1)])
                     + (Draw("uniform", -1e5, 1e5, dtypes=WIDE),),
                     int_draws=ints(torch.uint8, torch.int8, torch.int32, torch.int64), int_output=SAME_OUTPUT),
        notes="bool inputs are rejected by ATen (not drawn)."),
    "log10": _op(
        "log10", "Base-10 logarithm: -inf at +-0, NaN below 0; integer and bool inputs give float32.",
        unary_family(draws([("positive", 1e-3, 1e3), ("uniform", -1.0, 10.0), ("positive", 0.5, 2.0)]),
                     int_draws=ints(torch.int64, torch.bool, low=-2, high=1000))),
    "neg": _op(
        "neg", "-x; integers wrap (neg(-128) is -128 in int8, uint8 wraps modulo 256).",
        unary_family(draws([("normal", -1, 1), ("uniform", -1e4, 1e4)]),
                     int_draws=ints(torch.int8, torch.uint8, torch.int32, torch.int64), int_output=SAME_OUTPUT),
        notes="bool inputs are rejected by ATen (not drawn)."),
    "sin": _op(
        "sin", "Sine (radians), accurate over a wide argument range; integer inputs give float32.",
        unary_family(draws([("uniform", -6.5, 6.5), ("uniform", -100.0, 100.0), ("normal", -1, 1)]),
                     int_draws=ints(torch.int64, torch.int8, low=-100, high=101))),
    "square": _op(
        "square", "x * x; integers keep their dtype and wrap, bool gives int64.",
        unary_family(draws([("normal", -1, 1), ("uniform", -250.0, 250.0)]),
                     int_draws=ints(torch.int8, torch.uint8, torch.int32, torch.int64, torch.bool,
                                    low=-3000, high=3001),
                     int_output=SAME_OUTPUT),
        notes="square.out of a bool input is not drawn (ATen's result is int64; a bool out= is rejected). "
              "int32/int64 squares that overflow are not drawn (signed overflow is undefined in ATen's C++; "
              "int8 and uint8 do wrap, through the int arithmetic of their promotion)."),
    "sgn": _op(
        "sgn", "Sign of x for real inputs, (0 < x) - (x < 0): -1, 0 or 1, and 0 at +-0.0 and at NaN (ATen's "
        "sign; not NaN); integers and bool keep their dtype.",
        unary_family(draws([("normal", -1, 1), ("uniform", -2.0, 2.0)]),
                     int_draws=ints(torch.int8, torch.uint8, torch.int64, torch.bool, low=-5, high=6),
                     int_output=SAME_OUTPUT),
        notes="complex inputs (x / |x|) are not drawn."),
    "i0": _op(
        "i0", "Modified Bessel function of the first kind, order 0 (Cephes Chebyshev expansions on [0, 8] and "
        "(8, inf)); overflows to +inf where exp(|x|) does in float32; integer inputs give float32.",
        unary_family(draws([("uniform", -8.0, 8.0), ("uniform", -14.5, 14.5)])
                     + (Draw("uniform", -90.0, 90.0, dtypes=WIDE),),
                     int_draws=ints(torch.int32, low=-9, high=10))),
    "special_entr": _op(
        "special_entr", "Elementwise entropy -x * ln(x): 0 at 0, -inf below 0 and at +inf, NaN at NaN; "
        "integer inputs give float32.",
        unary_family(draws([("positive", 1e-4, 4.0), ("uniform", -1.0, 3.0), ("positive", 1.0, 5000.0)]),
                     int_draws=ints(torch.int64, low=-2, high=20))),
    "mish": _op(
        "mish", "x * tanh(softplus(x)) = x * tanh(ln(1 + e^x)); NaN at -inf (ATen's -inf * 0).",
        unary_family(draws([("uniform", -8.0, 8.0), ("normal", -1, 1), ("uniform", -60.0, 60.0)])),
        notes="integer inputs are rejected by ATen (not drawn)."),
    "hardsigmoid": _op(
        "hardsigmoid", "min(max(x + 3, 0), 6) / 6: 0 at or below -3, 1 at or above 3, NaN at NaN.",
        unary_family(draws([("uniform", -4.0, 4.0), ("normal", -1, 1), ("uniform", -3.5, -2.5),
                            ("uniform", 2.5, 3.5)])),
        notes="integer inputs are rejected by ATen (not drawn)."),
    "logit": _op(
        "logit", "ln(z / (1 - z)) with z = x, or x clamped to [eps, 1 - eps] when eps is given: without eps "
        "0 -> -inf, 1 -> +inf, outside [0, 1] -> NaN; integer and bool inputs give float32.",
        unary_family(draws([("uniform", 0.0, 1.0), ("uniform", -0.25, 1.25)], eps=(None, 0.125))
                     + (Draw("uniform", -0.25, 1.25, {"eps": 1e-6}, (torch.float32, torch.float64)),),
                     int_draws=ints(torch.int64, low=-1, high=3) + ints(torch.bool, eps=0.125)),
        notes="eps=1e-6 is drawn for float32 and float64 only: ATen's CPU kernel forms 1 - eps in the "
              "input dtype (1.0 in float16/bfloat16) while its CUDA kernel uses float32, so they disagree."),
    "polygamma": _op(
        "polygamma", "The n-th derivative of the digamma function, polygamma(n, x), for n = 0 (digamma), 1 "
        "(trigamma) and n >= 2 (via the Hurwitz zeta function); at the poles x = 0, -1, -2, ...: n = 0 gives "
        "NaN (-inf/+inf at +0/-0), n = 1 gives +inf at 0, n >= 2 gives (-1)^(n+1) * inf; integer inputs give float32.",
        unary_family(
            draws([("uniform", 0.25, 12.0)], n=(0, 2, 3))
            + tuple(Draw("uniform", -4.0, 0.0, {"n": n}, WIDE) for n in (0, 2, 3))
            + draws([("uniform", 0.25, 12.0)], n=(1,)) + (Draw("uniform", -2.9, -2.1, {"n": 1}, WIDE),),
            int_draws=ints(torch.int64, low=1, high=30, n=1), per_range=2),
        notes="n = 1 at negative integers is left out: ATen's trigamma there is pi^2 / sin(pi x)^2 with "
              "sin(pi x) a rounding residue, a huge finite value no kernel can be judged on."),
    "bitwise_not": _op(
        "bitwise_not", "~x: logical not for bool, two's-complement bitwise not for integers.",
        integer_family(ints(*ALL_INTS)),
        notes="floating inputs are rejected by ATen (not drawn)."),
}
