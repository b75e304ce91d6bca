"""Binary, comparison and in-place pointwise ATen operators: one record each, from shared samplers.

`binary_sampler(Grid(...))` draws, per overload and tier, float operands over shapes x dtypes x
layouts with broadcasting both ways, fp16/bf16 with fp32, a 0-d operand of another dtype (ATen's
category rule: an fp16 n-d tensor with an fp32 0-d tensor stays fp16), Python scalars for Scalar
overloads, integer and bool operands where the schema takes them, and NaN/+-Inf/+-0.0 (`special`).
In-place overloads never broadcast or expand `self`; every drawn call is checked on meta tensors,
so a promotion that cannot be cast back to `self` (ATen raises) is never drawn. `out=` forms and
secondary overloads take every k-th sample of the same grid, to keep the interpreter tier small.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import torch

from ..build import FLOATS, LAYOUTS, SUM_TOLERANCE, covering, sample
from ..spec import Operator, OutputSpec, Overload, Sample, Size, TensorSpec
from .family import alpha_scales, aten_operator, functional
from .shapes import ELEMENTWISE

I32, I64, BOOL = torch.int32, torch.int64, torch.bool


@dataclass(frozen=True)
class Draw:
    """How one operand's values are drawn (the `TensorSpec` distribution and bounds)."""

    dist: str = "normal"
    low: float = -1.0
    high: float = 1.0

    def spec(self, shape: tuple[int, ...], dtype: torch.dtype, layout: str = "contiguous") -> TensorSpec:
        return TensorSpec(tuple(shape), dtype, layout, self.dist, self.low, self.high)  # type: ignore[arg-type]


SPECIAL = Draw("special", -3.0, 3.0)
TAG = "_tag"  # a sample key naming what is special about its values; it goes into the label only


def _describe(*draws: Draw) -> str:
    """How the operands' values are drawn, for a case label."""

    def one(d: Draw) -> str:
        if d.dist == "special":
            return "NaN/Inf/0"
        if d.dist == "index":
            return f"integers {int(d.low)}..{int(d.high) - 1}"
        return d.dist if d.dist == "normal" else f"{d.dist} {d.low:g}..{d.high:g}"

    return " / ".join(one(d) for d in draws)


@dataclass(frozen=True)
class Ints:
    """An integer or bool case: the dtypes and value ranges of `self` and the tensor operand, and the
    Python number a Scalar operand takes instead (an int keeps the integer type, a float promotes)."""

    a: torch.dtype
    b: torch.dtype
    a_range: tuple[int, int] = (-9, 10)
    b_range: tuple[int, int] = (-9, 10)
    scalar: int | float = 3
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Grid:
    """The semantic parameters of one operator's cases.

    `arg` is the second operand's name; `a`/`b` draw float `self`/`arg`; `scalars` are the Python
    numbers a Scalar operand cycles through; `extra(i, integral)` gives further arguments (alpha,
    rounding_mode) for the i-th sample; `special` pairs of draws add NaN/+-Inf/+-0.0 cases (with
    `special_scalars`, if given, as the Scalar operand); `ints` adds integer and bool cases;
    `same_dtype` keeps both operands in one dtype (heaviside); `out` is the dtype of `out=` buffers
    when it is not the promoted input type (comparisons: bool); `thin` keeps, for the named
    overloads, every k-th sample of the shape/dtype/layout grid and every j-th special-value or
    integer case (k, j); `perf` names the overloads that get timing cases. `discontinuous` (rounding
    modes, comparisons) drops a 0-d operand wider than the n-d one (bf16 n-d with an fp32 0-d): ATen
    rounds the 0-d value to the common dtype where the float64 truth does not (and its CPU division
    kernels do not either), and a step function tells the difference.
    """

    arg: str = "other"
    a: Draw = Draw()
    b: Draw = Draw()
    scalars: tuple[int | float, ...] = (-1.75, 3)
    ints: tuple[Ints, ...] = ()
    extra: Callable[[int, bool], dict[str, Any]] = lambda i, integral: {}
    special: tuple[tuple[Draw, Draw], ...] = ((SPECIAL, SPECIAL),)
    special_scalars: tuple[int | float, ...] = ()
    same_dtype: bool = False
    out: torch.dtype | None = None
    discontinuous: bool = False
    thin: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    perf: tuple[str, ...] = ()


