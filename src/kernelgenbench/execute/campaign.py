"""A campaign: produce candidates with a method, store them, judge what has no verdict yet.

Generation and judging meet only in the store, so a killed campaign resumes from it: attempts
are inserted once (unique per run, op, sample and round) and only attempts without a verdict are
judged again.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..methods.base import Method
from ..platforms import Platform, environment
from ..sandbox import Limits, Request, judge
from ..store import Attempt, Run, Store
from ..suite.spec import Operator
from ..verify.pipeline import Plan
from ..verify.verdict import Status, Verdict
from .local import Executor, LocalPool


@dataclass(frozen=True)
class CampaignResult:
    run: Run
    judged: int
    already_judged: int
    total: int


def default_name(method: Method, ops: list[Operator], platform: Platform) -> str:
    config = {"method": method.name, **method.config(), "ops": sorted(o.id for o in ops), "platform": platform.name}
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:8]
    return f"{method.name}-{platform.name}-{digest}"


def _missing_verdict(attempt: Attempt, run: Run) -> Verdict:
    return Verdict(op=attempt.op, status=Status.COMPILE_ERROR, reason=attempt.origin or "no candidate",
                   layer="bind", seed=run.seed, platform=run.platform)


def run_campaign(store: Store, method: Method, ops: list[Operator], platform: Platform, *,
                 limits: Limits = Limits(), name: str | None = None, fresh: bool = False,
                 executor: Executor | None = None, plan: Plan | None = None,
                 on_verdict: Callable[[Attempt, Verdict], None] | None = None) -> CampaignResult:
    plan = plan or Plan(platform.sizes)
    name = name or default_name(method, ops, platform)
    if fresh and store.find_run(name) is not None:
        name = f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    config = {"method": method.name, **method.config(), "ops": [o.id for o in ops],
              "sizes": list(plan.sizes), "timeout_s": limits.timeout_s}
    run = store.open_run(name, method.name, config, platform.name, environment(platform), secrets.randbits(47))

    for op in ops:
        for cand in method.candidates(op):
            origin = cand.missing or cand.origin
            store.add_attempt(run.id, cand.op, method.name, cand.code, sample=cand.sample, round=cand.round,
                              model=cand.model, origin=origin)

    total, before = store.counts(run.id)
    pending = store.pending(run.id)
    judged = 0
    for attempt in [a for a in pending if a.source_code is None]:
        v = _missing_verdict(attempt, run)
        store.put_verdict(attempt.id, v)
        judged += 1
        if on_verdict:
            on_verdict(attempt, v)

    def job(attempt: Attempt, device_index: int | None) -> Verdict:
        assert attempt.source_code is not None
        return judge(Request(attempt.op, attempt.source_code, platform, run.seed, plan, device_index), limits)

    runnable = [a for a in pending if a.source_code is not None]
    for attempt, verdict in (executor or LocalPool(platform)).map(job, runnable):
        store.put_verdict(attempt.id, verdict)
        judged += 1
        if on_verdict:
            on_verdict(attempt, verdict)
    store.finish_run(run.id)
    return CampaignResult(store.find_run(run.id) or run, judged, before, total)
