"""Write a stored run's report, with the machine it ran on, as files for benchmarks/results/.

Usage: python benchmarks/record_run.py --db PATH [--run NAME] --out DIR [--tag TAG]
Writes DIR/TAG.md (environment + report) and DIR/TAG.json (environment, every verdict and every timing).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kernelgenbench import api
from kernelgenbench.store import Store
from kernelgenbench.suite import registry
from kernelgenbench.verify.timing import CaseTiming


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag", default="reference-run")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with Store(args.db) as store:
        run = store.find_run(args.run)
        if run is None:
            print(f"error: no run in {args.db}", file=sys.stderr)
            return 2
        rows = list(store.rows(run.id))
        attempts = store.attempts(run.id)
        verdicts = {a.op: store.verdict(a.id) for a in attempts}
        timings = {a.op: store.timing(a.id) for a in attempts}
    env = run.environment
    wall = sum(r.seconds or 0 for r in rows)
    header = [
        f"# {args.tag}",
        "",
        f"Recorded {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} from run `{run.name}`.",
        "",
        "| what | value |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in env.items()],
        f"| judged candidates | {len(rows)} |",
        f"| candidate wall time, summed over parallel workers (s) | {wall:.1f} |",
        "",
        "## Cases per operator",
        "",
        "| operator | cases | of which large (GPU) | worst error / tolerance | wall time (s) |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        v = verdicts[r.op]
        large_names = {c.name for c in registry.get(r.op).select_cases(sizes=("large",))}
        large = sum(1 for c in v.cases if c.case in large_names) if v else 0
        if r.status is None:
            header.append(f"| {r.op} | not judged | | | |")
            continue
        worst = "" if r.worst_ratio is None else f"{r.worst_ratio:.3g}"
        header.append(f"| {r.op} | {r.n_cases} | {large} | {worst} | {r.seconds or 0:.1f} |")
    report = api.report(args.db, run.name, "md")
    (out / f"{args.tag}.md").write_text("\n".join(header) + "\n\n" + report)
    (out / f"{args.tag}.json").write_text(json.dumps({
        "environment": env, "run": run.name, "config": run.config,
        "verdicts": {op: v.to_dict() for op, v in verdicts.items() if v is not None},
        # every timed case's medians, quartiles and sample counts for baseline and candidate
        "timings": {op: _derived(t.to_dict()) for op, t in timings.items() if t is not None},
    }, indent=1))
    print(f"wrote {out / (args.tag + '.md')} and {out / (args.tag + '.json')}")
    return 0


def _derived(timing: dict) -> dict:
    """The stored measurements with the figures derived from them by today's rules (the counted
    speed-up under a plausible floor, its flag), not those computed when the run was timed."""
    extra = timing.get("extra", {}).get("timing", {})
    if extra.get("cases"):
        extra["cases"] = [CaseTiming.from_dict(c).to_dict() for c in extra["cases"]]
    return timing


if __name__ == "__main__":
    sys.exit(main())