def _layouts(size: Size, inplace: bool) -> tuple[str, ...]:
    if size == "perf":
        return ("contiguous",)
    return ("contiguous", "transposed", "strided") if inplace else LAYOUTS


def _partner(dtype: torch.dtype) -> torch.dtype:
    """Another float dtype: fp32 for half types (fp16 with fp32 -> fp32), fp16 for fp32."""
    return torch.float16 if dtype == torch.float32 else torch.float32


def mix(i: int) -> int:
    """An index that does not cycle with the dtype (`covering` cycles dtypes with i % 3)."""
    return i + i // 3


def float_operands(size: Size, a: Draw, b: Draw, *, inplace: bool, same_dtype: bool
                   ) -> Iterator[tuple[int, TensorSpec, TensorSpec]]:
    """(self, other) over shapes x dtypes x layouts: same shape; other broadcast over the leading
    dims; both broadcast ((..., n, 1) with (m,); not when `self` is written); other of another float
    dtype; a 0-d other of another dtype (which does not promote an n-d self of the same category)."""
    for i, (shape, dtype, layout) in enumerate(covering(ELEMENTWISE[size], FLOATS, _layouts(size, inplace))):
        s_shape, o_shape, o_dtype, o_layout = shape, shape, dtype, "contiguous"
        k = mix(i)
        if size != "perf" and shape and 0 not in shape:
            if k % 3 == 1:
                o_shape = shape[-1:]
            elif k % 3 == 2 and len(shape) >= 2 and not inplace:
                s_shape, o_shape = shape[:-1] + (1,), shape[-2:-1]
                layout = "contiguous" if layout in ("transposed", "expanded") else layout
            elif len(shape) >= 2:
                o_layout = ("transposed", "expanded", "strided")[i % 3]
            if not same_dtype and i % 4 == 2:
                o_dtype = _partner(dtype)
            if not same_dtype and i % 5 == 3:
                o_shape, o_dtype, o_layout = (), _partner(dtype), "contiguous"
        yield i, a.spec(s_shape, dtype, layout), b.spec(o_shape, o_dtype, o_layout)


def _kind(ov: Overload, name: str) -> str:
    return ov.param(name).type


def _writes_self(ov: Overload) -> bool:
    return "self" in ov.writes


def _meta(v: Any, run: str = "") -> Any:
    """A shape-only stand-in; with `run`, a one-element CPU tensor of the same rank, in its own
    dtype ("as-is") or in the float64 truth's ("upcast"): some dtype checks happen only when a
    kernel really runs (in-place casts on older meta kernels, generated out= wrappers)."""
    if isinstance(v, (TensorSpec, OutputSpec)):
        if run:
            dtype = torch.float64 if (run == "upcast" and v.dtype.is_floating_point) else v.dtype
            return torch.ones((1,) * len(v.shape), dtype=dtype)
        return torch.empty(v.shape, dtype=v.dtype, device="meta")
    return v


def _run_meta(ov: Overload, values: Mapping[str, Any], run: str = "") -> Any:
    args, kwargs = ov.split({k: _meta(v, run) for k, v in values.items()})
    return ov.reference(*args, **kwargs)


