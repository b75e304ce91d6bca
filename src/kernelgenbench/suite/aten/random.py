"""Random operators: bernoulli, exponential_, poisson, rrelu_with_noise.

Judged statistically (`compare="distribution"`, `verify/statistics.py`): each record's law reads
the inputs and the candidate's outputs and says, per random element, where the value drawn lies
in the law the arguments define; deterministic positions (a probability of exactly 0 or 1, a rate
of 0, the non-negative inputs of rrelu, rrelu outside training) are checked exactly. A generator
is passed in two cases of three (the default generator in the rest) and must be honoured. The
grids draw sizes with thousands of random elements, where the tests have power, beside the small,
empty and 0-d ones, where only the exact checks apply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import torch

from ...verify.statistics import Draws, logical, rounding_interval
from ..build import FLOATS, covering
from ..spec import GENERATOR, Layout, Operator, Overload, Size, TensorSpec
from .family import aten_operator, samples_of

SHAPES = {
    "small": [(), (7,), (64, 96), (3, 5, 200), (0, 4), (4097,)],  # most with power: see the module docstring
    "large": [(1025, 4097), (8, 512, 1023)],
    "perf": [(4096, 4096), (8192, 14336)],
}
READ_LAYOUTS: tuple[Layout, ...] = ("contiguous", "transposed", "strided", "expanded")
WRITE_LAYOUTS: tuple[Layout, ...] = ("contiguous", "transposed", "strided")  # an expanded tensor cannot be written


def _layouts(size: Size, written: bool) -> tuple[Layout, ...]:
    return ("contiguous",) if size == "perf" else WRITE_LAYOUTS if written else READ_LAYOUTS


def _is_out(ov: Overload) -> bool:
    """The `out=` forms, which take every other case of their functional twin's grid."""
    return ov.name.endswith("out")


def _generator(i: int) -> Any:
    return None if i % 3 == 2 else GENERATOR


def _violation(what: str, bad: torch.Tensor, values: torch.Tensor) -> str:
    i = int(bad.nonzero()[0, 0])
    return f"{what}: {int(bad.sum())} elements, the first at flat index {i} ({float(values[i])!r})"


def _empty() -> torch.Tensor:
    return torch.empty(0, dtype=torch.float64)


def _no_draws(problem: str | None = None) -> Draws:
    return Draws(_empty(), _empty(), _empty(), _empty(), (), problem)


# ---- bernoulli -----------------------------------------------------------------------------------

def _probabilities(ov: Overload, inputs: Mapping[str, Any], shape: torch.Size) -> torch.Tensor:
    """Each element's probability of a one: `self` (bernoulli), the float `p`, or the tensor `p`
    broadcast to self."""
    if "p" not in inputs:
        return logical(inputs["self"]).double()
    p = inputs["p"]
    if isinstance(p, torch.Tensor):
        return logical(p.expand(shape)).double()
    return torch.full((int(torch.Size(shape).numel()),), float(p), dtype=torch.float64, device=inputs["self"].device)


def bernoulli_law(ov: Overload, inputs: Mapping[str, Any], outputs: list[Any]) -> Draws:
    x = logical(outputs[0]).double()
    p = _probabilities(ov, inputs, outputs[0].shape)
    outside = (x != 0) & (x != 1)
    if outside.any():
        return _no_draws(_violation("values other than 0 and 1", outside, x))
    fixed = (p == 0) | (p == 1)
    wrong = fixed & (x != p)
    if wrong.any():
        return _no_draws(_violation("a probability of exactly 0 or 1 drew the other value", wrong, x))
    x, p = x[~fixed], p[~fixed]
    return Draws(torch.where(x == 0, 0.0, 1 - p), torch.where(x == 0, 1 - p, 1.0), x - p, p * (1 - p),
                 tuple(outputs[0].shape) if not fixed.any() else ())


BERNOULLI_P = (0.5, 0.0, 0.03, 1.0, 0.97)


def bernoulli_sampler(ov: Overload, size: Size):
    """Probability tensors with exact 0s and 1s; float `p` of 0, 1, near 0 and near 1; a `p`
    tensor broadcast along a dim; a generator or the default one."""

    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(SHAPES[size], FLOATS, _layouts(size, False))):
            if _is_out(ov) and i % 2:
                continue
            probs = TensorSpec(shape, dtype, layout, "endpoints", 0.0, 1.0)
            values: dict[str, Any] = {"self": probs, "generator": _generator(i)}
            if ov.name in ("bernoulli.p", "bernoulli.float_out"):
                values["self"] = TensorSpec(shape, dtype, layout)
                values["p"] = BERNOULLI_P[i % len(BERNOULLI_P)] if size != "perf" else 0.9
            elif ov.name in ("bernoulli.Tensor", "bernoulli.Tensor_out"):
                values["self"] = TensorSpec(shape, dtype, layout)
                broadcast = len(shape) >= 2 and i % 2 == 0
                p_shape = (1,) + shape[1:] if broadcast else shape
                values["p"] = TensorSpec(p_shape, torch.float32 if i % 3 == 0 else dtype, "contiguous",
                                         "endpoints", 0.0, 1.0)
            yield values

    return samples_of(ov, grid())


