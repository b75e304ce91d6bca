"""The report's tables: one figure per cell, units in headers, one table per view."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from ..metrics import Summary, by_source
from ..store import Row, Run
from ..verify.verdict import Status

STATUS_ORDER = [s.value for s in Status] + ["pending"]


def _summary_table(summaries: list[Summary]) -> tuple[list[str], list[list[Any]]]:
    present = [s for s in STATUS_ORDER if any(s in x.statuses for x in summaries)]
    header = ["source", "operators", "attempted", "clean passes", "accuracy (%)"] + present
    body = [[s.group, s.operators, s.attempted, s.clean_passes, round(100 * s.accuracy, 1)]
            + [s.statuses.get(st, 0) for st in present] for s in summaries]
    return header, body


def _operator_table(rows: list[Row]) -> tuple[list[str], list[list[Any]]]:
    header = ["operator", "sample", "round", "status", "cases", "worst error / tolerance", "time (s)",
              "failing case", "reason"]
    body = [[r.op, r.sample, r.round, r.status or "pending", r.n_cases if r.n_cases is not None else "",
             "" if r.worst_ratio is None else f"{r.worst_ratio:.3g}",
             "" if r.seconds is None else f"{r.seconds:.1f}", r.failing_case or "",
             (r.reason or "").replace("|", "/").replace("\n", " ")] for r in rows]
    return header, body


def _md_table(header: list[str], body: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def _markdown(run: Run, rows: list[Row]) -> str:
    env = run.environment
    where = ", ".join(f"{k} {env[k]}" for k in ("device", "driver", "torch", "triton") if env.get(k))
    parts = [f"# KernelGenBench run `{run.name}`", "",
             f"method `{run.method}` on {run.platform} ({where}); seed {run.seed}; "
             f"{'finished' if run.finished else 'unfinished'}", "",
             "## By source", "", _md_table(*_summary_table(by_source(rows))), "",
             "## By operator", "", _md_table(*_operator_table(rows)), ""]
    return "\n".join(parts)


def _json(run: Run, rows: list[Row]) -> str:
    return json.dumps({
        "run": {"name": run.name, "method": run.method, "platform": run.platform, "seed": run.seed,
                "config": run.config, "environment": run.environment, "finished": run.finished is not None},
        "by_source": [{"source": s.group, "operators": s.operators, "attempted": s.attempted,
                       "clean_passes": s.clean_passes, "accuracy": s.accuracy, "statuses": s.statuses}
                      for s in by_source(rows)],
        "operators": [r.__dict__ for r in rows],
    }, indent=2)


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
    return FORMATS[fmt](run, rows)
