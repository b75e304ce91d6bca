"""A campaign: produce candidates with a method, store them, judge them, feed verdicts back.

Generation and judging meet only in the store, so a killed campaign resumes from it. Each
(operator, sample, round) is generated at most once: its request, reply and cost are stored with
the attempt, in one transaction, before it is judged, and a rerun finds them there instead of
asking again; only attempts without a verdict are judged again.

Operators (or, without early stopping, their samples) are worked on concurrently: at most
`concurrency` generations at a time, and as many judging jobs as the executor has workers.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, replace
from typing import Any, TypeVar

from ..methods.base import Interrupted, Method, Task, Turn
from ..methods.stored import StoredMethod
from ..platforms import Platform, device_memory, environment
from ..sandbox import Limits, Request, judge
from ..store import NO_CODE, Attempt, Run, Store, code_sha
from ..suite.spec import Operator
from ..verify import copied
from ..verify.pipeline import Plan
from ..verify.timing import TimingConfig, timing_bytes
from ..verify.verdict import Status, Verdict
from .local import Executor, LocalPool

T = TypeVar("T")


@dataclass(frozen=True)
class CampaignResult:
    run: Run
    judged: int
    already_judged: int
    total: int
    generated: int = 0
    db: str = ""


@dataclass(frozen=True)
class Outcome:
    """What became of one attempt: its status, and the harness's verdict when it was judged."""

    attempt: Attempt
    status: str
    reason: str
    verdict: Verdict | None = None

    @property
    def passed(self) -> bool:
        return self.status == Status.PASS.value


def default_name(method: Method, ops: list[Operator], platform: Platform) -> str:
    config = {"method": method.name, **method.config(), "ops": sorted(o.id for o in ops), "platform": platform.name}
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:8]
    return f"{method.name}-{platform.name}-{digest}"


@dataclass(frozen=True)
class Job:
    """One candidate to judge, as it travels to whichever process (or machine) judges it: picklable."""

    op: str
    code: str
    triton_cache: str | None = None


def judge_job(platform: Platform, seed: int, plan: Plan, limits: Limits, extra_env: dict[str, str],
              timing: TimingConfig | None, job: Job, device_index: int | None) -> Verdict:
    """Judge `job` in its own sandboxed worker on this machine. The campaign binds the run's settings
    with functools.partial, which keeps the whole call picklable for executors on other machines."""
    cache = job.triton_cache
    if cache is not None:
        try:
            os.makedirs(cache, exist_ok=True)
        except OSError:  # a node that cannot reach the store's folder keeps the cache in the workdir
            cache = None
    return judge(Request(job.op, job.code, platform, seed, plan, device_index, extra_env=extra_env, timing=timing,
                         triton_cache=cache), limits)


def longest_first(items: list[T], past: dict[str, float], op_of: Callable[[T], str]) -> list[T]:
    """Items whose operator took longest in earlier runs first (unknown ones before all): a long
    job started last would run on alone after everything else is done."""
    return sorted(items, key=lambda item: -past.get(op_of(item), float("inf")))


def crowded_out(verdict: Verdict) -> bool:
    """A timing verdict its neighbours may have caused (device or host memory they held, a wait
    behind them), so one that counts only once the candidate was timed alone."""
    return verdict.status in (Status.INFRA_ERROR, Status.TIMEOUT, Status.CRASH)


def _same_code_as(attempt_id: int, verdict: Verdict) -> Verdict:
    """The timing of attempt `attempt_id`, for an attempt with the same operator and source text."""
    return replace(verdict, extra=verdict.extra | {"same_code_as": verdict.extra.get("same_code_as", attempt_id)})


def checks_copies(method: Method) -> bool:
    """Whether `method`'s candidates are checked against the answer key (`verify/copied.py`): every
    method's but the reference's, whose candidates are the shipped solutions (also when a stored
    reference run is judged again)."""
    origin = method.source.method if isinstance(method, StoredMethod) else method.name
    return origin != "reference"


def _missing_verdict(attempt: Attempt, run: Run) -> Verdict:
    return Verdict(op=attempt.op, status=Status.COMPILE_ERROR, reason=attempt.origin or "no candidate",
                   layer="bind", seed=run.seed, platform=run.platform)


