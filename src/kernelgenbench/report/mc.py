"""The MC (multi-chip) view: how the ATen operators fare on each platform, and how kernels transfer.

`mc_tables` returns the view as data (for any renderer: Markdown and JSON here, HTML elsewhere):

- per run, its platform (from the run's descriptor), accuracy over the ATen operators it ran
  (operators the platform cannot run at all are counted apart) and its speed-up;
- the transfer matrix: for every ordered pair of platforms (A, B), the kernels that passed on A and
  were judged unchanged on B (runs linked by `kgbench rejudge`, paired by operator, sample and code
  hash): how many passed on B, and the geometric mean of their speed-up on B over that on A;
- the portability tax: for runs that generated their kernels on B, the tokens and wall time spent
  on the operators solved on both B and the reference platform, relative to the reference run of
  the same method and model.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from ..metrics import geomean, operator_speedups
from ..platforms import Descriptor
from ..store import Row, Run
from ..suite import registry
from ..verify.verdict import Status

PASS = Status.PASS.value
UNSUPPORTED = Status.UNSUPPORTED.value


@dataclass(frozen=True)
class PlatformResult:
    """One run of the ATen operators on one platform."""

    run: str
    platform: str
    descriptor: str
    method: str
    rejudge_of: str | None
    operators: int  # ATen operators attempted
    passed: int
    unsupported_ops: int  # operators the platform could run no case of
    unsupported_cases: int  # cases left out (in attempts that ran the rest)
    accuracy: float | None  # passed / (operators - unsupported_ops)
    coverage: float  # operators / the MC track's size
    speedup: float | None  # geometric mean over passed, timed operators
    timed: int


@dataclass(frozen=True)
class Transfer:
    """Kernels that passed on `source` and were judged unchanged on `target`."""

    source: str
    target: str
    kernels: int  # passed on source, judged on target (unsupported there excluded)
    passed: int
    unsupported: int
    timed: int  # passed and timed on both
    speedup_ratio: float | None  # geometric mean of speed-up on target over speed-up on source

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.kernels if self.kernels else None


@dataclass(frozen=True)
class Tax:
    """What solving on `platform` cost, relative to the reference platform's run of the same method."""

    run: str
    platform: str
    method: str
    matched: int  # operators solved on both
    tokens: int | None
    reference_tokens: int | None
    wall_s: float
    reference_wall_s: float
    note: str = ""

    @property
    def token_tax(self) -> float | None:
        return self.tokens / self.reference_tokens if self.tokens is not None and self.reference_tokens else None

    @property
    def wall_tax(self) -> float | None:
        return self.wall_s / self.reference_wall_s if self.matched and self.reference_wall_s else None


@dataclass(frozen=True)
class MCTables:
    reference: str
    platforms: tuple[str, ...]
    results: tuple[PlatformResult, ...]
    transfers: tuple[Transfer, ...]
    taxes: tuple[Tax, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"reference": self.reference, "platforms": list(self.platforms),
                "results": [asdict(r) for r in self.results],
                "transfers": [asdict(t) | {"pass_rate": t.pass_rate} for t in self.transfers],
                "taxes": [asdict(t) | {"token_tax": t.token_tax, "wall_tax": t.wall_tax} for t in self.taxes]}


def _platform(run: Run) -> str:
    return Descriptor.from_dict(run.environment, run.platform).platform


def _result(run: Run, rows: list[Row]) -> PlatformResult:
    by_op: dict[str, list[Row]] = {}
    for r in rows:
        by_op.setdefault(r.op, []).append(r)
    passed = sum(any(r.status == PASS for r in rs) for rs in by_op.values())
    unsupported = sum(all(r.status == UNSUPPORTED for r in rs) for rs in by_op.values())
    runnable = len(by_op) - unsupported
    speeds = [s for s in operator_speedups(rows).values() if s is not None]
    return PlatformResult(run.name, _platform(run), Descriptor.from_dict(run.environment, run.platform).summary(),
                          run.method, run.config.get("rejudge_of"), len(by_op), passed, unsupported,
                          sum(r.unsupported for r in rows), passed / runnable if runnable else None,
                          len(by_op) / len(registry.entries("aten")), geomean(speeds) if speeds else None, len(speeds))


