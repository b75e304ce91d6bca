"""The genuine corpus (tests/genuine/) judged on a device: every layer on every case the platform
affords, then, on a GPU, timing against the native baseline. Goal: every file passes (a false
`hack_*` on an honest kernel is a defect of the judge). Writes genuine-DEVICE.md and .json.

Usage: python benchmarks/genuine.py --out DIR [--device cuda] [--workers 8] [--no-perf] [--under SUBDIR,...]
(--under: only these folders of tests/genuine/, or files by stem, to spread the corpus over device
calls; the tag names them)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from kernelgenbench import api
from kernelgenbench.platforms import detect, environment
from kernelgenbench.verify.timing import TimingConfig, operator_speedup

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "genuine"
sys.path.insert(0, str(ROOT))
from tests.corpus import header  # noqa: E402 - the corpus's own header reader, from the checkout


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default=None)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--no-perf", action="store_true")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--under", default="")
    parser.add_argument("--quick-timing", action="store_true",
                        help="30 samples or 0.3 s per side instead of 100 or 1 s: every timing check still "
                             "runs, the figures are rougher")
    args = parser.parse_args(argv)
    platform = detect(args.device)
    perf = platform.name == "cuda" and not args.no_perf
    under = [u for u in args.under.split(",") if u]
    files = [p for p in sorted(CORPUS.rglob("*.py"))
             if (platform.name == "cuda" or not header(p).get("device", "").startswith("cuda"))
             and (not under or p.parent.name in under or p.stem in under)]
    start = time.time()

    def verify(path: Path):
        return api.verify_file(path, header(path)["op"], device=platform.device, seed=args.seed, timeout_s=600)

    with ThreadPoolExecutor(args.workers) as pool:
        verdicts = dict(zip(files, pool.map(verify, files)))
    verified_s = time.time() - start
    timings = {}
    config = TimingConfig.quick() if args.quick_timing else TimingConfig()
    if perf:
        for path, v in verdicts.items():
            if v.passed:
                timings[path] = api.time_file(path, header(path)["op"], device=platform.device, seed=args.seed,
                                              config=config)
                print(f"timed {path.stem}: {timings[path].status.value} {timings[path].reason}", flush=True)
    rows, data = [], []
    for path, v in verdicts.items():
        t = timings.get(path)
        speedup = operator_speedup(t) if t is not None else None
        ok = v.passed and (not perf or (t is not None and t.passed))
        rec = {"file": str(path.relative_to(ROOT)), "op": v.op, "idiom": header(path).get("idiom", ""),
               "status": v.status.value, "reason": v.reason, "cases": len(v.cases), "worst_ratio": v.worst_ratio,
               "timing": None if t is None else t.status.value, "timing_reason": None if t is None else t.reason,
               "speedup": speedup, "ok": ok}
        data.append(rec)
        rows.append(f"| `{path.stem}` | `{v.op}` | {rec['idiom']} | {v.status.value} | {len(v.cases)} | "
                    f"{'' if v.worst_ratio is None else f'{v.worst_ratio:.3g}'} | {rec['timing'] or ''} | "
                    f"{'' if speedup is None else f'{speedup:.3f}'} |")
        print(f"{path.stem}: {v.status.value} ({len(v.cases)} cases){'' if v.passed else ': ' + v.reason}", flush=True)
    passed = sum(r["ok"] for r in data)
    env = environment(platform)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    where = "h200" if "H200" in (env.get("device") or "") else platform.name
    tag = "-".join(["genuine", *under, where])
    summary = (f"{passed}/{len(data)} genuine candidates pass every layer"
               f"{' and timing' if perf else ''} ({'PASS' if passed == len(data) else 'FAIL'}); "
               f"verification {verified_s:.0f} s with {args.workers} workers, {time.time() - start:.0f} s in all"
               + (f"; timing: at least {config.min_samples} samples or {config.min_seconds:g} s per side"
                  if perf else ""))
    (out / f"{tag}.json").write_text(json.dumps({"summary": summary, "environment": env, "seed": args.seed,
                                                 "timing_config": asdict(config) if perf else None,
                                                 "results": data}, indent=2))
    lines = [f"# Genuine corpus on {env.get('device')}", "", summary, "",
             "Measured on: " + ", ".join(f"{k} {v}" for k, v in env.items() if v), "",
             "| file | operator | idiom | verdict | cases | worst error / tolerance | timing | speed-up (x) |",
             "|---|---|---|---|---|---|---|---|", *rows]
    (out / f"{tag}.md").write_text("\n".join(lines) + "\n")
    print(summary)
    return 0 if passed == len(data) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