class _Campaign:
    def __init__(self, store: Store, method: Method, run: Run, platform: Platform, plan: Plan, limits: Limits,
                 executor: Executor, concurrency: int, on_outcome: Callable[[Outcome], None] | None,
                 on_timing: Callable[[Attempt, Verdict], None] | None = None, copy_check: bool = True):
        self.store, self.method, self.run, self.platform = store, method, run, platform
        self.plan, self.limits, self.executor = plan, limits, executor
        self.schedule = method.schedule()
        self.slots = threading.Semaphore(max(1, concurrency))
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.on_outcome = on_outcome
        self.on_timing = on_timing
        self.checks_copies = copy_check and checks_copies(method)
        self.judged = 0
        self.generated = 0

    def unit(self, op: Operator, samples: tuple[int, ...]) -> None:
        for s in samples:
            if self.sample(op, s) and self.schedule.early_stop:
                return

    def sample(self, op: Operator, s: int) -> bool:
        """Work one sample through its rounds; True once it passes."""
        history: list[Turn] = []
        for r in range(self.schedule.rounds):
            attempt = self.store.find_attempt(self.run.id, op.id, s, r) or self._generate(op, s, r, tuple(history))
            known = self.store.status(attempt.id)
            if known is None:
                outcome = self._judge(attempt)
                status, reason = outcome.status, outcome.reason
            else:
                status, reason = known
            exchange = self.store.exchange(attempt.id)
            history.append(Turn(r, attempt.source_code, exchange.reply if exchange else None, status, reason,
                                self.store.verdict(attempt.id)))
            if status == Status.PASS.value:
                return True
        return False

    def _generate(self, op: Operator, s: int, r: int, history: tuple[Turn, ...]) -> Attempt:
        with self.slots:
            if self.stop.is_set():
                raise Interrupted
            cand = self.method.generate(Task(op, self.platform, s, r, history, self.stop, self.limits.sandbox))
        if self.stop.is_set() and cand.exchange is None:
            raise Interrupted
        no_code = (cand.missing or "no code") if cand.code is None and cand.missing_status == NO_CODE else None
        attempt_id = self.store.add_generated(
            self.run.id, op.id, self.method.name, cand.code, sample=s, round=r, model=cand.model,
            origin=cand.missing or cand.origin, exchange=cand.exchange, no_code=no_code)
        attempt = self.store.find_attempt(self.run.id, op.id, s, r)
        assert attempt is not None and attempt.id == attempt_id
        if cand.exchange is not None:
            with self.lock:
                self.generated += 1
        if no_code is not None:
            self._report(Outcome(attempt, NO_CODE, no_code))
        return attempt

    def _judge(self, attempt: Attempt) -> Outcome:
        if self.stop.is_set():
            raise Interrupted
        if attempt.source_code is None:
            verdict = _missing_verdict(attempt, self.run)
        elif self.checks_copies and (copy := copied.check(attempt.op, attempt.source_code, seed=self.run.seed,
                                                          platform=self.run.platform)) is not None:
            verdict = copy  # found here, in the parent: the worker's sandbox cannot see solutions/
        else:
            verdict = self.executor.call(self.judge_fn(), self.job(attempt))
        self.store.put_verdict(attempt.id, verdict)
        outcome = Outcome(attempt, verdict.status.value, verdict.reason, verdict)
        self._report(outcome)
        return outcome

    def job(self, attempt: Attempt) -> Job:
        assert attempt.source_code is not None
        return Job(attempt.op, attempt.source_code, self.triton_cache(attempt))

    def judge_fn(self, timing: TimingConfig | None = None) -> Callable[[Job, int | None], Verdict]:
        """Verification (with this run's share of threads per worker), or with `timing`, timing."""
        threads = self.executor.threads if timing is None else self.executor.timing_threads
        extra_env = {"OMP_NUM_THREADS": str(threads)}
        return functools.partial(judge_job, self.platform, self.run.seed, self.plan, self.limits, extra_env, timing)

    def triton_cache(self, attempt: Attempt) -> str:
        """One compiled-kernel cache per source text, beside the store. Absolute: a worker runs in a
        folder of its own, where a relative one (the default store, `kgbench.db`, or `--db runs/x.db`)
        landed and was deleted with it, so no run ever reused a kernel its verification compiled."""
        store = self.store.path.absolute()
        root = store.parent / f"{store.name}.triton"
        return str(root / (code_sha(attempt.source_code) or "none"))

    def time_passes(self, timing: TimingConfig, ops: list[Operator]) -> None:
        """Time every passed attempt of `ops` after all verification is done, `timers` per GPU at a
        time, whose measurements take turns (nothing else runs on a GPU while a measurement does).
        A job whose inputs need more than a timer's share of the GPU's memory holds that many timers'
        slots. A job its neighbours may have failed (out of device memory, a stuck neighbour, a
        timeout) is timed again alone before its verdict counts. A run resumed for some operators
        times only those. Identical samples (same operator, same source text) are timed once: the
        others take that timing, marked `same_code_as`."""
        by_id = {op.id: op for op in ops}
        untimed = longest_first([a for a in self.store.untimed_passes(self.run.id) if a.op in by_id],
                                self.store.past_seconds(self.platform.name, "timing"), lambda a: a.op)
        attempts: list[Attempt] = []
        leader: dict[tuple[str, str | None], Attempt] = {}
        twins: dict[int, list[Attempt]] = {}  # an attempt timed for itself: the identical ones that take its timing
        for a in untimed:
            key = (a.op, code_sha(a.source_code))
            if key in leader:
                twins[leader[key].id].append(a)
            elif (earlier := self.store.timed_twin(self.run.id, a.op, a.source_code)) is not None:
                self._timed(a, _same_code_as(*earlier))  # its twin was timed in an earlier call
            else:
                leader[key], twins[a.id] = a, []
                attempts.append(a)
        jobs = [self.job(a) for a in attempts]
        of_job = {id(job): attempt for job, attempt in zip(jobs, attempts)}
        memory = device_memory(self.platform)
        share = memory / self.executor.timers if memory else None

        def slots(job: Job) -> int:
            return max(1, math.ceil(timing_bytes(by_id[job.op], timing.tiers) / share)) if share else 1

        crowded = []
        for job, verdict in self.executor.time_each(self.judge_fn(timing), jobs, slots):
            if self.executor.timers > 1 and crowded_out(verdict):
                crowded.append((job, verdict))
            else:
                attempt = of_job[id(job)]
                self._timed(attempt, verdict, twins[attempt.id])
        first = {id(job): verdict for job, verdict in crowded}
        alone = [job for job, _ in crowded]
        for job, verdict in self.executor.time_each(self.judge_fn(timing), alone, lambda _: self.executor.timers):
            before = first[id(job)]
            attempt = of_job[id(job)]
            self._timed(attempt, replace(verdict, extra=verdict.extra | {
                "timed_alone_after": f"{before.status.value}: {before.reason}"}), twins[attempt.id])

    def _timed(self, attempt: Attempt, verdict: Verdict, twins: list[Attempt] | None = None) -> None:
        """Store `attempt`'s timing and its identical twins' copies of it, then stop if asked to."""
        timed = [(attempt, verdict)] + [(t, _same_code_as(attempt.id, verdict)) for t in twins or []]
        for a, v in timed:
            self.store.put_timing(a.id, v)
        if self.on_timing:
            for a, v in timed:
                self.on_timing(a, v)
        if self.stop.is_set():
            raise Interrupted

    def _report(self, outcome: Outcome) -> None:
        with self.lock:
            self.judged += 1
            if self.on_outcome:
                self.on_outcome(outcome)