def checked(ov: Overload, values: dict[str, Any], out: torch.dtype | None) -> dict[str, Any] | None:
    """The values with an `out` buffer of ATen's result type (or `out`), or None where ATen rejects
    the call (a promotion that cannot be cast back to an in-place `self`, an expanded written self)."""
    if isinstance(values.get("self"), TensorSpec) and values["self"].layout == "expanded" and _writes_self(ov):
        return None
    try:
        if not any(p.name == "out" and p.writes for p in ov.params):
            _run_meta(ov, values)
            _run_meta(ov, values, run="as-is")
            return values
        result = _run_meta(functional(ov), values)  # type: ignore[arg-type]
        values = {**values, "out": OutputSpec(tuple(result.shape), out or result.dtype)}
        _run_meta(ov, values)
        # the float64 truth runs with float buffers upcast: ATen's generated out= wrappers
        # (div.Scalar_out...) then reject an integer input with a float Scalar (float32 result)
        _run_meta(ov, values, run="upcast")
        return values
    except (RuntimeError, TypeError, ValueError, NotImplementedError):
        return None


def finish(ov: Overload, grid: Iterable[dict[str, Any]], *, out: torch.dtype | None = None,
           keep_every: int = 1) -> list[Sample]:
    """The valid, distinct samples of an overload's grid (every `keep_every`-th), with an `out`
    buffer of ATen's result type (or `out`) where the overload has one."""
    names = {p.name for p in ov.params}
    seen: set[str] = set()
    found: list[Sample] = []
    for values in grid:
        s = sample({k: v for k, v in values.items() if k in names})
        if values.get(TAG):
            s = Sample(values=s.values, label=f"{s.label} [{values[TAG]}]")
        full = checked(ov, dict(s.values), out) if s.label not in seen else None
        if full is None:
            continue
        seen.add(s.label)
        found.append(Sample(values=full, label=s.label))
    return [s for n, s in enumerate(found) if mix(n) % keep_every == 0]  # not in step with the dtypes


def binary_sampler(g: Grid) -> Callable[[Overload, Size], list[Sample]]:
    def sampler(ov: Overload, size: Size) -> list[Sample]:
        if size == "perf" and ov.name not in g.perf:
            return []
        inplace = _writes_self(ov)
        scalar_self = _kind(ov, "self") == "Scalar"
        scalar_arg = _kind(ov, g.arg) == "Scalar"

        def entry(i: int, a: TensorSpec, b: TensorSpec, scalar: int | float, integral: bool) -> dict[str, Any]:
            values: dict[str, Any] = {"self": a, g.arg: b}
            if scalar_self:
                values["self"] = scalar
            elif scalar_arg:
                values[g.arg] = scalar
            values.update(g.extra(i, integral))
            return values

        keep_grid, keep_semantic = (1, 1) if size == "perf" else g.thin.get(ov.name, (1, 1))

        def base() -> Iterator[dict[str, Any]]:
            """Every k-th entry of the float grid (not in step with its dtypes); scalars and extra
            arguments cycle over the entries kept, so a thinned overload still sees each of them."""
            kept = [(a, b) for i, a, b in float_operands(size, g.a, g.b, inplace=inplace, same_dtype=g.same_dtype)
                    if mix(i) % keep_grid == 0]
            tag = "" if g.a.dist == g.b.dist == "normal" else _describe(g.a) if scalar_arg else \
                _describe(g.b) if scalar_self else _describe(g.a, g.b)
            for n, (a, b) in enumerate(kept):
                yield {**entry(n, a, b, g.scalars[mix(n) % len(g.scalars)], False), TAG: tag}

        def semantic() -> Iterator[dict[str, Any]]:
            if size == "perf":
                return
            shapes = [(7,), (33, 65)] if size == "small" else [ELEMENTWISE[size][0]]
            scalars = g.special_scalars or g.scalars
            for j, (da, db) in enumerate(g.special):
                for k, shape in enumerate(shapes):
                    dtype = FLOATS[(j + k) % len(FLOATS)] if size == "small" else torch.float32
                    yield {**entry(j + k, da.spec(shape, dtype), db.spec(shape, dtype),
                                   scalars[(j + k) % len(scalars)], False), TAG: _describe(da, db)}
            for j, c in enumerate(g.ints if size == "small" else g.ints[:1]):
                shape = ((3, 5, 17), (33, 65), (7,))[j % 3] if size == "small" else ELEMENTWISE[size][0]
                b_shape = shape if j % 2 == 0 else shape[-1:]
                b = TensorSpec(b_shape, c.b, "contiguous", "uniform", *c.b_range)
                tag = f"integers {c.a_range[0]}..{c.a_range[1] - 1}"
                if not (scalar_arg or scalar_self):
                    tag += f" and {c.b_range[0]}..{c.b_range[1] - 1}"
                yield {**entry(j, TensorSpec(shape, c.a, ("contiguous", "strided")[j % 2], "uniform", *c.a_range),
                               b, c.scalar, True), **c.extra, TAG: tag}

        def judgeable(values: dict[str, Any]) -> bool:
            a, b = values.get("self"), values.get(g.arg)
            rounding = values.get("rounding_mode") if any(p.name == "rounding_mode" for p in ov.params) else "step"
            if not g.discontinuous or rounding is None:
                return True
            if not (isinstance(a, TensorSpec) and isinstance(b, TensorSpec)):
                return True
            return not any(t.shape == () and u.shape != () and torch.promote_types(t.dtype, u.dtype) != u.dtype
                           for t, u in ((a, b), (b, a)))

        return (finish(ov, filter(judgeable, base()), out=g.out)
                + finish(ov, filter(judgeable, semantic()), out=g.out, keep_every=keep_semantic))

    return sampler


