"""What the site shows, read from the store once: each run's figures (from metrics.py) and each
attempt's full record (verdict cases, timing cases, source, model reply) for the operator pages."""

from __future__ import annotations

from dataclasses import dataclass

from ...metrics import Cost, SpeedSummary, Summary, by_source, cost, speed_by_source, speed_summary
from ...store import Row, Run, Store
from ...verify.timing import CaseTiming
from ...verify.verdict import Verdict
from ..gap import Gap, gap, split_twins
from ..tables import _prices, _speed_rows, _timed


@dataclass(frozen=True)
class SourceView:
    """One source (or `all`) of one run: statuses, and the speed view when the run was timed."""

    source: str
    summary: Summary
    speed: SpeedSummary | None


@dataclass(frozen=True)
class RunView:
    run: Run
    rows: tuple[Row, ...]
    accuracy_ci: tuple[float, float] | None
    cost: Cost
    sources: tuple[SourceView, ...]  # aten, vllm, cublas as present, then `all`
    gap: Gap | None = None  # originals against their perturbed twins, when the run has twins

    @property
    def name(self) -> str:
        return self.run.name

    @property
    def model(self) -> str:
        return str(self.run.config.get("model") or self.run.config.get("agent") or "")

    @property
    def device(self) -> str:
        return str(self.run.environment.get("device") or "")

    @property
    def timed(self) -> bool:
        return _timed(list(self.rows))

    @property
    def all(self) -> SourceView:
        return self.sources[-1]

    @property
    def generated(self) -> bool:
        """Whether a model or agent produced the candidates (so tokens and cost mean something)."""
        return self.cost.generated > 0


@dataclass(frozen=True)
class AttemptView:
    """One attempt as its operator page shows it."""

    run: str
    row: Row
    source_code: str | None
    verdict: Verdict | None
    timing: tuple[CaseTiming, ...]
    timing_reason: str | None
    reply: str | None


@dataclass(frozen=True)
class SiteData:
    runs: tuple[RunView, ...]
    attempts: dict[str, tuple[AttemptView, ...]]  # operator -> its attempts in every run

    @property
    def rows_by_run(self) -> dict[str, list[Row]]:
        return {v.name: list(v.rows) for v in self.runs}

    @property
    def all_rows(self) -> list[Row]:
        return [r for v in self.runs for r in v.rows]


def _run_view(run: Run, all_rows: list[Row]) -> RunView:
    """The suite's figures over the run's operators, perturbed twins left out (they have the gap)."""
    rows, twins = split_twins(all_rows)
    timed = _timed(rows)
    speeds = {s.group: s for s in speed_by_source(_speed_rows(rows))} if timed else {}
    sources = tuple(SourceView(s.group, s, speeds.get(s.group)) for s in by_source(rows))
    accuracy_ci = speed_summary(rows, "all").accuracy_ci if rows else None
    return RunView(run, tuple(rows), accuracy_ci, cost(rows, "all", _prices(run)), sources,
                   gap(all_rows) if twins else None)


def _attempts(store: Store, run: Run, rows: list[Row]) -> list[AttemptView]:
    by_key = {(r.op, r.sample, r.round): r for r in rows}
    out = []
    for a in store.attempts(run.id):
        timing = store.timing(a.id)
        exchange = store.exchange(a.id)
        cases = tuple(CaseTiming.from_dict(c) for c in (timing.extra.get("timing", {}).get("cases", [])
                                                       if timing else []))
        out.append(AttemptView(run.name, by_key[(a.op, a.sample, a.round)], a.source_code, store.verdict(a.id),
                               cases, timing.reason if timing else None, exchange.reply if exchange else None))
    return out


def collect(store: Store, runs: list[Run]) -> SiteData:
    """Every figure and record the site needs for `runs`, in their order."""
    views, attempts = [], {}
    for run in runs:
        rows = list(store.rows(run.id))
        views.append(_run_view(run, rows))
        for a in _attempts(store, run, rows):
            attempts.setdefault(a.row.op, []).append(a)
    return SiteData(tuple(views), {op: tuple(a) for op, a in sorted(attempts.items())})
