"""The original-vs-twin gap: how much worse a run does on perturbed twins than on their originals.

Each twin is paired with its original in the same run. Accuracy: per pair, the share of the
original's samples that passed minus the twin's; the run's gap is the mean over pairs. Speed: per
pair that passed and was timed on both sides, the original's speed-up over the twin's (each over
its own native baseline); the run's gap is their geometric mean. Both come with paired bootstrap
CIs over pairs (`metrics.bootstrap_ci`: resampling pairs keeps each original with its twin).

A gap is significant when its 95% CI excludes no gap (0 for accuracy, 1 for the speed ratio) and
there are at least `MIN_PAIRS` pairs: with fewer, even a gap of the same sign in every pair is
below 5% two-sided significance in a sign test (2 * 2^-n), so no interval is trusted. One
operator is flagged the same way over its samples paired by index (`--n`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..metrics import bootstrap_ci, mean, sample_results
from ..store import Row
from ..suite import registry
from ..suite.perturbed import is_twin, original_of
from ..verify.verdict import Status

MIN_PAIRS = 6


@dataclass(frozen=True)
class Interval:
    """A paired gap with its 95% bootstrap CI; `none` is the value that means no gap."""

    value: float
    ci: tuple[float, float]
    pairs: int
    none: float

    @property
    def significant(self) -> bool:
        return self.pairs >= MIN_PAIRS and not self.ci[0] <= self.none <= self.ci[1]


def _interval(diffs: list[float], statistic: Callable[[list[float]], float], none: float) -> Interval | None:
    if not diffs:
        return None
    return Interval(statistic(diffs), bootstrap_ci(diffs, statistic), len(diffs), none)


@dataclass(frozen=True)
class PairGap:
    """One twin beside its original: pass shares over samples, speed-ups, and its own flag."""

    twin: str
    original: str
    what: str
    original_passed: float
    twin_passed: float
    original_speedup: float | None
    twin_speedup: float | None
    accuracy: Interval | None  # over samples paired by index
    speed: Interval | None  # log speed-up ratios over samples that passed and were timed on both sides

    @property
    def flagged(self) -> bool:
        return any(i is not None and i.significant for i in (self.accuracy, self.speed))


@dataclass(frozen=True)
class Gap:
    """A run's gap over its pairs: accuracy (original minus twin) and speed (original over twin)."""

    pairs: tuple[PairGap, ...]
    accuracy: Interval | None
    speed: Interval | None  # geometric mean of the speed-up ratios, CI of the same

    @property
    def original_accuracy(self) -> float:
        return mean([p.original_passed for p in self.pairs])

    @property
    def twin_accuracy(self) -> float:
        return mean([p.twin_passed for p in self.pairs])


def split_twins(rows: list[Row]) -> tuple[list[Row], list[Row]]:
    """(rows of the suite's operators, rows of perturbed twins)."""
    return [r for r in rows if not is_twin(r.op)], [r for r in rows if is_twin(r.op)]


def _speedups(rows: list[Row]) -> dict[int, float]:
    """Per sample, the speed-up of its passing timed attempt."""
    return {r.sample: r.speedup for r in rows if r.status == Status.PASS.value and r.speedup}


def _what(twin: str) -> str:
    try:
        return registry.get(twin).perturbation
    except KeyError:
        return ""


def _pair(twin: str, original: str, by_op: dict[str, list[Row]], passed: dict[str, dict[int, bool]]) -> PairGap:
    o_pass, t_pass = passed.get(original, {}), passed.get(twin, {})
    paired = sorted(set(o_pass) & set(t_pass))
    o_speed, t_speed = _speedups(by_op[original]), _speedups(by_op[twin])
    timed = sorted(set(o_speed) & set(t_speed))
    return PairGap(
        twin, original, _what(twin),
        mean([float(v) for v in o_pass.values()]) if o_pass else 0.0,
        mean([float(v) for v in t_pass.values()]) if t_pass else 0.0,
        o_speed[min(o_speed)] if o_speed else None,
        t_speed[min(t_speed)] if t_speed else None,
        _interval([float(o_pass[s]) - float(t_pass[s]) for s in paired], mean, 0.0),
        _interval([math.log(o_speed[s] / t_speed[s]) for s in timed], mean, 0.0),
    )


