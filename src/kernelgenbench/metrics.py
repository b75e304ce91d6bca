"""Metrics as pure functions over verdict rows (see DESIGN.md, Metrics)."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .store import Row
from .verify.verdict import Status


@dataclass(frozen=True)
class Summary:
    """One group of operators (a source, or all): what was attempted and how it ended."""

    group: str
    operators: int
    attempted: int
    clean_passes: int
    statuses: dict[str, int] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        """Clean passes over operators: an operator passes when any of its attempts passed."""
        return self.clean_passes / self.operators if self.operators else 0.0


def summarize(rows: Iterable[Row], group: str) -> Summary:
    rows = list(rows)
    by_op: dict[str, list[Row]] = {}
    for r in rows:
        by_op.setdefault(r.op, []).append(r)
    passed = sum(1 for rs in by_op.values() if any(r.status == Status.PASS.value for r in rs))
    statuses = Counter(r.status or "pending" for r in rows)
    return Summary(group, len(by_op), sum(1 for r in rows if r.status is not None), passed,
                   dict(sorted(statuses.items())))


def _sources(rows: list[Row]) -> list[str]:
    return sorted({r.source for r in rows}, key=lambda s: ("aten", "vllm", "cublas").index(s))


def by_source(rows: Iterable[Row]) -> list[Summary]:
    rows = list(rows)
    return [summarize([r for r in rows if r.source == s], s) for s in _sources(rows)] + [summarize(rows, "all")]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k from n samples with c passes: 1 - C(n-c, k) / C(n, k)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def sample_results(rows: Iterable[Row]) -> dict[str, dict[int, bool]]:
    """Per operator, per finished sample: did any of its rounds pass? Unfinished samples are left out."""
    by_sample: dict[tuple[str, int], list[Row]] = {}
    for r in rows:
        by_sample.setdefault((r.op, r.sample), []).append(r)
    out: dict[str, dict[int, bool]] = {}
    for (op, sample), rs in sorted(by_sample.items()):
        passed = any(r.status == Status.PASS.value for r in rs)
        if passed or all(r.status is not None for r in rs):
            out.setdefault(op, {})[sample] = passed
    return out


def pass_at(rows: Iterable[Row], k: int, early_stop: bool) -> float | None:
    """pass@k over the operators with enough finished samples; None when none has.

    Without early stopping: the unbiased estimator over each operator's n samples. With it,
    samples are drawn in order until one passes, so whether one of the first k passed is known
    for every k up to the budget, and is itself an unbiased estimate of pass@k.
    """
    values = _pass_values(rows, k, early_stop)
    return mean(values) if values else None


def pass_at_ci(rows: Iterable[Row], k: int, early_stop: bool, *, seed: int = 0) -> tuple[float, float] | None:
    """pass@k's 95% bootstrap CI over operators (None where pass_at is None)."""
    values = _pass_values(rows, k, early_stop)
    return bootstrap_ci(values, mean, seed=seed) if values else None


def _pass_values(rows: Iterable[Row], k: int, early_stop: bool) -> list[float]:
    """Each operator's pass@k estimate, over the operators with enough finished samples."""
    values = []
    for samples in sample_results(rows).values():
        if early_stop:
            first = min((s for s, ok in samples.items() if ok), default=None)
            if first is not None and first < k:
                values.append(1.0)
            elif all(s in samples for s in range(k)):
                values.append(0.0)
        elif len(samples) >= k:
            values.append(pass_at_k(len(samples), sum(samples.values()), k))
    return values


def report_ks(samples: int) -> list[int]:
    return sorted({k for k in (1, 5, 10, samples) if 1 <= k <= samples})


@dataclass(frozen=True)
class Cost:
    """What generating one group's candidates cost; tokens only where they were reported."""

    group: str
    generated: int
    tokens_in: int
    tokens_out: int
    unknown: int
    wall_s: float
    judge_s: float
    solved: int
    usd: float | None = None

    @property
    def tokens_per_solved(self) -> float | None:
        known = self.generated - self.unknown
        if not self.solved or not known:
            return None
        return (self.tokens_in + self.tokens_out) / self.solved


def cost(rows: Iterable[Row], group: str, prices: dict[str, dict[str, float]] | None = None) -> Cost:
    """Totals over a group's attempts; `prices` maps a model to USD per million input/output tokens."""
    rows = list(rows)
    generated = [r for r in rows if r.wall_s is not None]
    known = [r for r in generated if r.tokens_in is not None and r.tokens_out is not None]
    usd = None
    if prices:
        priced = [r for r in known if r.model in prices]
        if priced:
            usd = sum(r.tokens_in * prices[r.model].get("input", 0.0) / 1e6  # type: ignore[operator]
                      + r.tokens_out * prices[r.model].get("output", 0.0) / 1e6 for r in priced)  # type: ignore[operator]
    solved = summarize(rows, group).clean_passes
    return Cost(group, len(generated), sum(r.tokens_in for r in known),  # type: ignore[misc]
                sum(r.tokens_out for r in known), len(generated) - len(known),  # type: ignore[misc]
                sum(r.wall_s for r in generated), sum(r.seconds or 0.0 for r in rows), solved, usd)  # type: ignore[misc]