# ---- exponential_ --------------------------------------------------------------------------------

def exponential_law(ov: Overload, inputs: Mapping[str, Any], outputs: list[Any]) -> Draws:
    out = outputs[0]
    x = logical(out).double()
    bad = ~torch.isfinite(x) | (x < 0)
    if bad.any():
        return _no_draws(_violation("values outside [0, inf)", bad, x))
    rate = float(inputs.get("lambd", 1.0))
    lo, hi = (logical(t) for t in rounding_interval(out))
    lo, hi = lo.clamp(min=0.0), hi.clamp(min=0.0)
    return Draws(-torch.expm1(-rate * lo), -torch.expm1(-rate * hi), x - 1 / rate,
                 torch.full_like(x, 1 / rate ** 2), tuple(out.shape))


EXPONENTIAL_RATE = (1.0, 0.25, 7.5)


def exponential_sampler(ov: Overload, size: Size):
    def grid():
        dtypes = FLOATS + ((torch.float64,) if size == "small" else ())
        for i, (shape, dtype, layout) in enumerate(covering(SHAPES[size], dtypes, _layouts(size, True))):
            yield {"self": TensorSpec(shape, dtype, layout), "lambd": EXPONENTIAL_RATE[i % 3],
                   "generator": _generator(i)}

    return samples_of(ov, grid())


# ---- poisson -------------------------------------------------------------------------------------

def poisson_law(ov: Overload, inputs: Mapping[str, Any], outputs: list[Any]) -> Draws:
    k = logical(outputs[0]).double()
    rate = logical(inputs["self"]).double()
    bad = ~torch.isfinite(k) | (k < 0) | (k != k.floor())
    if bad.any():
        return _no_draws(_violation("values that are not counts (non-negative integers)", bad, k))
    wrong = (rate == 0) & (k != 0)
    if wrong.any():
        return _no_draws(_violation("a rate of 0 drew a non-zero count", wrong, k))
    live = rate > 0
    k, rate = k[live], rate[live]
    at = torch.special.gammaincc(k + 1, rate)  # P(X <= k)
    below = torch.where(k > 0, torch.special.gammaincc(k.clamp(min=1), rate), 0.0)
    return Draws(below, at, k - rate, rate, tuple(outputs[0].shape) if bool(live.all()) else ())


POISSON_RATES = ((0.0, 4.0), (0.0, 60.0), (8.0, 30.0))


def poisson_sampler(ov: Overload, size: Size):
    """Rates below 10 (where samplers invert the CDF), above (where they reject), and exactly 0."""

    def grid():
        for i, (shape, dtype, layout) in enumerate(covering(SHAPES[size], FLOATS, _layouts(size, False))):
            if _is_out(ov) and i % 2:
                continue
            low, high = POISSON_RATES[i % 3] if size != "perf" else (0.0, 20.0)
            yield {"self": TensorSpec(shape, dtype, layout, "endpoints", low, high), "generator": _generator(i)}

    return samples_of(ov, grid())


# ---- rrelu_with_noise ----------------------------------------------------------------------------