# -- per-operator details -------------------------------------------------------------------------

def _alpha(i: int, integral: bool) -> dict[str, Any]:
    """alpha: 1 (the default, given explicitly), a fraction and a negative; integers for integer operands."""
    return {"alpha": (2, -3, 1)[i % 3] if integral else (1, 2.5, -0.5)[mix(i) % 3]}


def _mode(i: int, integral: bool) -> dict[str, Any]:
    """rounding_mode: true division, 'trunc' and 'floor' in turn."""
    return {"rounding_mode": (None, "trunc", "floor")[mix(i) % 3]}


ARITH_INTS = (
    Ints(I32, I32, (-50, 50), (-50, 50), 3),
    Ints(I64, I32, (-1000, 1000), (-9, 10), -7),
    Ints(torch.float32, I64, (-9, 10), (-9, 10), 2.5),   # float with int tensor: float
    Ints(I32, I64, (-9, 10), (-9, 10), 2.5),             # int with a float Scalar: default float
)

# Integer divisors are never 0 (ATen raises on the CPU; undefined on CUDA): one sign per case.
DIV_INTS = (
    Ints(I32, I32, (-50, 50), (1, 8), 3, {"rounding_mode": "trunc"}),
    Ints(I64, I64, (-50, 50), (-7, 0), -3, {"rounding_mode": "floor"}),
    Ints(I64, I32, (-50, 50), (1, 8), -4, {"rounding_mode": None}),           # true division: float32
    Ints(I32, I32, (-50, 50), (-7, 0), 2, {"rounding_mode": "floor"}),
    Ints(torch.float16, I64, (-50, 50), (1, 8), 3, {"rounding_mode": "floor"}),
    Ints(I32, I64, (-50, 50), (1, 8), 2.5, {"rounding_mode": "trunc"}),       # float Scalar: float
)
FLOOR_INTS = (
    Ints(I32, I32, (-50, 50), (1, 8), 3),
    Ints(I64, I64, (-50, 50), (-7, 0), -3),
    Ints(I64, I32, (-50, 50), (-7, 0), -4),
    Ints(I32, torch.float32, (-50, 50), (1, 8), 2.5),
)
DIV_NOTES = ("Integer divisors are never 0: integer division by zero raises on the CPU and is "
             "undefined on CUDA, so it cannot be judged. Float division by +-0.0 is drawn. Rounded "
             "division never pairs a half n-d operand with a float32 0-d one: ATen's CPU kernel divides "
             "by the unrounded 0-d value, its CUDA kernel by the value rounded to half, and trunc/floor "
             "tell the two apart.")
