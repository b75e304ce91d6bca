"""The report's tables: one figure per cell, units in headers, one table per view."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from ..metrics import (
    FAST_P,
    REPEATABILITY,
    Comparison,
    Cost,
    SpeedSummary,
    Summary,
    by_source,
    compare_runs,
    cost_by_source,
    differences,
    pass_at,
    pass_at_ci,
    report_ks,
    speed_by_source,
)
from ..store import NO_CODE, Row, Run
from ..suite import registry
from ..suite.spec import TWIN_MARK
from ..verify.verdict import Status
from .taxonomy import difficulty, failing_semantics, family_of, summaries_by

STATUS_ORDER = [s.value for s in Status] + [NO_CODE, "pending"]


def _pct(x: float | None) -> Any:
    return "" if x is None else round(100 * x, 1)


def _passes(run: Run, rows: list[Row], summaries: list[Summary]
            ) -> dict[str, dict[int, tuple[float | None, tuple[float, float] | None]]]:
    """pass@k per group with its 95% bootstrap CI over operators, for the k the run's samples allow."""
    early = bool(run.config.get("early_stop", True))
    ks = report_ks(int(run.config.get("samples", 1)))

    def of(group_rows: list[Row], k: int) -> tuple[float | None, tuple[float, float] | None]:
        return pass_at(group_rows, k, early), pass_at_ci(group_rows, k, early)

    return {s.group: {k: of([r for r in rows if s.group in ("all", r.source)], k) for k in ks} for s in summaries}


def _pass_cell(value: float | None, ci: tuple[float, float] | None) -> str:
    return "" if value is None or ci is None else f"{100 * value:.1f} [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _summary_table(run: Run, rows: list[Row]) -> tuple[list[str], list[list[Any]]]:
    summaries = by_source(rows)
    passes = _passes(run, rows, summaries)
    ks = report_ks(int(run.config.get("samples", 1)))
    present = [s for s in STATUS_ORDER if any(s in x.statuses for x in summaries)]
    header = (["source", "operators", "attempted", "clean passes", "accuracy (%)"]
              + [f"pass@{k} (%) [95% CI]" for k in ks] + present)
    body = [[s.group, s.operators, s.attempted, s.clean_passes, round(100 * s.accuracy, 1)]
            + [_pass_cell(*passes[s.group][k]) for k in ks]
            + [s.statuses.get(st, 0) for st in present] for s in summaries]
    return header, body


def _x(v: float | None) -> str:
    return "" if v is None else f"{v:.3f}"


def _timed(rows: list[Row]) -> bool:
    return any(r.speedup is not None for r in rows)


def _untimed_by_design(rows: list[Row]) -> list[str]:
    """Operators with no work to time (views, `item`): counted in accuracy, never in speed-ups."""
    untimed = []
    for op in sorted({r.op for r in rows}):
        try:
            if not registry.get(op).timed:
                untimed.append(op)
        except KeyError:
            continue
    return untimed


def _speed_rows(rows: list[Row]) -> list[Row]:
    untimed = set(_untimed_by_design(rows))
    return [r for r in rows if r.op not in untimed]


def _untimed_note(rows: list[Row]) -> str:
    ops = _untimed_by_design(rows)
    if not ops:
        return ""
    return (f" Operators with no kernel work to time (views, allocations, `item`, a 0-d result) count in "
            f"accuracy and are left out of every speed figure: {', '.join(ops)}.")


def _speed_table(rows: list[Row]) -> tuple[list[str], list[list[Any]]]:
    header = (["source", "operators", "timed passes", "speed-up geomean (x)", "geomean 95% CI low (x)",
               "geomean 95% CI high (x)", "speed-up median (x)", "speed-up IQM (x)"]
              + [f"fast_{p:g} (%)" for p in FAST_P] + ["accuracy 95% CI (%)", "cases over the bandwidth floor"])

    def row(s: SpeedSummary) -> list[Any]:
        sp = s.speedup
        return ([s.group, s.operators, s.timed, _x(sp and sp.geomean), _x(s.ci and s.ci[0]), _x(s.ci and s.ci[1]),
                 _x(sp and sp.median), _x(sp and sp.iqm)]
                + [round(100 * s.fast[p], 1) for p in FAST_P]
                + ["" if s.accuracy_ci is None else f"{100 * s.accuracy_ci[0]:.0f}-{100 * s.accuracy_ci[1]:.0f}",
                   s.flagged_cases])

    return header, [row(s) for s in speed_by_source(_speed_rows(rows))]


