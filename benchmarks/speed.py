"""The timing path's own benchmarks, on a GPU. Each writes `NAME.md` and `NAME.json` (figures,
verdict against its goal, and where it was measured) into --out.

  aa             the native baseline timed against itself through the full timing path, for every
                 performance case, first sights included: every operator's speed-up must be within
                 1.00 +/- 0.01
  fidelity       event time against the profiler's kernel time in the same samples, for cases of
                 at least 100 us: within 5%
  repeatability  two runs' per-operator speed-ups (from a store): median absolute difference at
                 most 2%, the worst operator named
  throughput     a run's wall time split into worker start-up, Triton compilation, correctness and
                 timing (from a store), so the harness's own overhead is known
  first-sights   a run's first sights against its repeated calls (from a store): no honest case
                 flagged as a cache, and how often and how far a first sight lifted a counted time

Usage: python benchmarks/speed.py aa|fidelity --out DIR [--ops a,b]
       python benchmarks/speed.py repeatability --db DB --runs RUN1,RUN2 --out DIR
       python benchmarks/speed.py throughput|first-sights --db DB --run RUN --out DIR
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

from kernelgenbench.metrics import geomean
from kernelgenbench.platforms import detect, environment
from kernelgenbench.store import Store
from kernelgenbench.suite import registry
from kernelgenbench.suite.spec import Operator, Overload
from kernelgenbench.verify.clock import CudaClock
from kernelgenbench.verify.correctness import case_inputs
from kernelgenbench.verify.timing import CaseTimer, CaseTiming, TimingConfig


class NativeAsCandidate:
    """The native baseline in the candidate's seat: what an A/A comparison times."""

    def __init__(self, op: Operator, device: str):
        self.op, self.device = op, device

    def __enter__(self) -> NativeAsCandidate:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def call(self, ov: Overload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return self.op.native(self.device, ov)(*args, **kwargs)


AA_WITHIN = 0.01  # issue 35: A/A within 1.00 +/- 0.01 through the first-sight protocol


def write(out: Path, name: str, title: str, ok: bool | None, summary: str, header: list[str], rows: list[list[Any]],
          data: dict[str, Any], env: dict[str, Any] | None = None) -> None:
    """`ok` None: a measurement with no goal. `env`: where the figures were measured (a stored
    run's); default: this machine's GPU."""
    if env is None:
        env = environment(detect("cuda")) if torch.cuda.is_available() else {}
    where = ", ".join(f"{k} {env[k]}" for k in ("device", "driver", "cuda", "torch", "triton", "python") if env.get(k))
    lines = [f"# {title}", "", f"Measured {time.strftime('%Y-%m-%d')} on {where}.", "",
             f"**{'RECORDED' if ok is None else 'PASS' if ok else 'FAIL'}**: {summary}", "",
             "| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")
    (out / f"{name}.json").write_text(json.dumps({"benchmark": name, "pass": ok, "summary": summary,
                                                  "environment": env, **data}, indent=2, default=str))
    print("\n".join(lines[:6]))


def aa(out: Path, ops: list[Operator]) -> bool:
    """Goal: every operator within 1.00 +/- AA_WITHIN, through the whole protocol, first sights
    included (each side's counted time may be lifted by its first sights: how often, per side)."""
    clock = CudaClock("cuda")
    config = TimingConfig()
    rows, data = [], []
    for op in ops:
        timer = CaseTimer(op, NativeAsCandidate(op, "cuda"), "cuda", 7, config, clock)
        cases = [timer.time_case(c) for c in op.select_cases(sizes=("perf",))]
        speedups = [c.speedup for c in cases]
        g = geomean(speedups)
        worst = max(cases, key=lambda c: abs(c.speedup - 1))
        lifted = [sum(c.baseline_us > c.baseline.median_us for c in cases),
                  sum(c.candidate_us > c.candidate.median_us for c in cases)]
        rows.append([op.id, len(cases), f"{g:.4f}", f"{min(speedups):.3f}", f"{max(speedups):.3f}",
                     f"{statistics.median(c.candidate.iqr_us / c.candidate.median_us for c in cases) * 100:.1f}",
                     f"{lifted[0]} / {lifted[1]}", "yes" if abs(g - 1) <= AA_WITHIN else "NO"])
        data.append({"op": op.id, "geomean": g, "cases": [c.to_dict() for c in cases], "worst_case": worst.case})
        print(f"{op.id}: {g:.4f} over {len(cases)} cases", flush=True)
    ok = all(abs(d["geomean"] - 1) <= AA_WITHIN for d in data)
    spread = max(abs(d["geomean"] - 1) for d in data)
    write(out, "aa-h200", "A/A: the native baseline timed against itself", ok,
          f"every operator's speed-up within 1.00 +/- {AA_WITHIN} (largest deviation {spread:.4f}) over "
          f"{sum(len(d['cases']) for d in data)} performance cases", ["operator", "cases", "speed-up geomean (x)",
          "lowest case (x)", "highest case (x)", "median IQR / median (%)",
          "cases whose first sight lifted the time (baseline / candidate)", f"within {AA_WITHIN:.0%}"], rows,
          {"operators": data, "clock": clock.describe(), "config": config.__dict__})
    return ok


def _device_events(prof: Any) -> list[Any]:
    return sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA),
                  key=lambda e: e.time_range.start)


