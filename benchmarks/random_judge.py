"""The statistical judge's false-rejection rate on honest samplers, measured: every correctness case
of the random operators, judged over many seeds, with torch's own samplers (ATen's kernels) and with
the shipped Triton solutions. The judge's per-case false-rejection rate is 1e-6 by construction, so
any failure here is a bug in a law, the judge or a solution.

    python benchmarks/random_judge.py --device cuda --seeds 100 --large-seeds 10 --out DIR
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import clone_values
from kernelgenbench.verify import statistics
from kernelgenbench.verify.bind import load_module, required_functions
from kernelgenbench.verify.correctness import case_inputs, outputs_of

ROOT = Path(__file__).resolve().parents[1]
RANDOM = [o for o in registry.specified() if o.compare == "distribution"]


def samplers(op, device):
    functions = required_functions(op, load_module(ROOT / "solutions" / op.source / f"{op.name}.py"))
    yield "torch", lambda ov, args, kwargs: op.native(device, ov)(*args, **kwargs)
    yield "triton", lambda ov, args, kwargs: functions[ov.name](*args, **kwargs)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--large-seeds", type=int, default=0, help="seeds for the large tier (GPU)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    tiers = [("small", args.seeds)] + ([("large", args.large_seeds)] if args.large_seeds else [])
    rows, failures, start = [], [], time.perf_counter()
    for op in RANDOM:
        for name, sample in samplers(op, args.device):
            for size, seeds in tiers:
                judged = tested = 0
                t0 = time.perf_counter()
                for case in op.select_cases(sizes=(size,)):
                    ov = op.overload(case.overload)
                    for seed in range(seeds):
                        values = case_inputs(case, seed, args.device)
                        before = clone_values(values)
                        call_args, kwargs = ov.split(values)
                        produced = outputs_of(ov, sample(ov, call_args, kwargs), values)
                        draws = op.law(ov, before, produced)
                        found = statistics.judge(draws, seed)
                        judged += 1
                        tested += draws.count >= statistics.MIN_DRAWS
                        if not found.ok:
                            failures.append(f"{op.id} {name} seed {seed} {case.name}: {found.reason}")
                rows.append({"op": op.id, "sampler": name, "tier": size, "seeds": seeds, "judged": judged,
                             "statistically_tested": tested,
                             "failed": sum(f.startswith(f"{op.id} {name} ") for f in failures),
                             "seconds": round(time.perf_counter() - t0, 1)})
                print(json.dumps(rows[-1]), flush=True)
    info = {"device": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu (Triton interpreter)",
            "torch": torch.__version__, "python": platform.python_version(), "alpha_per_case": statistics.ALPHA,
            "seconds": round(time.perf_counter() - start, 1)}
    import triton

    info["triton"] = triton.__version__
    total = sum(r["judged"] for r in rows)
    print(f"{total} judgements, {len(failures)} rejected", *failures[:20], sep="\n")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        tag = "h200" if args.device.startswith("cuda") else "interpreter"
        (args.out / f"random-judge-{tag}.json").write_text(json.dumps({"info": info, "rows": rows,
                                                                       "failures": failures}, indent=1))
        lines = [f"# Random operators: the statistical judge on honest samplers ({info['device']})", "",
                 f"Measured {time.strftime('%Y-%m-%d')}; torch {info['torch']}, triton {info['triton']}, "
                 f"Python {info['python']}. False-rejection rate by construction: {statistics.ALPHA:g} per case "
                 f"(`verify/statistics.py`). {total} judgements, **{len(failures)} rejected**, "
                 f"{info['seconds']} s.", "",
                 "| operator | sampler | tier | seeds | cases judged | of them with >= 1000 draws | rejected |",
                 "|---|---|---|---|---|---|---|"]
        lines += [f"| `{r['op']}` | {r['sampler']} | {r['tier']} | {r['seeds']} | {r['judged']} | "
                  f"{r['statistically_tested']} | {r['failed']} |" for r in rows]
        lines += ["", *[f"- {f}" for f in failures]]
        (args.out / f"random-judge-{tag}.md").write_text("\n".join(lines) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
