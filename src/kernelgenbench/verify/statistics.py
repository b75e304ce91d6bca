"""The statistical judge of random operators (`Operator.compare == "distribution"`).

Equality means nothing for a random output, so an operator's law (in its suite record) turns the
candidate's outputs into `Draws`: for every random element the law's CDF just below and at the
value drawn, its mean and variance, and any deterministic violation (a value outside the support,
a position that is not random at all, such as `p = 0` or `p = 1`, that is wrong). The judge then
applies the randomised probability integral transform, u = F(x-) + V (F(x) - F(x-)) with V uniform
from the harness's own generator, which is exactly uniform on [0, 1] and independent across
elements when, and only when, the elements are independent draws from the law (discrete laws and
values rounded to a low-precision dtype included: F(x-) and F(x) then bound the values that round
to x). Three tests on u share a false-rejection rate of `ALPHA` per case, reported in this order
(the most specific first: a repeated tile also distorts the marginal):

* serial correlation of u at lags 1..8, every power of two and the stride of every dimension in
  logical order (a repeated tile, a row reused for every row, an offset that ignores a dimension);
* Kolmogorov-Smirnov against U(0, 1) (the marginal law), asymptotic distribution with Stephens'
  small-sample correction;
* the standardised sum of deviations from the mean, sum(x - mean) / sqrt(sum(var)) (a biased
  sampler whose KS distance is small).

Cases with fewer than `MIN_DRAWS` random elements get only the deterministic checks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import torch

ALPHA = 1e-6
MIN_DRAWS = 1000


@dataclass(frozen=True)
class Draws:
    """What the outputs of one call say about the law (all float64, in logical element order)."""

    cdf_below: torch.Tensor  # F(x-), the law's mass strictly below the value drawn (or its rounding interval)
    cdf_at: torch.Tensor  # F(x), the mass up to and including it
    deviation: torch.Tensor  # x - mean
    variance: torch.Tensor  # var of each element
    dims: tuple[int, ...] = ()  # the logical shape the elements came from (for the lag test)
    problem: str | None = None  # a deterministic violation, which decides the verdict on its own

    @property
    def count(self) -> int:
        return int(self.cdf_at.numel())


class Law(Protocol):
    """An operator's law: the inputs before the call (native dtypes), the outputs -> Draws."""

    def __call__(self, ov: Any, inputs: Mapping[str, Any], outputs: list[Any]) -> Draws: ...


@dataclass(frozen=True)
class Finding:
    ok: bool
    reason: str = ""
    figures: dict[str, float] | None = None


def kolmogorov_p(d: float, n: int) -> float:
    """P(D_n >= d) for the one-sample KS statistic: Kolmogorov's limit at Stephens' corrected
    argument, accurate to a few percent of the p-value for n >= 100, far below our threshold."""
    if d <= 0:
        return 1.0
    t = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    if t < 0.3:
        return 1.0
    return min(1.0, max(0.0, 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * t * t) for k in range(1, 101))))


def ks_uniform(u: torch.Tensor) -> tuple[float, float]:
    """(D, p-value) of u against U(0, 1)."""
    n = u.numel()
    s = torch.sort(u.double()).values
    i = torch.arange(1, n + 1, dtype=torch.float64, device=s.device)
    d = max(float((i / n - s).max()), float((s - (i - 1) / n).max()))
    return d, kolmogorov_p(d, n)


def normal_two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def lags(n: int, dims: Sequence[int]) -> list[int]:
    """The lags whose serial correlation is tested: 1..8, powers of two, and dimension strides."""
    found = set(range(1, 9))
    p = 16
    while p <= n // 2:
        found.add(p)
        p *= 2
    stride = 1
    for size in reversed(dims):
        if stride > 1:
            found.add(stride)
        stride *= size
    return sorted(x for x in found if x <= n // 2)  # at least n/2 pairs each


def pit(draws: Draws, generator: torch.Generator) -> torch.Tensor:
    lo, hi = draws.cdf_below.double().reshape(-1), draws.cdf_at.double().reshape(-1)
    v = torch.rand(draws.count, generator=generator, dtype=torch.float64, device=generator.device).to(lo.device)
    return (lo + v * (hi - lo)).clamp(0.0, 1.0)


def judge(draws: Draws, seed: int, alpha: float = ALPHA) -> Finding:
    """The verdict on one call's draws; `seed` seeds the randomisation of the transform."""
    if draws.problem:
        return Finding(False, draws.problem)
    n = draws.count
    if n < MIN_DRAWS:
        return Finding(True)
    u = pit(draws, torch.Generator(draws.cdf_at.device).manual_seed(seed))
    tested = lags(n, draws.dims)
    share = alpha / 3
    d, p_ks = ks_uniform(u)
    var = float(draws.variance.double().sum())
    z_mean = float(draws.deviation.double().sum()) / math.sqrt(var) if var > 0 else 0.0
    figures = {"draws": float(n), "ks_d": d, "ks_p": p_ks, "mean_z": z_mean}
    centred = u - u.mean()  # the sample's own mean and spread: a constant has no correlation to show
    spread = float(centred.square().mean())
    worst_lag, worst_z = 0, 0.0
    for lag in tested if spread > 0 else ():
        m = n - lag
        r = float((centred[:-lag] * centred[lag:]).mean()) / spread
        z = r * math.sqrt(m)
        if abs(z) > abs(worst_z):
            worst_lag, worst_z = lag, z
    figures["lag_z"] = worst_z
    if worst_lag and normal_two_sided(worst_z) < share / len(tested):
        return Finding(False, f"neighbouring values are not independent: lag-{worst_lag} serial correlation is "
                              f"{worst_z:+.1f} standard errors over {n} draws (a repeated pattern or a seed "
                              f"that ignores a dimension)", figures)
    if p_ks < share:
        return Finding(False, f"the values do not follow the law: Kolmogorov-Smirnov D = {d:.4g} over {n} draws "
                              f"(p = {p_ks:.2g} < {share:.2g})", figures)
    if normal_two_sided(z_mean) < share:
        return Finding(False, f"the values are biased: their sum is {z_mean:+.2f} standard deviations from the "
                              f"law's mean over {n} draws", figures)
    return Finding(True, "", figures)


# ---- building blocks for laws ------------------------------------------------------------------

def rounding_interval(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The reals that round to each value of `x` in its own dtype (float64 bounds): between the
    midpoints to its neighbours. Exact values (float64) get a zero-width interval."""
    if x.dtype == torch.float64 or not x.dtype.is_floating_point:
        v = x.double()
        return v, v
    ints = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32}[x.dtype]
    bits = x.contiguous().view(ints)
    sign = torch.where(x < 0, -1, 1).to(ints)
    up = (bits + sign).view(x.dtype).double()  # one step away from zero
    down = (bits - sign).view(x.dtype).double()
    zero = x == 0
    down = torch.where(zero, -up, down)  # +-0: the neighbours are +-the smallest subnormal
    v = x.double()
    lo, hi = torch.minimum(up, down), torch.maximum(up, down)
    return (v + lo) / 2, (v + hi) / 2


def logical(t: torch.Tensor) -> torch.Tensor:
    """A tensor's elements in logical (row-major) order, whatever its strides, where they are: a
    GPU judges the hundred million draws of a perf case in milliseconds, a CPU in a minute."""
    return t.detach().contiguous().reshape(-1)