def _families(runs: list[Run]) -> dict[str, str]:
    """Each run's family: runs linked by `rejudge_of` (directly or through a shared source) judged the
    same kernels."""
    parent = {r.name: r.config.get("rejudge_of") or r.name for r in runs}

    def root(name: str) -> str:
        seen = set()
        while parent.get(name, name) != name and name not in seen:
            seen.add(name)
            name = parent.get(name, name)
        return name

    return {r.name: root(r.name) for r in runs}


def _transfers(runs: list[tuple[Run, list[Row]]], platforms: tuple[str, ...]) -> list[Transfer]:
    """Each judgement on platform B of a kernel that passed on platform A counts once, however many
    runs on A passed it (the earliest gives the speed ratio): a kernel rejudged from a run and from
    that run's own rejudge is one transfer, not two. On one platform, only a later run judges an
    earlier one's kernels."""
    family = _families([run for run, _ in runs])
    tally: dict[tuple[str, str], dict[str, Any]] = {
        (a, b): {"kernels": 0, "passed": 0, "unsupported": 0, "ratios": []} for a in platforms for b in platforms}
    passes: dict[tuple[str, str, str, int, str], list[tuple[Run, Row]]] = {}
    for x, x_rows in sorted(runs, key=lambda pair: pair[0].id):
        for r in x_rows:
            if r.status == PASS and r.code_sha:
                passes.setdefault((family[x.name], _platform(x), r.op, r.sample, r.code_sha), []).append((x, r))
    for y, y_rows in runs:
        for other in (r for r in y_rows if r.code_sha and r.status is not None):
            for a in platforms:
                key = (family[y.name], a, other.op, other.sample, other.code_sha)
                sources = [(x, r) for x, r in passes.get(key, [])
                           if x.name != y.name and (a != _platform(y) or x.id < y.id)]
                if not sources:
                    continue
                cell = tally[a, _platform(y)]
                if other.status == UNSUPPORTED:
                    cell["unsupported"] += 1
                    continue
                cell["kernels"] += 1
                cell["passed"] += other.status == PASS
                first = sources[0][1]
                if other.status == PASS and first.speedup and other.speedup:
                    cell["ratios"].append(other.speedup / first.speedup)
    return [Transfer(a, b, t["kernels"], t["passed"], t["unsupported"], len(t["ratios"]),
                     geomean(t["ratios"]) if t["ratios"] else None) for (a, b), t in tally.items()]


def _solved_cost(rows: list[Row]) -> dict[str, tuple[int | None, float]]:
    """Per solved operator: tokens spent on it (None when any attempt reported none) and wall time
    (generation plus judging)."""
    out: dict[str, tuple[int | None, float]] = {}
    ops = {r.op for r in rows if r.status == PASS}
    for op in ops:
        mine = [r for r in rows if r.op == op]
        known = all(r.tokens_in is not None and r.tokens_out is not None for r in mine)
        tokens = sum((r.tokens_in or 0) + (r.tokens_out or 0) for r in mine) if known else None
        out[op] = (tokens, sum((r.wall_s or 0.0) + (r.seconds or 0.0) for r in mine))
    return out


def _taxes(runs: list[tuple[Run, list[Row]]], reference: str) -> list[Tax]:
    generated = [(run, rows) for run, rows in runs if not run.config.get("rejudge_of")]
    key = {run.name: (run.method, run.config.get("model") or run.config.get("agent")) for run, _ in generated}
    refs = {key[run.name]: (run, rows) for run, rows in generated if _platform(run) == reference}
    taxes = []
    for run, rows in generated:
        if _platform(run) == reference:
            continue
        ref = refs.get(key[run.name])
        if ref is None:
            taxes.append(Tax(run.name, _platform(run), run.method, 0, None, None, 0.0, 0.0,
                             f"no run of method {run.method} on {reference} to compare with"))
            continue
        mine, theirs = _solved_cost(rows), _solved_cost(ref[1])
        matched = sorted(set(mine) & set(theirs))
        tokens = [mine[o][0] for o in matched]
        ref_tokens = [theirs[o][0] for o in matched]
        has_tokens = matched and None not in tokens and None not in ref_tokens
        note = "" if has_tokens or not matched else f"method {run.method} reports no tokens: wall time only"
        taxes.append(Tax(run.name, _platform(run), run.method, len(matched),
                         sum(tokens) if has_tokens else None,  # type: ignore[arg-type]
                         sum(ref_tokens) if has_tokens else None,  # type: ignore[arg-type]
                         sum(mine[o][1] for o in matched), sum(theirs[o][1] for o in matched),
                         note or ("" if matched else f"no operator solved on both {run.name} and {ref[0].name}")))
    return taxes