CMP_NOTES = ("A half n-d operand is never compared with a float32 0-d one: ATen rounds the 0-d value to "
             "half first, the float64 truth does not, and a bool output must match the truth exactly. "
             "Python scalars are exact in every float dtype, so rounding them to the common dtype (as "
             "ATen does) changes nothing.")

# Comparisons draw integers near 256, so operands tie often and rounding to bfloat16 (the audit's
# precision downgrade) changes answers; scalars are exact in every float dtype.
TIES = Draw("index", 250, 262)
CMP_INTS = (
    Ints(I32, I64, (-3, 4), (-3, 4), 1),
    Ints(I64, I64, (-3, 4), (-3, 4), 0.5),
    Ints(torch.float16, I32, (-3, 4), (-3, 4), 2),
    Ints(BOOL, BOOL, (0, 2), (0, 2), True),
)
CMP = Grid(a=TIES, b=TIES, scalars=(256, 253.0, 255), ints=CMP_INTS, discontinuous=True,
           special=((SPECIAL, SPECIAL), (SPECIAL, Draw("index", -1, 2))), out=BOOL,
           thin={"Tensor": (2, 1), "Scalar": (2, 1), "Scalar_out": (4, 4), "Tensor_out": (4, 4)}, perf=("Tensor",))


def _cmp(name: str) -> Grid:
    return replace(CMP, thin={f"{name}.{k}": v for k, v in CMP.thin.items()}, perf=(f"{name}.Tensor",))


POW_EXPONENTS = (2, 0.5, -1, 3, 1.5, -2, 0.25)


POW = Grid(
    arg="exponent", a=Draw("uniform", 0.05, 3.0), b=Draw("uniform", -3.0, 3.0), scalars=POW_EXPONENTS,
    special_scalars=(2, -1, 3, 1.5, -2, 0.25),
    special=((SPECIAL, SPECIAL), (Draw("normal"), Draw("index", -3, 4)), (SPECIAL, Draw("index", -2, 3))),
    ints=(Ints(I32, I32, (-9, 10), (0, 5), 3), Ints(I64, I64, (-5, 6), (0, 6), 2),
          Ints(I64, torch.float32, (-5, 6), (0, 3), 0.5), Ints(torch.float32, I64, (-5, 6), (0, 4), 2)),
    thin={"pow.Tensor_Tensor": (3, 1), "pow.Tensor_Scalar": (3, 1), "pow.Scalar": (4, 1),
          "pow.Tensor_Tensor_out": (9, 6), "pow.Tensor_Scalar_out": (9, 6), "pow.Scalar_out": (9, 6)},
    perf=("pow.Tensor_Scalar",),
)
POW_BASES = (2, 0.5, -1.5, 2.718281828)


def pow_sampler(ov: Overload, size: Size) -> list[Sample]:
    """pow.Scalar takes a Python base and a tensor exponent; the other overloads a tensor base."""
    if _kind(ov, "self") == "Scalar":
        g = replace(POW, scalars=POW_BASES, special_scalars=(),
                    ints=(Ints(I32, I32, (0, 6), (0, 6), 2), Ints(I64, I64, (0, 6), (0, 6), 2.5)),
                    special=((SPECIAL, SPECIAL), (SPECIAL, Draw("index", -3, 4))))
        return binary_sampler(g)(ov, size)
    return binary_sampler(POW)(ov, size)


def prelu_sampler(ov: Overload, size: Size) -> list[Sample]:
    """`weight` has one element or self.size(1) (for a 1-d self, its only dim)."""

    def grid() -> Iterator[dict[str, Any]]:
        for i, (shape, dtype, layout) in enumerate(covering(ELEMENTWISE[size], FLOATS, _layouts(size, False))):
            channels = 1 if len(shape) == 0 or i % 3 == 1 else shape[1] if len(shape) >= 2 else shape[0]
            dist = SPECIAL if i % 5 == 4 else Draw()
            yield {"self": dist.spec(shape, dtype, layout),
                   "weight": Draw("uniform", -0.5, 0.5).spec((channels,), dtype, "strided" if i % 4 == 3 else
                                                            "contiguous")}

    return finish(ov, grid())


