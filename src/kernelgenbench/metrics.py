"""Metrics as pure functions over verdict rows (see DESIGN.md, Metrics)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
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


def by_source(rows: Iterable[Row]) -> list[Summary]:
    rows = list(rows)
    sources = sorted({r.source for r in rows}, key=lambda s: ("aten", "vllm", "cublas").index(s))
    return [summarize([r for r in rows if r.source == s], s) for s in sources] + [summarize(rows, "all")]
