"""Which operators are hard and why candidates fail: the difficulty ranking and the failure taxonomy.

Both read only verdict rows; the figures come from metrics.py (summaries, operator speed-ups,
medians), and the failing semantic is read off the verdict's reason and failing case, the two
places where the harness says what went wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..metrics import Summary, median, operator_speedups, summarize
from ..store import Row
from ..suite import registry
from ..verify.verdict import Status

SOURCES = ("aten", "vllm", "cublas")


def family_of(op: str) -> str:
    """The operator's family in the suite (pointwise, norm, blas3...); `unknown` for an operator
    the installed suite no longer has."""
    try:
        return registry.get(op).family
    except KeyError:
        return "unknown"


def summaries_by(rows: Iterable[Row], key: Callable[[Row], str]) -> list[Summary]:
    """One metrics.Summary per group of rows (a source, a family), in the groups' order."""
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    return [summarize(groups[g], g) for g in sorted(groups, key=_group_order)]


def _group_order(group: str) -> tuple[int, str]:
    return (SOURCES.index(group) if group in SOURCES else len(SOURCES), group)


# The failing semantic ---------------------------------------------------------------------------

_OUTPUT_MISMATCH = re.compile(r"output \d+ is (torch\.\w+)(\[[^\]]*\]), expected (torch\.\w+)(\[[^\]]*\])")
_EMPTY_TENSOR = re.compile(r"\[(?:[^\]]*, )?0(?:, [^\]]*)?\]")
_ZERO_DIM = re.compile(r"[a-z0-9]\[\]")
_NON_CONTIGUOUS = re.compile(r"\] (?:strided|transposed|expanded)\b")
_OUT_VARIANT = re.compile(r"^[\w.]*\.out\b")


def _from_reason(reason: str) -> str | None:
    """What the reason names outright: the output's layout, dtype or shape, special values, aliasing."""
    mismatch = _OUTPUT_MISMATCH.search(reason)
    if mismatch:
        return "output dtype" if mismatch.group(1) != mismatch.group(3) else "output shape"
    for needle, semantic in (("non-finite values differ", "NaN/Inf positions"),
                             ("has strides", "output strides (memory format)"),
                             ("modified its input", "input written"),
                             ("shares memory with", "views and aliasing"),
                             ("the native op returns a", "views and aliasing"),
                             ("expected a plain torch.Tensor", "output type"),
                             ("returned ", "number of outputs"),
                             (" is on ", "output device")):
        if needle in reason:
            return semantic
    return None


def _from_case(case: str) -> str | None:
    """What the failing case's inputs single out: empty or 0-d tensors, strided views, `out=`."""
    arguments = case.split(":", 1)[-1]
    if _EMPTY_TENSOR.search(arguments):
        return "empty tensors"
    if _ZERO_DIM.search(arguments):
        return "0-d tensors"
    if _NON_CONTIGUOUS.search(arguments):
        return "strided inputs"
    if _OUT_VARIANT.match(case):
        return "out= variant"
    return None


def failure_semantic(row: Row) -> str | None:
    """The semantic a failed correctness check points at, or None for an outcome that is not one
    (a pass, a cheat, a compile error, a timeout).

    The reason's own words come first (they say what differed); then the failing case's inputs
    (an empty tensor is why a kernel that works elsewhere fails); then what kind of comparison
    failed (numerical accuracy, exact values) or that the kernel raised."""
    if row.status not in (Status.WRONG_RESULT.value, Status.RUNTIME_ERROR.value, Status.CRASH.value):
        return None
    reason = row.reason or ""
    found = _from_reason(reason) or _from_case(row.failing_case or "")
    if found:
        return found
    if "numerical error too large" in reason:
        return "numerical accuracy"
    if "values differ" in reason:
        return "exact values (integers, indices)"
    if row.status == Status.WRONG_RESULT.value:
        return "other wrong result"
    return "raised at run time"


@dataclass(frozen=True)
class Semantic:
    """One failing semantic: how many failed attempts point at it, on which operators, and one example."""

    name: str
    failures: int
    operators: tuple[str, ...]
    example_op: str
    example_case: str
    example_reason: str


def failing_semantics(rows: Iterable[Row]) -> list[Semantic]:
    """The failing semantics, most common first."""
    found: dict[str, list[Row]] = {}
    for r in rows:
        semantic = failure_semantic(r)
        if semantic is not None:
            found.setdefault(semantic, []).append(r)
    out = []
    for name, rs in found.items():
        first = rs[0]
        out.append(Semantic(name, len(rs), tuple(sorted({r.op for r in rs})), first.op, first.failing_case or "",
                            first.reason or ""))
    return sorted(out, key=lambda s: (-s.failures, s.name))


# Difficulty -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Difficulty:
    """One operator across runs: how many of the runs that attempted it solved it, and the median of
    their operator speed-ups (None: no run passed and timed it)."""

    op: str
    source: str
    family: str
    attempted: int
    solved: int
    median_speedup: float | None
    statuses: dict[str, str]  # run name -> the operator's best status in that run


def _best_status(rows: list[Row]) -> str:
    statuses = [r.status or "pending" for r in rows]
    return Status.PASS.value if Status.PASS.value in statuses else statuses[-1]


def difficulty(rows_by_run: dict[str, list[Row]]) -> list[Difficulty]:
    """Operators ranked hardest first: the smallest share of runs solving them, then the fewest runs,
    then the slowest median speed-up (operators no run timed after the timed ones)."""
    speeds = {run: operator_speedups(rows) for run, rows in rows_by_run.items()}
    per_op: dict[str, dict[str, list[Row]]] = {}
    for run, rows in rows_by_run.items():
        for r in rows:
            per_op.setdefault(r.op, {}).setdefault(run, []).append(r)
    out = []
    for op, runs in per_op.items():
        statuses = {run: _best_status(rs) for run, rs in runs.items()}
        timed = [s for run in runs if (s := speeds[run].get(op)) is not None]
        out.append(Difficulty(op, op.split("::", 1)[0], family_of(op), len(runs),
                              sum(s == Status.PASS.value for s in statuses.values()),
                              median(timed) if timed else None, statuses))
    return sorted(out, key=lambda d: (d.solved / d.attempted, d.solved, d.median_speedup is None,
                                      d.median_speedup or 0.0, d.op))