def cost_by_source(rows: Iterable[Row], prices: dict[str, dict[str, float]] | None = None) -> list[Cost]:
    rows = list(rows)
    sources = sorted({r.source for r in rows}, key=lambda s: ("aten", "vllm", "cublas").index(s))
    return [cost([r for r in rows if r.source == s], s, prices) for s in sources] + [cost(rows, "all", prices)]


# Speed-ups (DESIGN.md: two-level geometric mean over passed operators, with median and IQM) ------


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def geomean(values: Iterable[float]) -> float:
    xs = list(values)
    if not xs or any(x <= 0 for x in xs):
        raise ValueError("the geometric mean needs at least one positive value, and only positive ones")
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def median(values: Iterable[float]) -> float:
    xs = sorted(values)
    if not xs:
        raise ValueError("the median of nothing")
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def iqm(values: Iterable[float]) -> float:
    """Interquartile mean: the mean after dropping floor(n/4) values at each end."""
    xs = sorted(values)
    if not xs:
        raise ValueError("the IQM of nothing")
    cut = len(xs) // 4
    kept = xs[cut: len(xs) - cut]
    return sum(kept) / len(kept)


def case_speedup(t_baseline: float, t_candidate: float) -> float:
    if t_baseline <= 0 or t_candidate <= 0:
        raise ValueError("times must be positive")
    return t_baseline / t_candidate


@dataclass(frozen=True)
class Speedup:
    """A method's speed-up over its passed operators: each operator is the geometric mean of its
    cases; the method is the geometric mean of its operators, with median and IQM beside it."""

    operators: int
    geomean: float
    median: float
    iqm: float


def method_speedup(per_operator_cases: dict[str, list[float]]) -> Speedup | None:
    """`per_operator_cases`: for each passed operator, its per-case speed-ups."""
    ops = [geomean(cases) for cases in per_operator_cases.values() if cases]
    if not ops:
        return None
    return Speedup(len(ops), geomean(ops), median(ops), iqm(ops))


def fast_p(operator_speedups: dict[str, float | None], p: float) -> float:
    """Share of all operators that pass with an operator speed-up above p (None: not passed)."""
    if not operator_speedups:
        return 0.0
    return sum(1 for s in operator_speedups.values() if s is not None and s > p) / len(operator_speedups)


FAST_P = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)


def matched_set(passed_by_run: dict[str, set[str]]) -> set[str]:
    """The operators every compared run passed: the only fair ground for comparing their speed."""
    sets = list(passed_by_run.values())
    return set.intersection(*sets) if sets else set()