def mc_tables(runs: list[tuple[Run, list[Row]]], reference: str | None = None) -> MCTables:
    """The MC view of `runs` (each with its rows) over their ATen operators; `reference` is the platform
    the portability tax is relative to (default: cuda if a run is on it, else the first run's)."""
    aten = [(run, [r for r in rows if r.source == "aten"]) for run, rows in runs]
    seen = list(dict.fromkeys(_platform(run) for run, _ in aten))
    reference = reference or ("cuda" if "cuda" in seen else seen[0])
    platforms = tuple(sorted(seen, key=lambda p: (p != reference, p)))
    return MCTables(reference, platforms, tuple(_result(run, rows) for run, rows in aten),
                    tuple(_transfers(aten, platforms)), tuple(_taxes(aten, reference)))


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _x(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3g}x"


def _md_table(header: list[str], body: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in body])


def _markdown(t: MCTables) -> str:
    track = len(registry.entries("aten"))
    results = [[r.run, r.platform, r.descriptor, r.method + (f" (rejudge of {r.rejudge_of})" if r.rejudge_of else ""),
                f"{r.operators}/{track}", r.passed, r.unsupported_ops, r.unsupported_cases, _pct(r.accuracy),
                _x(r.speedup), r.timed] for r in t.results]
    cells = {(c.source, c.target): c for c in t.transfers}

    def cell(a: str, b: str) -> str:
        c = cells[a, b]
        if not c.kernels and not c.unsupported:
            return "-"
        extra = f", {c.unsupported} unsupported" if c.unsupported else ""
        speed = f"; speed {_x(c.speedup_ratio)} (n={c.timed})" if c.timed else "; speed n/a (untimed)"
        return f"{_pct(c.pass_rate)} ({c.passed}/{c.kernels}{extra}){speed}"

    matrix = [[f"**{a}**"] + [cell(a, b) for b in t.platforms] for a in t.platforms]
    taxes = [[x.run, x.platform, x.method, x.matched, "n/a" if x.tokens is None else f"{x.tokens}/{x.reference_tokens}",
              _x(x.token_tax), f"{x.wall_s:.1f}/{x.reference_wall_s:.1f}", _x(x.wall_tax), x.note] for x in t.taxes]
    parts = ["# KernelGenBench-MC", "",
             f"The {track} ATen operators across platforms. Accuracy counts operators that passed over those the "
             "platform could run; operators and cases in dtypes a platform cannot run are counted apart "
             "(unsupported), never as failures.", "",
             "## Per platform", "",
             _md_table(["run", "platform", "descriptor", "method", "operators", "passed", "unsupported ops",
                        "unsupported cases", "accuracy", "speed-up (geomean)", "timed"], results), "",
             "## Transfer matrix", "",
             "Row: the platform a kernel passed on; column: the platform it was judged on unchanged (runs linked by "
             "`kgbench rejudge`, paired by operator, sample and code hash; each judgement on the column's platform "
             "counts once, however many runs passed the kernel on the row's). Each cell: pass rate (passed/judged), "
             "and the geometric mean of speed-up there over speed-up on the row's platform (its earliest run), over "
             "the kernels timed on both.", "",
             _md_table(["passed on \\ judged on"] + list(t.platforms), matrix), ""]
    parts += ["## Portability tax", "",
              f"Tokens and wall time (generation plus judging) spent on the operators solved both on the platform "
              f"and on the reference platform ({t.reference}), by the same method and model.", ""]
    parts += [_md_table(["run", "platform", "method", "solved on both", "tokens (run/ref)", "token tax",
                         "wall s (run/ref)", "wall tax", "note"], taxes) if taxes else
              "No run generated its kernels on a platform other than the reference.", ""]
    return "\n".join(parts)


def render_mc(tables: MCTables, fmt: str = "md") -> str:
    if fmt == "json":
        return json.dumps(tables.to_dict(), indent=2)
    return _markdown(tables)