def _timed_with(run: Run, rows: list[Row]) -> str:
    if not _timed(rows):
        return ""
    return "CUDA graphs" if run.config.get("timing", {}).get("graph") else "CUDA events"


def _comparison_table(comparisons: list[Comparison], runs: dict[str, Run],
                      rows_by_run: dict[str, list[Row]]) -> tuple[list[str], list[list[Any]]]:
    first = comparisons[0].run if comparisons else ""
    header = ["run", "method", "timed with", "operators", "clean passes", "matched set (operators)",
              "speed-up geomean on matched set (x)", "95% CI low (x)", "95% CI high (x)", "median (x)", "IQM (x)",
              f"accuracy minus {first}'s (points)", "its 95% CI (points)",
              f"speed-up over {first}'s, paired (x)", "its 95% CI (x)", "paired operators", "difference"]
    diffs = {d.run: d for d in differences(rows_by_run)}

    def versus(run: str) -> list[Any]:
        d = diffs.get(run)
        if d is None:
            return ["", "", "", "", "", "the reference of the differences"]
        acc = "" if d.accuracy is None else f"{100 * d.accuracy:+.1f}"
        acc_ci = "" if d.accuracy_ci is None else f"{100 * d.accuracy_ci[0]:+.1f} to {100 * d.accuracy_ci[1]:+.1f}"
        speed_ci = "" if d.speed_ci is None else f"{d.speed_ci[0]:.3f} to {d.speed_ci[1]:.3f}"
        return [acc, acc_ci, _x(d.speed), speed_ci, d.speed_pairs, d.verdict]

    body = [[c.run, runs[c.run].method + _model(runs[c.run]).replace("`", ""),
             _timed_with(runs[c.run], rows_by_run[c.run]), c.operators, c.clean_passes, c.matched,
             _x(c.speedup and c.speedup.geomean),
             _x(c.ci and c.ci[0]), _x(c.ci and c.ci[1]), _x(c.speedup and c.speedup.median),
             _x(c.speedup and c.speedup.iqm), *versus(c.run)] for c in comparisons]
    return header, body


def _prices(run: Run) -> dict[str, dict[str, float]] | None:
    return run.config.get("prices") or None


def _cost_table(costs: list[Cost]) -> tuple[list[str], list[list[Any]]]:
    header = ["source", "generated", "tokens in", "tokens out", "tokens unknown (attempts)",
              "tokens per solved operator", "generation wall time (s)", "judging time (s)", "cost (USD)"]
    body = [[c.group, c.generated, c.tokens_in, c.tokens_out, c.unknown,
             "" if c.tokens_per_solved is None else round(c.tokens_per_solved),
             f"{c.wall_s:.1f}", f"{c.judge_s:.1f}", "" if c.usd is None else f"{c.usd:.4f}"] for c in costs]
    return header, body


BASELINE_NAMES = {"library": "library kernel", "reference": "torch reference"}


def _stand_ins(rows: list[Row]) -> str:
    """Names the operators whose speed-up is over the torch reference (no library kernel was
    importable, e.g. vLLM): their figures say little about beating production kernels."""
    ops = sorted({r.op for r in rows if r.speedup is not None and r.baseline == "reference"})
    if not ops:
        return ""
    return (f" Timed against the torch reference in the working dtype, as no library kernel was importable: "
            f"{', '.join(ops)}; their speed-ups are not over production kernels.")


def _operator_table(rows: list[Row]) -> tuple[list[str], list[list[Any]]]:
    header = ["operator", "sample", "round", "status", "cases", "worst error / tolerance", "speed-up (x)",
              "speed-up over", "time (s)", "tokens in/out", "failing case", "reason"]
    body = [[r.op, r.sample, r.round, r.status or "pending", r.n_cases if r.n_cases is not None else "",
             "" if r.worst_ratio is None else f"{r.worst_ratio:.3g}", _x(r.speedup),
             BASELINE_NAMES.get(r.baseline or "", "") if r.speedup is not None else "",
             "" if r.seconds is None else f"{r.seconds:.1f}",
             "" if r.tokens_in is None else f"{r.tokens_in}/{r.tokens_out}", r.failing_case or "",
             (r.reason or "").replace("|", "/").replace("\n", " ")] for r in rows]
    return header, body