def _profiled_sample(call: Any, clock: CudaClock, harness: list[str]) -> tuple[float, float, float]:
    """One clock sample under the profiler: (event time, span of the call's kernels, sum of their
    durations), in us. The clock's own device work (flush, sleep kernel) comes first and is dropped."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        sample, _ = clock.measure(call)
    events = _device_events(prof)
    if [e.name for e in events[:len(harness)]] != harness or len(events) == len(harness):
        raise RuntimeError(f"unexpected device work in a profiled sample: {[e.name for e in events]}")
    kernels = events[len(harness):]
    span = max(e.time_range.end for e in kernels) - min(e.time_range.start for e in kernels)
    return sample.device_us, span, sum(e.time_range.end - e.time_range.start for e in kernels)


def _profiled_launch_us(call: Any, clock: CudaClock) -> float:
    """The call's host launch time under the profiler, which adds its own work to every launch: the
    sleep kernel must cover that too, or the event time would include launch gaps no run has."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]):
        return max(clock.wall(call)[0] for _ in range(5))


def _harness_work(clock: CudaClock) -> list[str]:
    """The names of the device work a clock sample adds around the call, in order."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        clock.measure(lambda: None)
    return [e.name for e in _device_events(prof)]


def fidelity(out: Path, ops: list[Operator], per_op: int = 2, reps: int = 7) -> bool:
    """Event time against the kernels' own duration in the same executions: each sample is taken
    by the timing clock under the profiler, so both see the same clocks, caches and launch queue."""
    clock = CudaClock("cuda")
    harness = _harness_work(clock)
    rows, data = [], []
    for op in ops:
        picked = 0
        for case in op.select_cases(sizes=("perf",)):
            if picked >= per_op:
                break
            ov = op.overload(case.overload)
            values = case_inputs(case, 11, "cuda")
            args, kwargs = ov.split(values)
            native = op.native("cuda", ov)

            def call(native=native, args=args, kwargs=kwargs) -> Any:
                return native(*args, **kwargs)

            for _ in range(3):
                call()
            torch.cuda.synchronize()
            clock.hide_launch(2 * statistics.median(clock.wall(call)[0] for _ in range(5)))
            plain = statistics.median(clock.measure(call)[0].device_us for _ in range(30))
            if plain < 100.0:
                continue
            picked += 1
            clock.hide_launch(2 * _profiled_launch_us(call, clock))
            samples = [_profiled_sample(call, clock, harness) for _ in range(reps)]
            events = statistics.median(s[0] for s in samples)
            span = statistics.median(s[1] for s in samples)
            kernel = statistics.median(s[2] for s in samples)
            diff = statistics.median(s[0] / s[1] - 1 for s in samples)
            rows.append([op.id, case.name, f"{plain:.1f}", f"{events:.1f}", f"{span:.1f}", f"{kernel:.1f}",
                         f"{100 * diff:+.2f}"])
            data.append({"op": op.id, "case": case.name, "event_us_unprofiled": plain, "event_us": events,
                         "kernel_span_us": span, "kernel_sum_us": kernel, "difference": diff,
                         "samples": samples})
            print(f"{op.id} {case.name}: events {events:.1f} us, kernels {span:.1f} us ({100 * diff:+.2f}%)",
                  flush=True)
    worst = max((abs(d["difference"]) for d in data), default=0.0)
    ok = bool(data) and worst <= 0.05
    write(out, "fidelity-h200", "Fidelity: CUDA-event time against the profiler's kernel time", ok,
          f"{len(data)} cases of at least 100 us, {reps} profiled samples each; largest difference "
          f"{100 * worst:.2f}% (goal: 5%)",
          ["operator", "case", "event time, no profiler (us)", "event time (us)", "kernel span (us)",
           "kernel sum (us)", "difference (%)"], rows,
          {"cases": data, "harness_device_work": harness, "clock": clock.describe()})
    return ok


def _case_medians(store: Store, run_id: int) -> dict[tuple[str, str], tuple[float, float]]:
    """(operator, case) -> (baseline, candidate) median microseconds of a run's timed cases."""
    found = {}
    for a in store.attempts(run_id):
        t = store.timing(a.id)
        for c in (t.extra.get("timing", {}).get("cases", []) if t else []):
            found[(a.op, c["case"])] = (c["baseline"]["median_us"], c["candidate"]["median_us"])
    return found