def masked_fill_sampler(ov: Overload, size: Size) -> list[Sample]:
    """A bool mask of self's shape or broadcast to it; the value a Python number (int and float) or
    a 0-d tensor (of self's dtype, or float32 for a half self: cast to self's dtype)."""
    if size == "perf" and ov.name != "masked_fill_.Scalar":
        return []

    def value(i: int, dtype: torch.dtype) -> Any:
        if _kind(ov, "value") == "Scalar":
            if not dtype.is_floating_point:
                return (True, False)[i % 2] if dtype == BOOL else (-7, 5)[i % 2]
            return (-1.5, 3, float("-inf"), float("nan"))[i % 4]
        return Draw("uniform", -4.0, 4.0).spec((), dtype if i % 3 else _partner(dtype)
                                              if dtype.is_floating_point else dtype)

    def grid() -> Iterator[dict[str, Any]]:
        for i, a, m in float_operands(size, Draw(), Draw(), inplace=True, same_dtype=True):
            mask = TensorSpec(m.shape, BOOL, m.layout)
            yield {"self": a, "mask": mask, "value": value(i, a.dtype)}
        if size == "small":
            for j, dtype in enumerate((I32, I64, BOOL)):
                shape = ((3, 5, 17), (33, 65), (7,))[j]
                mask = TensorSpec(shape[-1:] if j % 2 else shape, BOOL)
                yield {"self": TensorSpec(shape, dtype, "contiguous", "uniform", -9, 10), "mask": mask,
                       "value": value(j, dtype)}

    return finish(ov, grid())