def bootstrap_ci(values: list[float], statistic: Callable[[list[float]], float], *, resamples: int = 2000,
                 level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap over operators (resampled with replacement), seeded for reproducibility."""
    if not values:
        raise ValueError("a confidence interval needs at least one value")
    rng = random.Random(seed)
    stats = sorted(statistic([rng.choice(values) for _ in values]) for _ in range(resamples))
    lo = stats[int((1 - level) / 2 * resamples)]
    hi = stats[min(resamples - 1, int((1 + level) / 2 * resamples))]
    return lo, hi


def operator_speedups(rows: Iterable[Row]) -> dict[str, float | None]:
    """Each operator's speed-up: that of its first passing, timed attempt (None: not passed or not timed)."""
    out: dict[str, float | None] = {}
    for r in sorted(rows, key=lambda r: (r.op, r.sample, r.round)):
        if out.get(r.op) is None:
            out[r.op] = r.speedup if r.status == Status.PASS.value else None
    return out


@dataclass(frozen=True)
class SpeedSummary:
    """The speed view of one group: the two-level geometric mean over its passed, timed operators,
    with a bootstrap CI, median and IQM beside it, and fast_p over all its operators."""

    group: str
    operators: int
    timed: int
    speedup: Speedup | None
    ci: tuple[float, float] | None
    fast: dict[float, float]
    flagged_cases: int
    accuracy_ci: tuple[float, float] | None


def speed_summary(rows: Iterable[Row], group: str, *, seed: int = 0) -> SpeedSummary:
    rows = list(rows)
    speeds = operator_speedups(rows)
    timed = {op: s for op, s in speeds.items() if s is not None}
    passed = [1.0 if any(r.status == Status.PASS.value for r in rows if r.op == op) else 0.0 for op in speeds]
    flagged = sum(r.flagged for r in rows)
    return SpeedSummary(
        group, len(speeds), len(timed),
        method_speedup({op: [s] for op, s in timed.items()}),
        bootstrap_ci(list(timed.values()), geomean, seed=seed) if timed else None,
        {p: fast_p(speeds, p) for p in FAST_P},
        flagged,
        bootstrap_ci(passed, lambda xs: sum(xs) / len(xs), seed=seed) if passed else None,
    )


def speed_by_source(rows: Iterable[Row]) -> list[SpeedSummary]:
    rows = list(rows)
    return [speed_summary([r for r in rows if r.source == s], s) for s in _sources(rows)] + [speed_summary(rows, "all")]


@dataclass(frozen=True)
class Comparison:
    """One run's figures on the operators every compared run passed and timed (the matched set)."""

    run: str
    operators: int
    clean_passes: int
    matched: int
    speedup: Speedup | None
    ci: tuple[float, float] | None


def compare_runs(rows_by_run: dict[str, list[Row]], *, seed: int = 0) -> list[Comparison]:
    speeds = {run: operator_speedups(rows) for run, rows in rows_by_run.items()}
    matched = matched_set({run: {op for op, s in sp.items() if s is not None} for run, sp in speeds.items()})
    out = []
    for run, sp in speeds.items():
        on_matched = {op: s for op in sorted(matched) if (s := sp[op]) is not None}
        clean = len({r.op for r in rows_by_run[run] if r.status == Status.PASS.value})
        out.append(Comparison(run, len(sp), clean, len(matched),
                              method_speedup({op: [s] for op, s in on_matched.items()}),
                              bootstrap_ci(list(on_matched.values()), geomean, seed=seed) if on_matched else None))
    return out


REPEATABILITY = 0.02
"""Two runs of the same kernels agree on each operator's speed-up within this (the goal of the A/A
check; measured at 0.4% at worst over 16 operators on the H200, benchmarks/results/
repeatability-h200.md): a smaller speed gap between runs is noise, whatever its CI."""


@dataclass(frozen=True)
class Difference:
    """One run against the first compared run, paired by operator: accuracy over the operators both
    attempted (points), speed-up over those both passed and timed (geomean of per-operator ratios)."""

    run: str
    against: str
    accuracy: float | None
    accuracy_ci: tuple[float, float] | None
    speed: float | None
    speed_ci: tuple[float, float] | None
    speed_pairs: int

    @property
    def verdict(self) -> str:
        """What the differences amount to: each one significant (CI excluding none), or noise."""
        parts = []
        if self.accuracy_ci is not None:
            lo, hi = self.accuracy_ci
            parts.append("accuracy within noise" if lo <= 0 <= hi else
                         f"accuracy {'higher' if lo > 0 else 'lower'}")
        if self.speed_ci is not None and self.speed is not None:
            lo, hi = self.speed_ci
            noise = lo <= 1 <= hi or abs(math.log(self.speed)) <= math.log1p(REPEATABILITY)
            parts.append("speed within noise" if noise else f"{'faster' if lo > 1 else 'slower'}")
        return ", ".join(parts)


def differences(rows_by_run: dict[str, list[Row]], *, seed: int = 0) -> list[Difference]:
    """Every run after the first against the first, with paired bootstrap CIs over operators."""
    names = list(rows_by_run)
    if len(names) < 2:
        return []
    solved = {run: {r.op: False for r in rows} for run, rows in rows_by_run.items()}
    for run, rows in rows_by_run.items():
        for r in rows:
            solved[run][r.op] |= r.status == Status.PASS.value
    speeds = {run: operator_speedups(rows) for run, rows in rows_by_run.items()}
    first = names[0]
    out = []
    for run in names[1:]:
        common = sorted(set(solved[first]) & set(solved[run]))
        diffs = [float(solved[run][op]) - float(solved[first][op]) for op in common]
        timed = [op for op in common if speeds[first].get(op) and speeds[run].get(op)]
        logs = [math.log(speeds[run][op] / speeds[first][op]) for op in timed]  # type: ignore[operator]
        log_ci = bootstrap_ci(logs, mean, seed=seed) if logs else None
        out.append(Difference(run, first, mean(diffs) if diffs else None,
                              bootstrap_ci(diffs, mean, seed=seed) if diffs else None,
                              math.exp(mean(logs)) if logs else None,
                              (math.exp(log_ci[0]), math.exp(log_ci[1])) if log_ci else None, len(logs)))
    return out