def repeatability(out: Path, db: str, runs: list[str], tag: str = "repeatability-h200",
                  title: str = "Repeatability: two independent runs of the shipped reference solutions") -> bool:
    """Per-operator speed-ups of two runs (goal: median difference within 2%), and beside them each
    common case's baseline and candidate times (which show whether a side moved, and both alike)."""
    with Store(db) as store:
        speeds, medians = [], []
        for name in runs:
            run = store.find_run(name)
            if run is None:
                sys.exit(f"no run {name!r} in {db}")
            speeds.append({r.op: r.speedup for r in store.rows(run.id) if r.speedup is not None})
            medians.append(_case_medians(store, run.id))
        env = run.environment
    common = sorted(set(speeds[0]) & set(speeds[1]))
    diffs = {op: abs(speeds[0][op] - speeds[1][op]) / ((speeds[0][op] + speeds[1][op]) / 2) for op in common}
    med = statistics.median(diffs.values())
    worst = max(diffs, key=lambda op: diffs[op])
    ok = med <= 0.02
    cases = sorted(set(medians[0]) & set(medians[1]))
    moved = {side: [medians[1][c][k] / medians[0][c][k] - 1 for c in cases]
             for k, side in enumerate(("baseline", "candidate"))}
    per_case = "; ".join(f"{side} times over {len(cases)} common cases: median change "
                         f"{100 * statistics.median(x):+.2f}%, {sum(abs(v) > 0.05 for v in x)} moved more than 5%"
                         for side, x in moved.items()) if cases else ""
    rows = [[op, f"{speeds[0][op]:.3f}", f"{speeds[1][op]:.3f}", f"{100 * diffs[op]:.2f}"] for op in common]
    write(out, tag, title, ok,
          f"median absolute difference of per-operator speed-ups {100 * med:.2f}% over {len(common)} operators "
          f"(goal: 2%); worst {worst} at {100 * diffs[worst]:.2f}%" + (f". {per_case}" if per_case else ""),
          ["operator", f"{runs[0]} (x)", f"{runs[1]} (x)", "difference (%)"], rows,
          {"runs": runs, "speedups": speeds, "differences": diffs,
           "case_medians_us": {f"{op} | {case}": [medians[0][(op, case)], medians[1][(op, case)]]
                               for op, case in cases}}, env=env)
    return ok


def first_sights(out: Path, db: str, run_name: str, tag: str = "first-sights-h200") -> bool:
    """How a run's first sights compare with its repeated calls, per side: the fastest first sight over
    the repeats' median (quantiles over cases), the cases whose counted time a first sight lifted, how
    much that moved each case's speed-up, and the cases flagged as a cache (goal: none, on honest code)."""
    with Store(db) as store:
        run = store.find_run(run_name)
        if run is None:
            sys.exit(f"no run {run_name!r} in {db}")
        cases = {}
        for a in store.attempts(run.id):
            t = store.timing(a.id)
            for c in (t.extra.get("timing", {}).get("cases", []) if t else []):
                timed = CaseTiming.from_dict(c)
                if timed.candidate_first_us:
                    cases[(a.op, timed.case)] = timed
        env = run.environment
    if not cases:
        sys.exit(f"run {run_name!r} has no case timed with first sights")

    def quantiles(xs: list[float]) -> list[str]:
        xs = sorted(xs)
        return [f"{xs[round(q * (len(xs) - 1))]:.3f}" for q in (0.0, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0)]

    ratio = {"baseline": [min(c.baseline_first_us) / c.baseline.median_us for c in cases.values()],
             "candidate": [min(c.candidate_first_us) / c.candidate.median_us for c in cases.values()]}
    lifted = {"baseline": [k for k, c in cases.items() if c.baseline_us > c.baseline.median_us],
              "candidate": [k for k, c in cases.items() if c.candidate_us > c.candidate.median_us]}
    moved = [c.speedup / (c.baseline.median_us / c.candidate.median_us) for c in cases.values()]
    flagged = [f"{op}: {case}" for (op, case), c in cases.items() if c.repeats_faster]
    rows = [[f"fastest first sight / repeats' median, {side}", *quantiles(ratio[side])] for side in ratio]
    rows.append(["case speed-up counted / speed-up of the medians", *quantiles(moved)])
    write(out, tag, f"First sights against repeated calls: run {run_name}", not flagged,
          f"{len(cases)} cases of {len({op for op, _ in cases})} operators; {len(flagged)} flagged as a cache; "
          f"a first sight lifted the counted time of {len(lifted['baseline'])} baseline and "
          f"{len(lifted['candidate'])} candidate cases", ["figure", "min", "1%", "10%", "median", "90%", "99%",
                                                          "max"], rows,
          {"run": run_name, "flagged": flagged, "lifted": {side: [" / ".join(k) for k in keys]
                                                           for side, keys in lifted.items()}}, env)
    return not flagged


