"""The verification pipeline run inside the worker: bind, then every case; first failure decides."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from ..platforms import Platform
from ..suite.spec import Case, Operator, Size
from . import launches
from .bind import BindError, binding_for, load_module, required_functions
from .clock import clock_for
from .correctness import CandidateCrash, CaseRunner, is_device_fault
from .device_gate import DeviceGate, GateTimeout, compile_outside, gate_path
from .static import scan
from .timing import CaseTimer, TimingConfig, TimingFailure, tunes_itself
from .trace import OpTrace
from .verdict import CaseResult, Status, Verdict

Emit = Callable[[str, dict], None]


CHECKS: tuple[str, ...] = ("static", "ghost", "trace", "profile")
LAYER_OF = {Status.HACK_GHOST: "ghost", Status.HACK_TRACE: "trace", Status.HACK_PROFILE: "profile",
            Status.HACK_TIMING: "timing"}


@dataclass(frozen=True)
class Plan:
    """Which cases to run (size tiers the platform affords, hidden ones or not) and which anti-cheat
    layers judge them. Turning a layer off is for studying the harness itself, never for a result."""

    sizes: tuple[Size, ...]
    public_only: bool = False
    fail_fast: bool = False
    checks: tuple[str, ...] = CHECKS
    # dtypes the platform cannot run (its profile's): such cases are counted as unsupported, not run
    unsupported_dtypes: tuple[str, ...] = ()

    @classmethod
    def on(cls, platform: Platform, sizes: tuple[Size, ...] | None = None, **options: Any) -> Plan:
        """The plan for `platform`: its size tiers (or `sizes`), and its profile's unsupported dtypes."""
        return cls(sizes or platform.sizes, unsupported_dtypes=tuple(sorted(platform.profile.unsupported_dtypes)),
                   **options)

    def runnable(self, cases: tuple[Case, ...]) -> tuple[tuple[Case, ...], dict[str, Any]]:
        """The cases this platform can run, and what was left out: {"cases": n, "dtypes": [...]}."""
        skip = set(self.unsupported_dtypes)
        kept = tuple(c for c in cases if not c.dtypes & skip)
        dropped = sorted({d for c in cases for d in c.dtypes & skip})
        return kept, {"cases": len(cases) - len(kept), "dtypes": dropped}


def first_failure(results: list[CaseResult] | tuple[CaseResult, ...]) -> CaseResult | None:
    """The status of a verdict is that of its first failing case, in case order."""
    return next((r for r in results if r.status is not Status.PASS), None)


def verify(op: Operator, path: Path, device: str, seed: int, plan: Plan, platform: str,
           emit: Emit = lambda event, data: None) -> Verdict:
    start = time.perf_counter()

    cases, unsupported = plan.runnable(op.select_cases(sizes=plan.sizes, public_only=plan.public_only))
    left_out = f"; {unsupported['cases']} cases in {', '.join(unsupported['dtypes'])} unsupported on {platform}" \
        if unsupported["cases"] else ""

    def verdict(status: Status, reason: str, **kw) -> Verdict:
        extra = kw.pop("extra", {}) | ({"unsupported": unsupported} if unsupported["cases"] else {})
        return Verdict(op=op.id, status=status, reason=reason, seed=seed, platform=platform,
                       seconds=time.perf_counter() - start, extra=extra, **kw)

    if not cases and unsupported["cases"]:
        return verdict(Status.UNSUPPORTED, f"all {unsupported['cases']} cases of {op.id} use "
                                           f"{', '.join(unsupported['dtypes'])}, which {platform} cannot run",
                       layer="plan")
    if not cases:
        return verdict(Status.INFRA_ERROR, f"{op.id} has no cases for sizes {list(plan.sizes)}", layer="plan")
    if "static" in plan.checks:
        findings = scan(path.read_text(encoding="utf-8"), op.work, op.size_reads > 0)
        if findings:
            more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
            return verdict(Status.HACK_STATIC, f"L1 static scan: {findings[0].describe()}{more}. To comply: "
                                               f"{findings[0].advice()}", layer="static",
                           extra={"findings": [f.describe() for f in findings],
                                  "rules": sorted({f.rule for f in findings})})
    runtime_checks = {"ghost", "trace", "profile"} & set(plan.checks)
    launcher = launches.install()
    monitor = launcher if runtime_checks else None
    try:
        functions = required_functions(op, load_module(path))
    except BindError as e:
        return verdict(Status.COMPILE_ERROR, e.reason, layer="bind", traceback=e.traceback)

    trace = None
    if monitor is not None and "trace" in plan.checks:
        own = frozenset(f"aten::{ov.name}" for ov in op.overloads) if op.source == "aten" else frozenset()
        trace = OpTrace(op.work, monitor, own, op.size_reads)

    def around() -> ExitStack:
        """Inside every call of a candidate function: the op trace, and the ghost replay's poison."""
        stack = ExitStack()
        if trace is not None:
            stack.enter_context(trace.mode())
        if monitor is not None:
            stack.enter_context(monitor.poison_fresh_memory())
        return stack

    runner = CaseRunner(op, binding_for(op, functions, device, around, lambda: launcher.inside), device, seed,
                        monitor=monitor, ghost="ghost" in plan.checks, trace=trace,
                        profile="profile" in plan.checks)
    results: list[CaseResult] = []
    first_tb: str | None = None
    for case in cases:
        emit("case_start", {"case": case.name, "overload": case.overload, "visibility": case.visibility})
        try:
            outcome = runner.run(case)
        except CandidateCrash as e:
            results.append(CaseResult(case.name, case.overload, case.visibility, Status.CRASH, str(e)))
            first = first_failure(results)
            assert first is not None
            return verdict(first.status, first.reason, failing_case=first.case, cases=tuple(results))
        results.append(outcome.result)
        emit("case_done", outcome.result.to_dict())
        if outcome.traceback and first_tb is None and outcome.result.status is not Status.PASS:
            first_tb = outcome.traceback
        if plan.fail_fast and outcome.result.status is not Status.PASS:
            break
    first = first_failure(results)
    if first is None:
        return verdict(Status.PASS, f"all {len(results)} cases correct{left_out}", cases=tuple(results))
    return verdict(first.status, first.reason, failing_case=first.case, cases=tuple(results), traceback=first_tb,
                   layer=LAYER_OF.get(first.status, "correctness"))


