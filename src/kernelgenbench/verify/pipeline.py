"""The verification pipeline run inside the worker: bind, then every case; first failure decides."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..suite.spec import Operator, Size
from .bind import BindError, binding_for, load_module, required_functions
from .correctness import CandidateCrash, CaseRunner
from .verdict import CaseResult, Status, Verdict

Emit = Callable[[str, dict], None]


@dataclass(frozen=True)
class Plan:
    """Which cases to run: size tiers the platform affords, and whether hidden cases are included."""

    sizes: tuple[Size, ...]
    public_only: bool = False
    fail_fast: bool = False


def first_failure(results: list[CaseResult] | tuple[CaseResult, ...]) -> CaseResult | None:
    """The status of a verdict is that of its first failing case, in case order."""
    return next((r for r in results if r.status is not Status.PASS), None)


def verify(op: Operator, path: Path, device: str, seed: int, plan: Plan, platform: str,
           emit: Emit = lambda event, data: None) -> Verdict:
    start = time.perf_counter()

    def verdict(status: Status, reason: str, **kw) -> Verdict:
        return Verdict(op=op.id, status=status, reason=reason, seed=seed, platform=platform,
                       seconds=time.perf_counter() - start, **kw)

    cases = op.select_cases(sizes=plan.sizes, public_only=plan.public_only)
    if not cases:
        return verdict(Status.INFRA_ERROR, f"{op.id} has no cases for sizes {list(plan.sizes)}", layer="plan")
    try:
        functions = required_functions(op, load_module(path))
    except BindError as e:
        return verdict(Status.COMPILE_ERROR, e.reason, layer="bind", traceback=e.traceback)

    runner = CaseRunner(op, binding_for(op, functions, device), device, seed)
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
        return verdict(Status.PASS, f"all {len(results)} cases correct", cases=tuple(results))
    return verdict(first.status, first.reason, failing_case=first.case, cases=tuple(results), traceback=first_tb)