def _eps(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps


def rrelu_law(ov: Overload, inputs: Mapping[str, Any], outputs: list[Any]) -> Draws:
    """Training: each x <= 0 is scaled by its own r ~ U(lower, upper), which is written to `noise`
    (1 where x > 0, whose output is x itself). Otherwise a leaky relu of slope (lower + upper) / 2
    that leaves `noise` as it was."""
    noise, out = outputs if ov.name.endswith(".out") else reversed(outputs)  # out= lists noise first
    x = logical(inputs["self"]).double()
    y, r = logical(out).double(), logical(noise).double()
    lower, upper = float(inputs.get("lower", 0.125)), float(inputs.get("upper", 1 / 3))
    if not inputs.get("training", False):
        want = torch.where(x > 0, x, x * (lower + upper) / 2)
        wrong = (y - want).abs() > 2 * _eps(out.dtype) * want.abs() + 1e-30
        if wrong.any():
            return _no_draws(_violation("outputs other than leaky_relu(x, (lower + upper) / 2)", wrong, y))
        before = logical(inputs["noise"]).double()
        if not torch.equal(r, before):
            return _no_draws("`noise` was written outside training, where it is left as it came")
        return _no_draws()
    negative = x <= 0
    kept = ~negative & ((r != 1) | (y != x))
    if kept.any():
        return _no_draws(_violation("positive inputs must pass through with noise 1", kept, y))
    slack = 0.5 * _eps(noise.dtype) * (upper + lower)
    outside = negative & ((r < lower - slack) | (r > upper + slack))
    if outside.any():
        return _no_draws(_violation("noise outside [lower, upper]", outside, r))
    scaled = x * r
    wrong = negative & ((y - scaled).abs() > 2 * _eps(out.dtype) * scaled.abs() + x.abs() * slack + 1e-30)
    if wrong.any():
        return _no_draws(_violation("outputs other than self * noise", wrong, y))
    lo, hi = (logical(t)[negative] for t in rounding_interval(noise))
    width = upper - lower
    mean = (lower + upper) / 2
    r = r[negative]
    return Draws(((lo - lower) / width).clamp(0, 1), ((hi - lower) / width).clamp(0, 1), r - mean,
                 torch.full_like(r, width ** 2 / 12), ())


RRELU_BOUNDS = ((0.125, 1 / 3), (0.01, 0.9), (0.3, 0.31))


def rrelu_sampler(ov: Overload, size: Size):
    """Training and not, the default bounds, wide and narrow ones; a contiguous `noise` of self's
    shape (ATen's CPU kernel writes a strided noise in storage order, not at each element's place)."""

    def grid():
        dtypes = (torch.float32, torch.bfloat16)  # ATen's CPU kernel has no float16
        for i, (shape, dtype, layout) in enumerate(covering(SHAPES[size], dtypes, _layouts(size, True))):
            if _is_out(ov) and i % 2:
                continue
            lower, upper = RRELU_BOUNDS[i % 3] if size != "perf" else RRELU_BOUNDS[0]
            yield {"self": TensorSpec(shape, dtype, layout if layout != "expanded" else "contiguous"),
                   "noise": TensorSpec(shape, dtype),
                   "lower": lower, "upper": upper, "training": size == "perf" or i % 4 != 3,
                   "generator": _generator(i)}

    return samples_of(ov, grid())


def _functional_perf(sampler: Callable, limit: int = 4) -> Callable:
    """At most `limit` performance cases, on the functional and in-place overloads only (an `out=`
    form times the same kernel)."""

    def wrapped(ov: Overload, size: Size):
        if size != "perf":
            return sampler(ov, size)
        return () if _is_out(ov) else list(sampler(ov, size))[:limit]

    return wrapped


def _random_operator(name: str, doc: str, sampler: Callable, law: Callable, notes: str = "") -> Operator:
    return aten_operator(name, "random", doc, _functional_perf(sampler), work="random", compare="distribution",
                         law=law, notes=notes)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "bernoulli": partial(_random_operator, "bernoulli",
                         "Draws 0 or 1 per element with probability `self` (or `p`: a float, or a tensor "
                         "broadcast to self) of a 1, from `generator`.", bernoulli_sampler, bernoulli_law,
                         notes="Floating self only (an integer self of bernoulli.p is not drawn)."),
    "exponential_": partial(_random_operator, "exponential_",
                            "Fills self in place with draws from the exponential law of rate `lambd` "
                            "(density lambd * exp(-lambd * x)), from `generator`.", exponential_sampler,
                            exponential_law, notes="lambd <= 0 raises in ATen and is not drawn."),
    "poisson": partial(_random_operator, "poisson",
                       "Draws a Poisson count per element with rate `self`, from `generator`; a rate of 0 "
                       "gives 0.", poisson_sampler, poisson_law,
                       notes="Rates up to 60, whose counts are exact in bfloat16 (integers up to 256)."),
    "rrelu_with_noise": partial(_random_operator, "rrelu_with_noise",
                                "Randomized leaky ReLU: in training each x <= 0 is scaled by its own "
                                "r ~ U(lower, upper), written to `noise` (1 elsewhere); otherwise the slope "
                                "is (lower + upper) / 2 and `noise` is left alone.", rrelu_sampler, rrelu_law,
                                notes="lower == upper (a constant slope) is not drawn; noise is contiguous (ATen's CPU "
                                      "kernel writes a strided one in storage order); float16 is not drawn "
                                      "(ATen's CPU kernel lacks it, and cases are the same on every platform)."),
}
