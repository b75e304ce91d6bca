"""Each operator's latest verdict and speed-up over several runs of one store: the table of a suite
proven in parts (several device calls, each a run), read from the store, never typed in.

    python benchmarks/latest_per_op.py --db runs/h200.db --runs h200-issue12a,h200-issue12b --out FILE.md
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--runs", required=True, help="comma-separated run names, oldest first")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--title", default="Latest verdict per operator")
    args = ap.parse_args()
    names = args.runs.split(",")
    db = sqlite3.connect(args.db)
    latest: dict[str, dict] = {}
    history: dict[str, list[str]] = {}
    for name in names:
        rows = db.execute(
            "SELECT a.op, v.status, v.reason, v.n_cases, t.speedup, t.n_cases, r.environment "
            "FROM attempts a JOIN runs r ON r.id = a.run_id JOIN verdicts v ON v.attempt_id = a.id "
            "LEFT JOIN timings t ON t.attempt_id = a.id WHERE r.name = ? ORDER BY a.op", (name,)).fetchall()
        if not rows:
            raise SystemExit(f"no run {name!r} in {args.db}")
        for op, status, reason, cases, speedup, timed, env in rows:
            history.setdefault(op, []).append(f"{name}: {status}")
            latest[op] = {"status": status, "reason": reason, "cases": cases, "speedup": speedup,
                          "timed": timed, "run": name, "environment": json.loads(env)}
    env = next(iter(latest.values()))["environment"]
    passed = sum(v["status"] == "pass" for v in latest.values())
    lines = [f"# {args.title}", "",
             f"From `{args.db}`, runs {', '.join(f'`{n}`' for n in names)} (`benchmarks/latest_per_op.py`); "
             f"device {env.get('device', '?')}, torch {env.get('torch', '?')}, triton {env.get('triton', '?')}. "
             f"**{passed} of {len(latest)} operators pass** in their latest run.", "",
             "| operator | latest run | status | cases | speed-up (x) | perf cases | earlier verdicts |",
             "|---|---|---|---|---|---|---|"]
    for op in sorted(latest):
        v = latest[op]
        speed = f"{v['speedup']:.3f}" if v["speedup"] else "not timed"
        earlier = "; ".join(history[op][:-1]) or ""
        lines.append(f"| `{op}` | `{v['run']}` | {v['status']} | {v['cases']} | {speed} | {v['timed'] or ''} | "
                     f"{earlier} |")
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}: {passed}/{len(latest)} pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