OPERATORS: dict[str, Callable[[], Operator]] = {
    "add_": partial(
        aten_operator, "add_", "pointwise",
        "In place: self += alpha * other, other broadcast to self, the promoted type cast back to self's.",
        binary_sampler(Grid(extra=_alpha, scalars=(-1.75, 3, 0.5), ints=ARITH_INTS, perf=("add_.Tensor",))),
        tolerance=SUM_TOLERANCE, scale=alpha_scales("add_", "other")),
    "sub": partial(
        aten_operator, "sub", "pointwise", "self - alpha * other, with type promotion and broadcasting.",
        binary_sampler(Grid(extra=_alpha, ints=ARITH_INTS, perf=("sub.Tensor",),
                            thin={"sub.Scalar": (2, 1), "sub.out": (3, 3), "sub.Scalar_out": (4, 4)})),
        tolerance=SUM_TOLERANCE, scale=alpha_scales("sub", "other"),
        notes="bool operands are rejected by ATen (use logical_xor): never drawn."),
    "rsub": partial(
        aten_operator, "rsub", "pointwise", "other - alpha * self (reversed subtraction), with type promotion.",
        binary_sampler(Grid(extra=_alpha, ints=ARITH_INTS, perf=("rsub.Tensor",),
                            thin={"rsub.Scalar": (2, 1), "rsub.Tensor_out": (3, 3), "rsub.Scalar_out": (4, 4)})),
        tolerance=SUM_TOLERANCE, scale=alpha_scales("rsub", "self"),
        notes="bool operands are rejected by ATen: never drawn."),
    "div": partial(
        aten_operator, "div", "pointwise",
        "self / other; rounding_mode None (true division: integers give float), 'trunc' or 'floor'.",
        binary_sampler(Grid(extra=_mode, scalars=(-1.75, 3, 0.5, -2), ints=DIV_INTS, perf=("div.Tensor",),
                            discontinuous=True,
                            thin={"div.Tensor": (4, 3), "div.Scalar": (6, 3), "div.Tensor_mode": (3, 1),
                                  "div.Scalar_mode": (4, 2), "div.out": (9, 9), "div.out_mode": (9, 9),
                                  "div.Scalar_out": (9, 9), "div.Scalar_mode_out": (9, 9)})),
        notes=DIV_NOTES),
    "div_": partial(
        aten_operator, "div_", "pointwise",
        "In place: self /= other, with rounding_mode None/'trunc'/'floor'; the result cast back to self's type.",
        binary_sampler(Grid(extra=_mode, scalars=(-1.75, 3, 0.5, -2), ints=DIV_INTS, perf=("div_.Tensor",),
                            discontinuous=True,
                            thin={"div_.Tensor": (3, 2), "div_.Scalar": (4, 3), "div_.Tensor_mode": (2, 1),
                                  "div_.Scalar_mode": (3, 2)})),
        notes=DIV_NOTES),
    "floor_divide": partial(
        aten_operator, "floor_divide", "pointwise",
        "floor(self / other) with Python's sign rules (integers stay integers).",
        binary_sampler(Grid(scalars=(-1.75, 3, 0.5, -2), ints=FLOOR_INTS, perf=("floor_divide",), discontinuous=True,
                            thin={"floor_divide.Scalar": (2, 1), "floor_divide.out": (3, 3),
                                  "floor_divide.Scalar_out": (4, 4)})),
        notes=DIV_NOTES),
    "eq": partial(aten_operator, "eq", "pointwise", "self == other elementwise, as bool, in the promoted type.",
                  binary_sampler(_cmp("eq")), notes=CMP_NOTES),
    "gt": partial(aten_operator, "gt", "pointwise", "self > other elementwise, as bool, in the promoted type.",
                  binary_sampler(_cmp("gt")), notes=CMP_NOTES),
    "le": partial(aten_operator, "le", "pointwise", "self <= other elementwise, as bool, in the promoted type.",
                  binary_sampler(_cmp("le")), notes=CMP_NOTES),
    "fmax": partial(
        aten_operator, "fmax", "pointwise", "Elementwise maximum that ignores NaN unless both are NaN.",
        binary_sampler(Grid(ints=(Ints(I32, I64),), special=((SPECIAL, SPECIAL), (SPECIAL, Draw())),
                            perf=("fmax",), thin={"fmax.out": (3, 3)}))),
    "heaviside": partial(
        aten_operator, "heaviside", "pointwise",
        "Step function: 0 where self < 0 (and NaN, as ATen's kernel), 1 where self > 0, `values` where self == 0 "
        "(+0.0 and -0.0).",
        binary_sampler(Grid(arg="values", a=Draw("index", -1, 2), same_dtype=True, ints=(Ints(I32, I32, (-2, 3)),),
                            special=((SPECIAL, SPECIAL), (SPECIAL, Draw())),
                            perf=("heaviside",), thin={"heaviside.out": (3, 3)}))),
    "logaddexp2": partial(
        aten_operator, "logaddexp2", "pointwise", "log2(2**self + 2**other), without overflow.",
        binary_sampler(Grid(a=Draw("uniform", -40.0, 40.0), b=Draw("uniform", -40.0, 40.0),
                            special=((SPECIAL, SPECIAL), (SPECIAL, Draw("uniform", -40.0, 40.0))),
                            perf=("logaddexp2",), thin={"logaddexp2.out": (3, 3)}))),
    "pow": partial(
        aten_operator, "pow", "pointwise",
        "self ** exponent, with Tensor or Scalar base and exponent (integers stay integers).",
        pow_sampler,
        notes="Integer tensors are never raised to negative integer powers (ATen raises for a Scalar "
              "exponent; for tensors the result is 0 or +-1 and rarely meant)."),
    "prelu": partial(
        aten_operator, "prelu", "pointwise",
        "max(0, x) + weight * min(0, x), weight one element or one per channel (dim 1).", prelu_sampler),
    "masked_fill_": partial(
        aten_operator, "masked_fill_", "pointwise",
        "In place: self[mask] = value, with a bool mask broadcast to self; value a Scalar or a 0-d tensor.",
        masked_fill_sampler),
}