def throughput(out: Path, db: str, run_name: str, tag: str = "throughput-h200") -> bool:
    with Store(db) as store:
        run = store.find_run(run_name)
        if run is None:
            sys.exit(f"no run {run_name!r} in {db}")
        rows, totals = [], {"startup": 0.0, "compile": 0.0, "correctness": 0.0, "timing": 0.0}
        cases: dict[str, float] = {}  # the timed cases' wall seconds by phase (`CaseTiming.phases_s`)
        outside: dict[str, float] = {}  # the timing workers' seconds by part (clock set-up, loading, cases)
        rounds: list[int] = []  # samples a side per timed case (sampling may stop once both medians are precise)
        boots: list[dict[str, float]] = []  # each fork server's start, by part, as its workers report it
        twins = 0  # identical samples, which take their twin's timing: no work of their own
        timed = 0
        untimed = []  # passed but never timed: a run cut before the end says which operators its figure leaves out
        for a in store.attempts(run.id):
            v, t = store.verdict(a.id), store.timing(a.id)
            timed += t is not None
            if t is None and v is not None and v.status.value == "pass":
                untimed.append(a.op)
            if t is not None and "same_code_as" in t.extra:
                twins, t = twins + 1, None
            for c in (t.extra.get("timing", {}).get("cases", []) if t else []):
                rounds.append(c["candidate"]["n"])
                for phase, x in (c.get("phases_s") or {}).items():
                    cases[phase] = cases.get(phase, 0.0) + x
            p = (v.extra.get("phases") if v else None) or {}
            q = (t.extra.get("phases") if t else None) or {}
            if t is not None and q:
                parts = t.extra.get("timing", {}).get("worker_s") or {}
                for part, x in parts.items():
                    outside[part] = outside.get(part, 0.0) + x
                if parts:  # before the clock: building the operator's record (an ATen one imports torch._dynamo)
                    before = max(q.get("work_s", 0.0) - sum(parts.values()), 0.0)
                    outside["before"] = outside.get("before", 0.0) + before
                outside["spawn and exit"] = outside.get("spawn and exit", 0.0) + max(
                    t.seconds - q.get("work_s", 0.0) - q.get("startup_s", 0.0), 0.0)
            for boot in (p.get("server_boot_s"), q.get("server_boot_s")):
                if boot and boot not in boots:
                    boots.append(boot)
            startup = p.get("startup_s", 0.0) + q.get("startup_s", 0.0)
            compile_s = p.get("compile_s", 0.0) + q.get("compile_s", 0.0)
            correctness = max(p.get("work_s", 0.0) - p.get("compile_s", 0.0), 0.0)
            timing = max(q.get("work_s", 0.0) - q.get("compile_s", 0.0), 0.0)
            for k, x in zip(totals, (startup, compile_s, correctness, timing)):
                totals[k] += x
            rows.append([a.op, v.status.value if v else "", f"{startup:.1f}", f"{compile_s:.1f}",
                         p.get("kernels_compiled", 0) + q.get("kernels_compiled", 0), f"{correctness:.1f}",
                         f"{timing:.1f}", f"{(v.seconds if v else 0) + (t.seconds if t else 0):.1f}"])
        last = store.last_activity(run.id)
        verify_wall, timing_wall = store.phase_walls(run.id)
        # the jobs' busy time: a run resumed in a later device call leaves out the pause between, and one
        # that timed while it verified counts the time both phases ran once
        wall = min((run.finished or last or run.created) - run.created, store.busy_wall(run.id))
        untimed.sort()
    work = sum(totals.values())
    state = "" if run.finished else " (unfinished: up to its last stored verdict)"
    # The GPUs' share of the timing phase: held alone by a measured section, and held shared by the
    # timers' own device work (truths on the host, compiling and waits hold nothing).
    alone = cases.get("measured", 0.0) + sum(cases.get(k, 0.0) for k in ("probe", "warm-ups", "samples", "walls"))
    shared = sum(cases.get(k, 0.0) for k in ("inputs", "truth", "first call", "checks", "calls"))
    gpu_s = (timing_wall or 0.0) * max(int(run.environment.get("device_count") or 1), 1)
    overlap = ", timing while verifying" if run.config.get("time_while_verifying") else ""  # session L's runs
    n_ops = len({r[0] for r in rows})  # a mixed set judges several candidates per operator
    judged = (f"{len(rows)} operators" if n_ops == len(rows)
              else f"{len(rows)} candidates of {n_ops} operator{'s' * (n_ops != 1)}")
    summary = (f"run `{run_name}`{state} took {wall:.0f} s of wall time ({run.config.get('workers', '?')} workers, "
               f"{run.config.get('timers', 1)} timing jobs at once{overlap}): "
               f"verification {verify_wall or 0:.0f} s for {judged}, "
               f"timing {timing_wall or 0:.0f} s for {timed}"
               + (f" ({twins} of them identical to another sample, timed once)" if twins else "")
               + (f" (passed but not timed: {', '.join(untimed[:10])}{' ...' if len(untimed) > 10 else ''})"
                  if untimed else "") + "; "
               f"worker seconds: start-up {totals['startup']:.0f}, Triton compilation {totals['compile']:.0f}, "
               f"correctness {totals['correctness']:.0f}, timing {totals['timing']:.0f} (of {work:.0f})"
               + (f"; the timed cases' seconds: {', '.join(f'{k} {x:.0f}' for k, x in cases.items())}"
                  if cases else "")
               + "".join(f"; a fork server's start {sum(b.values()):.1f} s ("
                         + ", ".join(f"{k} {x:.1f}" for k, x in b.items()) + ")" for b in boots)
               + (f"; samples a side per case: mean {statistics.mean(rounds):.0f}, median "
                  f"{statistics.median(rounds):.0f} over {len(rounds)} cases" if rounds else "")
               + (f"; the timing workers' seconds: {', '.join(f'{k} {x:.0f}' for k, x in outside.items())}"
                  if outside else "")
               + (f"; the GPUs held alone by measurements {alone:.0f} s of {gpu_s:.0f} ({alone / gpu_s:.0%}), "
                  f"held shared by the timers' own work {shared:.0f} timer-seconds"
                  + ("" if "host truths" in cases else " (host truths included: the run predates their own phase)")
                  if gpu_s and cases else ""))
    write(out, tag, "Throughput: where a reference run's time goes", None, summary,
          ["operator", "status", "start-up (s)", "compile (s)", "kernels compiled", "correctness (s)",
           "timing (s)", "worker wall (s)"], rows, {"wall_s": wall, "verify_wall_s": verify_wall,
                                                    "timing_wall_s": timing_wall, "timed": timed,
                                                    "untimed": untimed,
                                                    "totals_s": totals, "timed_cases_s": cases,
                                                    "samples_per_side": rounds, "server_boots_s": boots,
                                                    "timing_workers_s": outside,
                                                    "gpu_alone_s": alone, "gpu_shared_timer_s": shared,
                                                   "run": run_name},
          env=run.environment)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", choices=["aa", "fidelity", "repeatability", "throughput", "first-sights"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--ops", default=None)
    parser.add_argument("--db")
    parser.add_argument("--runs")
    parser.add_argument("--run")
    parser.add_argument("--tag", help="repeatability: the record's file name (default repeatability-h200)")
    parser.add_argument("--title", default="Two runs of the shipped reference solutions",
                        help="repeatability with --tag: the record's title")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.benchmark in ("aa", "fidelity") and not torch.cuda.is_available():
        sys.exit(f"{args.benchmark} needs a CUDA GPU")
    torch.backends.cuda.matmul.allow_tf32 = False
    ops = registry.select(args.ops.split(",") if args.ops else None)
    if args.benchmark == "aa":
        ok = aa(out, ops)
    elif args.benchmark == "fidelity":
        ok = fidelity(out, ops)
    elif args.benchmark == "repeatability":
        ok = repeatability(out, args.db, args.runs.split(","), *([args.tag, args.title] if args.tag else []))
    elif args.benchmark == "first-sights":
        ok = first_sights(out, args.db, args.run, *([args.tag] if args.tag else []))
    else:
        ok = throughput(out, args.db, args.run, *([args.tag] if args.tag else []))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