def gap(rows: list[Row]) -> Gap | None:
    """The run's gap, or None when it has no twin beside its original."""
    by_op: dict[str, list[Row]] = {}
    for r in rows:
        by_op.setdefault(r.op, []).append(r)
    passed = sample_results(rows)
    pairs = tuple(_pair(op, original_of(op), by_op, passed) for op in sorted(by_op)
                  if is_twin(op) and original_of(op) in by_op)
    if not pairs:
        return None
    speeds = [math.log(p.original_speedup / p.twin_speedup) for p in pairs
              if p.original_speedup and p.twin_speedup]
    speed = _interval(speeds, mean, 0.0)
    return Gap(pairs, _interval([p.original_passed - p.twin_passed for p in pairs], mean, 0.0),
               None if speed is None else Interval(math.exp(speed.value), (math.exp(speed.ci[0]),
                                                   math.exp(speed.ci[1])), speed.pairs, 1.0))


def _ratio(i: Interval | None) -> Interval | None:
    """A per-pair speed interval on log ratios, as a ratio."""
    return None if i is None else Interval(math.exp(i.value), (math.exp(i.ci[0]), math.exp(i.ci[1])), i.pairs, 1.0)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _span(i: Interval | None, fmt: Callable[[float], str]) -> str:
    return "" if i is None else f"{fmt(i.ci[0])} to {fmt(i.ci[1])}"


def _x(v: float | None) -> str:
    return "" if v is None else f"{v:.3f}"


def _verdict(i: Interval | None) -> str:
    if i is None:
        return "no pairs"
    if i.pairs < MIN_PAIRS:
        return f"too few pairs ({i.pairs} < {MIN_PAIRS})"
    return "significant" if i.significant else "not significant"


def markdown(g: Gap) -> str:
    speed = g.speed
    summary = [
        ["accuracy: original minus twin (points)", _pct(g.accuracy.value) if g.accuracy else "",
         _span(g.accuracy, _pct), g.accuracy.pairs if g.accuracy else 0, _verdict(g.accuracy)],
        ["speed-up: original over twin (x, geomean)", _x(speed.value if speed else None), _span(speed, _x),
         speed.pairs if speed else 0, _verdict(speed)],
    ]
    lines = ["## Perturbed twins: the gap", "",
             "Each perturbed twin (`kgbench ops --perturbed`) is paired with its original in this run. A model that "
             "derives kernels scores about the same on both; one that recites memorised code scores lower on the "
             "twins. The suite's figures above leave the twins out.", "",
             f"Original accuracy {_pct(g.original_accuracy)}%, twin accuracy {_pct(g.twin_accuracy)}% over "
             f"{len(g.pairs)} pairs. Paired bootstrap 95% CIs over pairs; significant when the CI excludes no gap "
             f"and there are at least {MIN_PAIRS} pairs.", "",
             "| gap | value | 95% CI | pairs | verdict |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in summary]
    lines += ["", "| twin | what changed | original passed (%) | twin passed (%) | original speed-up (x) | "
              "twin speed-up (x) | flagged |", "|---|---|---|---|---|---|---|"]
    for p in g.pairs:
        lines.append(f"| {p.twin} | {p.what} | {_pct(p.original_passed)} | {_pct(p.twin_passed)} | "
                     f"{_x(p.original_speedup)} | {_x(p.twin_speedup)} | {'yes' if p.flagged else ''} |")
    flagged = [p.twin for p in g.pairs if p.flagged]
    lines += ["", f"Operators whose own gap is significant (over their samples, at least {MIN_PAIRS}): "
              f"{', '.join(flagged) if flagged else 'none'}.", ""]
    return "\n".join(lines)


def _interval_json(i: Interval | None) -> dict[str, Any] | None:
    return None if i is None else {"value": i.value, "ci95": list(i.ci), "pairs": i.pairs,
                                   "significant": i.significant}


def as_json(g: Gap) -> dict[str, Any]:
    return {
        "pairs": len(g.pairs), "original_accuracy": g.original_accuracy, "twin_accuracy": g.twin_accuracy,
        "accuracy_gap": _interval_json(g.accuracy), "speedup_ratio": _interval_json(g.speed),
        "min_pairs": MIN_PAIRS,
        "by_twin": [{"twin": p.twin, "original": p.original, "what": p.what,
                     "original_passed": p.original_passed, "twin_passed": p.twin_passed,
                     "original_speedup": p.original_speedup, "twin_speedup": p.twin_speedup,
                     "accuracy_gap": _interval_json(p.accuracy), "speedup_ratio": _interval_json(_ratio(p.speed)),
                     "flagged": p.flagged} for p in g.pairs],
    }