def run_campaign(store: Store, method: Method, ops: list[Operator], platform: Platform, *,
                 limits: Limits = Limits(), name: str | None = None, fresh: bool = False,
                 executor: Executor | None = None, plan: Plan | None = None, concurrency: int = 4,
                 extra_config: dict[str, Any] | None = None, check: bool = True,
                 on_outcome: Callable[[Outcome], None] | None = None, timing: TimingConfig | None = None,
                 on_timing: Callable[[Attempt, Verdict], None] | None = None,
                 copy_check: bool = True) -> CampaignResult:
    """Run (or resume) the campaign `name`; `check` runs the method's own check first. With `timing`,
    every attempt that passes is then timed against the native baseline. A candidate that copies a
    shipped solution is `hack_copied` without being judged (`verify/copied.py`), except the reference
    method's; `copy_check=False` judges such copies too, for studies of the harness itself (the
    throughput benchmark's mixed set is built from the solutions)."""
    if check:
        method.check()
    plan = plan or Plan.on(platform)
    name = name or default_name(method, ops, platform)
    if fresh and store.find_run(name) is not None:
        name = f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    schedule = method.schedule()
    executor = executor or LocalPool(platform)
    config = {"method": method.name, **method.config(), "ops": [o.id for o in ops], "sizes": list(plan.sizes),
              "fail_fast": plan.fail_fast,
              "timeout_s": limits.timeout_s, "samples": schedule.samples, "rounds": schedule.rounds,
              "early_stop": schedule.early_stop, "workers": executor.workers, "timers": executor.timers,
              "copy_check": copy_check and checks_copies(method), **(extra_config or {})}
    if timing is not None:
        config["timing"] = asdict(timing)
    run = store.open_run(name, method.name, config, platform.name, environment(platform), secrets.randbits(47))
    before = store.counts(run.id)[1]
    campaign = _Campaign(store, method, run, platform, plan, limits, executor, concurrency, on_outcome, on_timing,
                         copy_check)
    ops = longest_first(list(ops), store.past_seconds(platform.name, "verify"), lambda op: op.id)
    if schedule.early_stop:
        units = [(op, schedule.samples_of(op.id)) for op in ops]
    else:
        units = [(op, (s,)) for op in ops for s in schedule.samples_of(op.id)]
    pool = ThreadPoolExecutor(max(1, concurrency) + executor.workers, thread_name_prefix="kgb-campaign")
    futures = [pool.submit(campaign.unit, op, samples) for op, samples in units]
    try:
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for f in done:
            if f.exception() is not None and not isinstance(f.exception(), Interrupted):
                raise f.exception()  # type: ignore[misc]
    except BaseException:
        campaign.stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    if timing is not None:
        campaign.time_passes(timing, ops)
    store.finish_run(run.id)
    total = store.counts(run.id)[0]
    return CampaignResult(store.find_run(run.id) or run, campaign.judged, before, total, campaign.generated,
                          str(store.path))