def _md_table(header: list[str], body: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def _model(run: Run) -> str:
    c = run.config
    who = c.get("model") or c.get("agent")
    return f" with `{who}`" if who else ""


def status_table(summaries: list[Summary], label: str) -> tuple[list[str], list[list[Any]]]:
    """How each group's attempts ended (over several runs, every run's attempts)."""
    present = [s for s in STATUS_ORDER if any(s in x.statuses for x in summaries)]
    header = [label, "attempts"] + present
    return header, [[s.group, sum(s.statuses.values())] + [s.statuses.get(st, 0) for st in present]
                    for s in summaries]


def semantics_table(rows: list[Row]) -> tuple[list[str], list[list[Any]]]:
    header = ["failing semantic", "failed attempts", "operators", "example operator", "example case",
              "example reason"]
    return header, [[s.name, s.failures, len(s.operators), s.example_op, _cell(s.example_case),
                     _cell(s.example_reason)] for s in failing_semantics(rows)]


def difficulty_table(rows_by_run: dict[str, list[Row]]) -> tuple[list[str], list[list[Any]]]:
    header = ["operator", "family", "solved by (runs)", "attempted by (runs)", "median speed-up (x)"]
    return header, [[d.op, d.family, d.solved, d.attempted, _x(d.median_speedup)] for d in difficulty(rows_by_run)]


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def _taxonomy_md(rows: list[Row], *, by_source: bool) -> list[str]:
    """The failure taxonomy: statuses by family (and by source), and the most common failing semantics."""
    parts = ["## Failure taxonomy", ""]
    if by_source:
        parts += ["Statuses by source:", "", _md_table(*status_table(summaries_by(rows, lambda r: r.source),
                                                                      "source")), ""]
    parts += ["Statuses by operator family:", "",
              _md_table(*status_table(summaries_by(rows, lambda r: family_of(r.op)), "family")), ""]
    header, body = semantics_table(rows)
    parts += ["Failing semantics, read off each failed attempt's reason and failing case, most common first:", ""]
    parts += [_md_table(header, body) if body else "No failed correctness check.", ""]
    return parts


def _unconfined(run: Run) -> str:
    """Said of a run whose candidates ran outside the sandbox: nothing kept them from the machine."""
    if run.config.get("sandbox") != "off":
        return ""
    return ("\n\n**Sandbox: off.** This run's candidates ran unconfined (`--no-sandbox`, or a reference run on "
            "a machine without namespaces): they could read and write the host's files and reach the network.")


def _markdown(run: Run, rows: list[Row]) -> str:
    env = run.environment
    where = ", ".join(f"{k} {env[k]}" for k in ("device", "driver", "torch", "triton") if env.get(k))
    parts = [f"# KernelGenBench run `{run.name}`", "",
             f"method `{run.method}`{_model(run)} on {run.platform} ({where}); seed {run.seed}; "
             f"{'finished' if run.finished else 'unfinished'}{_unconfined(run)}", "",
             "## By source", "", _md_table(*_summary_table(run, rows)), ""]
    if _timed(rows):
        mode = "CUDA-graph replays" if run.config.get("timing", {}).get("graph") else "CUDA events"
        parts += ["## Speed", "", f"Speed-up over the native baseline, timed with {mode}: per operator the geometric "
                  "mean over its performance cases, per group the geometric mean over passed operators; a case "
                  "faster than the memory-bandwidth floor counts only up to it."
                  f"{_stand_ins(rows)}{_untimed_note(rows)}", "",
                  _md_table(*_speed_table(rows)),
                  ""]
    costs = cost_by_source(rows, _prices(run))
    if any(c.generated for c in costs):
        parts += ["## Cost", "", _md_table(*_cost_table(costs)), ""]
    parts += ["## By operator", "", _md_table(*_operator_table(rows)), ""]
    parts += _taxonomy_md(rows, by_source=False)
    return "\n".join(parts)


def _json(run: Run, rows: list[Row]) -> str:
    summaries = by_source(rows)
    passes = _passes(run, rows, summaries)
    return json.dumps({
        "run": {"name": run.name, "method": run.method, "platform": run.platform, "seed": run.seed,
                "config": run.config, "environment": run.environment, "finished": run.finished is not None},
        "by_source": [{"source": s.group, "operators": s.operators, "attempted": s.attempted,
                       "clean_passes": s.clean_passes, "accuracy": s.accuracy,
                       "pass_at_k": {str(k): v for k, (v, _) in passes[s.group].items()},
                       "pass_at_k_ci95": {str(k): list(ci) if ci else None for k, (_, ci) in passes[s.group].items()},
                       "statuses": s.statuses}
                      for s in summaries],
        "cost": [{**c.__dict__, "tokens_per_solved": c.tokens_per_solved}
                 for c in cost_by_source(rows, _prices(run))],
        "speed": [_speed_json(s) for s in speed_by_source(_speed_rows(rows))] if _timed(rows) else [],
        "untimed_by_design": _untimed_by_design(rows),
        "operators": [r.__dict__ for r in rows],
    }, indent=2)


def _speed_json(s: SpeedSummary) -> dict[str, Any]:
    sp = s.speedup
    return {"group": s.group, "operators": s.operators, "timed_passes": s.timed,
            "geomean": sp and sp.geomean, "median": sp and sp.median, "iqm": sp and sp.iqm,
            "geomean_ci95": s.ci, "fast_p": {str(p): v for p, v in s.fast.items()},
            "accuracy_ci95": s.accuracy_ci, "cases_over_bandwidth_floor": s.flagged_cases}


def _csv(run: Run, rows: list[Row]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    header, body = _operator_table(rows)
    w.writerow(["run", "source"] + header)
    for r, line in zip(rows, body):
        w.writerow([run.name, r.source] + line)
    return buf.getvalue()


FORMATS: dict[str, Callable[[Run, list[Row]], str]] = {"md": _markdown, "json": _json, "csv": _csv}


def render(run: Run, rows: list[Row], fmt: str = "md") -> str:
    """The run's tables over the suite's operators; perturbed twins, when the run has any, only in
    the gap section (md, json) and the CSV's per-operator rows."""
    from . import gap

    suite_rows, twin_rows = gap.split_twins(rows)
    found = gap.gap(rows) if twin_rows else None
    if fmt == "csv" or not twin_rows:
        return FORMATS[fmt](run, rows)
    text = FORMATS[fmt](run, suite_rows)
    if fmt == "json":
        return json.dumps({**json.loads(text), "perturbed": gap.as_json(found) if found else None,
                           "perturbed_operators": [r.__dict__ for r in twin_rows]}, indent=2)
    return text + "\n" + (gap.markdown(found) if found else "## Perturbed twins\n\nNo twin ran beside its original.\n")


def render_comparison(runs: list[tuple[Run, list[Row]]], fmt: str = "md") -> str:
    """Several runs side by side: accuracy, and speed on the operators every one of them passed."""
    rows_by_run = {run.name: [r for r in rows if TWIN_MARK not in r.op] for run, rows in runs}
    header, body = _comparison_table(compare_runs(rows_by_run), {run.name: run for run, _ in runs}, rows_by_run)
    if fmt == "json":
        return json.dumps([dict(zip(header, line)) for line in body], indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(header)
        w.writerows(body)
        return buf.getvalue()
    return "\n".join(["# Matched-set comparison", "", "Speed-ups over the operators that every run passed and timed. "
                      "Each later run is also set against the first, paired by operator (paired bootstrap 95% CIs "
                      "over operators): a difference whose 95% CI contains no difference is within noise, and so is "
                      f"a speed ratio within {100 * REPEATABILITY:.0f}% (the repeatability of two runs of the same "
                      "kernels).", "", _md_table(header, body), "", "## Difficulty", "",
                      "Operators ranked hardest first by the share of the runs attempting them that solve them; the "
                      "median speed-up is over the runs that passed and timed the operator.", "",
                      _md_table(*difficulty_table(rows_by_run)), ""]
                     + _taxonomy_md([r for rows in rows_by_run.values() for r in rows], by_source=True))