def time_candidate(op: Operator, path: Path, device: str, seed: int, config: TimingConfig, platform: str,
                   emit: Emit = lambda event, data: None) -> Verdict:
    """Time a candidate that has passed verification on the performance cases, against the native
    baseline. The verdict is `pass` with the timings in `extra["timing"]`, or says what went wrong."""
    start = time.perf_counter()
    timings = []

    def verdict(status: Status, reason: str, **kw) -> Verdict:
        outside["cases"] = time.perf_counter() - cases_start if cases_start else 0.0
        extra = {"timing": {"cases": [t.to_dict() for t in timings], "clock": clock.describe(),
                            "config": asdict(config), "worker_s": {k: round(x, 4) for k, x in outside.items()},
                            "baseline": "library" if op.native_is_library(device) else "reference"}}
        if device.startswith("cuda"):  # what `timing.timing_bytes` estimates ahead, as this job needed it
            extra["timing"]["peak_reserved_bytes"] = torch.cuda.max_memory_reserved(device)
        return Verdict(op=op.id, status=status, reason=reason, seed=seed, platform=platform, layer="timing",
                       seconds=time.perf_counter() - start, extra=extra, **kw)

    # the worker's seconds: setting up the clock (and waiting for the device to do so), loading the
    # candidate, and all its cases, so a run shows what a timing worker spends outside its cases
    outside: dict[str, float] = {}
    cases_start = 0.0
    gate = DeviceGate(gate_path(device), idle=torch.cuda.synchronize if device.startswith("cuda") else None)
    t0 = time.perf_counter()
    with gate.shared():  # the clock's set-up runs kernels (a flush, the sleep's calibration)
        clock = clock_for(device)
    outside["clock_waits"] = gate.waited_s
    outside["clock"] = time.perf_counter() - t0 - gate.waited_s
    if not op.timed:
        why = "a metadata operator" if op.work in ("view", "read") else "no performance cases: nothing at scale"
        return verdict(Status.PASS, f"not timed: {op.id} has no kernel work to time ({why}); "
                                    "it counts in accuracy only")
    t0 = time.perf_counter()
    cases = op.select_cases(sizes=config.tiers)  # type: ignore[arg-type]
    try:
        module = load_module(path)
        functions = required_functions(op, module)
    except BindError as e:
        return verdict(Status.COMPILE_ERROR, e.reason, traceback=e.traceback)
    launcher = launches.install()
    compile_outside(gate)
    timer = CaseTimer(op, binding_for(op, functions, device, in_launcher=lambda: launcher.inside), device, seed,
                      config, clock, gate, first_call_shared=not tunes_itself(module, path.read_text(encoding="utf-8")))
    outside["load"] = time.perf_counter() - t0
    cases_start = time.perf_counter()
    results: list[CaseResult] = []
    for case in cases:
        emit("case_start", {"case": case.name, "overload": case.overload, "visibility": case.visibility})
        t0 = time.perf_counter()
        try:
            timing = timer.time_case(case)
        except TimingFailure as e:
            results.append(CaseResult(case.name, case.overload, case.visibility, e.status, e.reason))
            return verdict(e.status, e.reason, failing_case=case.name, cases=tuple(results))
        except GateTimeout as e:
            return verdict(Status.INFRA_ERROR, f"during timing: {e}", failing_case=case.name)
        except Exception as e:  # noqa: BLE001 - whatever the candidate raises is a verdict
            status = Status.CRASH if is_device_fault(e) else Status.RUNTIME_ERROR
            reason = f"during timing: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
            results.append(CaseResult(case.name, case.overload, case.visibility, status, reason))
            return verdict(status, reason, failing_case=case.name, cases=tuple(results))
        timings.append(timing)
        if device.startswith("cuda"):
            torch.cuda.empty_cache()  # what the case left cached is free for other workers' cases
        results.append(CaseResult(case.name, case.overload, case.visibility, Status.PASS,
                                  f"{timing.speedup:.3g}x", seconds=time.perf_counter() - t0))
        emit("case_done", results[-1].to_dict())
    return verdict(Status.PASS, f"{len(timings)} cases timed", cases=tuple(results))
