"""The Python API the CLI is a thin layer over."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import methods, prompts
from .execute import CampaignResult, Executor, LocalPool, Outcome, run_campaign
from .execute.cluster import ExecutorError
from .execute.config import ConfigError, load
from .platforms import Platform, detect, profile
from .sandbox import Limits, Request, confine, judge, warm_up
from .store import Store, StoreError
from .suite import registry
from .suite.solutions import is_shipped
from .suite.spec import SIZES, TWIN_MARK
from .verify import copied, rules
from .verify.audit import OperatorAudit, audit_operator
from .verify.pipeline import CHECKS, Plan
from .verify.timing import TimingConfig
from .verify.verdict import Verdict


class UsageError(Exception):
    """A mistake in what the user asked for; reported as one line."""


def read_source(path: str | Path) -> str:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a UTF-8 text file, so not a Python candidate") from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None


TRUSTED_METHODS = ("reference",)  # code shipped with the harness: it may run unconfined where it must
SANDBOX_MODE = "namespaces"  # what a run's config records for confined workers


def confined(method: str, sandbox: bool = True) -> bool:
    """Whether a run's workers are confined (`sandbox/confine.py`): always where this machine can.
    Where it cannot, untrusted code (every method but the shipped reference) is refused unless the
    user gave up the boundary (`sandbox=False`, `--no-sandbox`)."""
    if not sandbox:
        return False
    problem = confine.problem()
    if problem is None:
        return True
    if method in TRUSTED_METHODS:
        return False
    raise UsageError(f"{problem}; candidates of method {method!r} run only inside the sandbox: run as root or "
                     "where user namespaces are allowed, or pass --no-sandbox to run them unconfined")


def verify_file(path: str | Path, op: str, *, device: str | None = None, public_only: bool = False,
                seed: int | None = None, timeout_s: float = 300.0, fail_fast: bool = False,
                checks: tuple[str, ...] = CHECKS, triton_cache: str | None = None, sandbox: bool = True,
                copy_check: bool = True) -> Verdict:
    """Judge one candidate file on every case of `op` the platform affords, in a confined worker
    (`triton_cache`: a folder for its compiled kernels that outlives the worker, for `time_file`;
    `sandbox=False` gives up the confinement, as `--no-sandbox` does).
    A copy of a shipped solution is `hack_copied` (`verify/copied.py`) without being run, unless
    `path` is itself one of solutions/ or `copy_check=False` (the reference method's own files).
    """
    operator = registry.get(prompts.real_id(op))
    code = read_source(path)
    platform = detect(device)
    unknown = set(checks) - set(CHECKS)
    if unknown:
        raise UsageError(f"unknown checks {sorted(unknown)}: choose from {', '.join(CHECKS)}")
    plan = Plan.on(platform, public_only=public_only, fail_fast=fail_fast, checks=tuple(checks))
    seed = secrets.randbits(47) if seed is None else seed
    if copy_check and not is_shipped(path):
        copy = copied.check(operator.id, code, seed=seed, platform=platform.name)
        if copy is not None:
            return copy
    return judge(Request(operator.id, code, platform, seed, plan, 0 if platform.profile.accelerated else None,
                         triton_cache=triton_cache), Limits(timeout_s=timeout_s, sandbox=confined("files", sandbox)))


def explain_rules(op: str | None = None) -> str:
    """The host-code rule and every rule a `hack_*` verdict can name, for `op`'s kind of work if given."""
    return rules.explain(registry.get(op).work if op else None)


def time_file(path: str | Path, op: str, *, device: str | None = None, seed: int | None = None,
              config: TimingConfig = TimingConfig(), timeout_s: float = 600.0,
              triton_cache: str | None = None, sandbox: bool = True) -> Verdict:
    """Time a candidate against the native baseline on `op`'s performance cases (a GPU is needed).
    Meant for a candidate that has passed `verify_file` (given its `triton_cache`, what that
    compiled is not compiled again); the timed outputs are checked again."""
    operator = registry.get(prompts.real_id(op))
    code = read_source(path)
    platform = time_platform(device)
    seed = secrets.randbits(47) if seed is None else seed
    return judge(Request(operator.id, code, platform, seed, Plan(platform.sizes), 0, timing=config,
                         triton_cache=triton_cache),
                 Limits(perf_timeout_s=timeout_s, sandbox=confined("files", sandbox)))


def time_platform(device: str | None) -> Platform:
    platform = detect(device)
    if platform.name == "interpreter":
        raise UsageError("timing (--perf) needs a CUDA GPU; the Triton interpreter's times mean nothing")
    if not platform.profile.timeable:
        raise UsageError(f"timing (--perf) on {platform.name} is not implemented: the harness's event clock "
                         "is CUDA's (also ROCm's); judge without --perf")
    return platform


def platform_and_timing(device: str | None, perf: bool | None) -> tuple[Platform, bool]:
    """Timing is asked for, refused, or by default on exactly when the run is on a GPU: speed is
    half of a result, and the interpreter's times mean nothing."""
    if perf:
        return time_platform(device), True
    platform = detect(device)
    return platform, platform.profile.timeable if perf is None else False


def _tiers(tiers: list[str] | None, default: tuple[str, ...]) -> tuple[str, ...]:
    if not tiers:
        return default
    unknown = [t for t in tiers if t not in SIZES]
    if unknown:
        raise UsageError(f"unknown size tier {unknown[0]!r}: choose from {', '.join(SIZES)}")
    return tuple(tiers)


CAMPAIGN_DEFAULTS: dict[str, Any] = {"method": "reference", "db": "kgbench.db", "timeout": 300.0,
                                     "perf": None, "graph": False, "quick_timing": False, "executor": "local",
                                     "fail_fast": False, "copy_check": True, "sandbox": True}
EXECUTORS = ("local", "ray")


@contextmanager
def executor_for(kind: str, platform: Platform, workers: int | None = None,
                 address: str | None = None, timers: int | None = None) -> Iterator[Executor]:
    """The local pool, or a Ray cluster's tasks (`address`: the cluster's; default: RAY_ADDRESS or a
    new local cluster, shut down afterwards)."""
    if kind not in EXECUTORS:
        raise UsageError(f"unknown executor {kind!r}: use local or ray")
    if address is not None and kind != "ray":
        raise UsageError("--address is the Ray cluster's: it goes with --executor ray")
    if kind == "local":
        yield LocalPool(platform, workers, timers)
        return
    from .execute.cluster import RayExecutor

    try:
        ray_executor = RayExecutor(platform, address, workers, timers)
    except ExecutorError as e:
        raise UsageError(str(e)) from None
    with ray_executor:
        yield ray_executor


def run(method: str | None = None, *, config: str | Path | None = None, ops: list[str] | None = None,
        source: str | None = None, db: str | Path | None = None, device: str | None = None,
        name: str | None = None, fresh: bool = False, workers: int | None = None, timers: int | None = None,
        timeout_s: float | None = None, concurrency: int | None = None, perf: bool | None = None,
        graph: bool | None = None, tiers: list[str] | None = None, quick_timing: bool | None = None,
        executor: str | None = None, address: str | None = None, with_perturbed: bool | None = None,
        fail_fast: bool | None = None, sandbox: bool | None = None, copy_check: bool | None = None,
        on_outcome: Callable[[Outcome], None] | None = None,
        on_timing: Callable[[Any, Verdict], None] | None = None, **method_options: Any) -> CampaignResult:
    """Produce candidates with `method`, judge them, and store everything in `db`.

    `config` names a TOML file with the same options (see execute/config.py); arguments given
    here win over it. `method_options` go to the method (model, provider, samples, agent, ...);
    one the method does not take is refused. The method's own check (API key, reachable
    endpoint, agent command) runs before the store is opened, so a bad setup stores nothing.
    `perf` times every passing candidate afterwards (GPU only, and there the default; `graph`
    replays CUDA graphs; `quick_timing` takes fewer samples, for sweeps over many operators);
    `tiers` picks the correctness size tiers (default: all the platform affords). `executor` is
    `local` (default: sandboxed workers on this machine) or `ray` (Ray tasks on the cluster at
    `address`; see execute/cluster.py). `with_perturbed` adds the perturbed twins of the chosen
    operators (`suite/perturbed`), so the report can show the original-vs-twin gap. `fail_fast`
    stops judging a candidate at its first failing case: the same status, reason and failing case
    (the first failure decides them anyway), without the later cases' results, so a campaign of
    mostly failing candidates is judged faster. `sandbox=False` runs workers unconfined (see
    `confined`); the run records `sandbox: off`, and its reports say so.
    A candidate that copies a shipped solution is `hack_copied` without being judged, except the
    reference method's (`verify/copied.py`); `copy_check=False` judges copies too, for studies of
    the harness itself (the throughput benchmark's mixed set is built from the solutions).
    """
    try:
        file = load(config) if config is not None else {}
    except ConfigError as e:
        raise UsageError(str(e)) from None
    given = {"method": method, "ops": ops, "source": source, "db": db, "device": device, "name": name,
             "workers": workers, "timers": timers, "timeout": timeout_s, "concurrency": concurrency, "perf": perf,
             "graph": graph, "tiers": tiers, "quick_timing": quick_timing, "executor": executor, "address": address,
             "with_perturbed": with_perturbed, "fail_fast": fail_fast,
             "copy_check": copy_check, "sandbox": sandbox, **method_options}
    options = {**CAMPAIGN_DEFAULTS, **file, **{k: v for k, v in given.items() if v is not None}}
    campaign = {k: options.pop(k, None) for k in
                ("method", "ops", "source", "db", "device", "name", "workers", "timers", "timeout", "concurrency",
                 "prices", "perf", "graph", "tiers", "quick_timing", "executor", "address", "with_perturbed",
                 "fail_fast", "copy_check", "sandbox")}
    if campaign["source"] is not None and campaign["source"] not in ("aten", "vllm", "cublas"):
        raise UsageError(f"unknown source {campaign['source']!r}: use aten, vllm or cublas")
    if campaign["executor"] not in EXECUTORS:
        raise UsageError(f"unknown executor {campaign['executor']!r}: use local or ray")
    for count in ("workers", "timers"):
        if campaign[count] is not None and campaign[count] < 1:
            raise UsageError(f"--{count} must be at least 1, not {campaign[count]}")
    platform, campaign["perf"] = platform_and_timing(campaign["device"], campaign["perf"])
    if campaign["executor"] == "local":
        warm_up(platform)
    chosen = registry.select(campaign["ops"], campaign["source"])
    if not chosen:
        raise UsageError("no specified operator matches the selection")
    if campaign["with_perturbed"]:
        twins = [t for t in registry.twins_of(chosen) if t not in chosen]
        if not twins:
            raise UsageError("--with-perturbed: none of the chosen operators has a perturbed twin "
                             "(see `kgbench ops --perturbed`)")
        chosen = chosen + twins
    m = methods.create(campaign["method"], **options)
    boxed = confined(m.name, bool(campaign["sandbox"]))
    plan = Plan.on(platform, _tiers(campaign["tiers"], platform.sizes), fail_fast=bool(campaign["fail_fast"]))
    timing = None
    if campaign["perf"]:
        base = TimingConfig.quick() if campaign["quick_timing"] else TimingConfig()
        timing = replace(base, graph=bool(campaign["graph"]))
    m.check()
    concurrency = campaign["concurrency"] or m.schedule().concurrency
    extra = {"sandbox": SANDBOX_MODE if boxed else "off"}
    if campaign["prices"]:
        extra["prices"] = campaign["prices"]
    with executor_for(campaign["executor"], platform, campaign["workers"], campaign["address"],
                      campaign["timers"]) as pool, \
            Store(campaign["db"]) as store:
        return run_campaign(store, m, chosen, platform,
                            limits=Limits(timeout_s=float(campaign["timeout"]), sandbox=boxed),
                            name=campaign["name"], fresh=fresh, executor=pool, concurrency=concurrency,
                            extra_config=extra, check=False, on_outcome=on_outcome,
                            plan=plan, timing=timing, on_timing=on_timing, copy_check=bool(campaign["copy_check"]))


def rejudge(db: str | Path, run_ref: str, platform: str, *, name: str | None = None, ops: list[str] | None = None,
            workers: int | None = None, timeout_s: float = 300.0, perf: bool | None = None,
            quick_timing: bool = False, on_outcome: Callable[[Outcome], None] | None = None,
            on_timing: Callable[[Any, Verdict], None] | None = None, sandbox: bool = True) -> CampaignResult:
    """Judge a stored run's candidates again, unchanged, on `platform`, which must be this machine's,
    into a new run of the same store linked to the source (`config["rejudge_of"]`)."""
    from .methods.stored import StoredMethod

    here, timed = platform_and_timing(profile(platform).name, perf)
    if not Path(db).is_file():
        raise StoreError(f"no database at {db}")
    method = StoredMethod(db, run_ref)
    stored = method.ops()
    missing = [o for o in ops or [] if registry.get(o).id not in stored]
    if missing:
        raise UsageError(f"run {method.source.name} has no candidate for {', '.join(missing)}")
    chosen = registry.select(ops or stored)
    timing = (TimingConfig.quick() if quick_timing else TimingConfig()) if timed else None
    boxed = confined(method.source.method, sandbox)
    with executor_for("local", here, workers) as pool, Store(db) as store:
        return run_campaign(store, method, chosen, here, limits=Limits(timeout_s=timeout_s, sandbox=boxed),
                            extra_config={"sandbox": SANDBOX_MODE if boxed else "off"},
                            name=name or f"{method.source.name}@{here.name}", executor=pool, plan=Plan.on(here),
                            check=False, on_outcome=on_outcome, timing=timing, on_timing=on_timing)


def prompt(op: str, method: str = "llm", platform: str | None = None) -> str:
    """Exactly what a model (`llm`, `reflect`) or an agent (`agent`) is sent for `op`."""
    try:
        chosen = prompts.platform_named(platform or detect().name)
        return prompts.render(registry.get(op), method, chosen)
    except prompts.PromptError as e:
        raise UsageError(str(e)) from None


def report(db: str | Path, run_ref: str | list[str] | None = None, fmt: str = "md", view: str | None = None,
           reference: str | None = None) -> str:
    """One run's tables; with several runs, their matched-set comparison; with `view="MC"`, the
    multi-chip view of the given runs (default: every run in the store)."""
    from .report import FORMATS, render, render_comparison

    if view is not None:
        return _mc_report(db, run_ref, fmt, view, reference)

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use {', '.join(FORMATS)}")
    if not Path(db).is_file():
        raise StoreError(f"no database at {db} (run `kgbench run` first, or pass --db)")
    refs = run_ref if isinstance(run_ref, list) else [run_ref]
    with Store(db) as store:
        runs = []
        for ref in refs or [None]:
            found = store.find_run(ref)
            if found is None:
                raise UsageError(f"no run {ref!r} in {db}" if ref else f"{db} has no runs yet")
            runs.append(found)
        if len(runs) == 1:
            return render(runs[0], list(store.rows(runs[0].id)), fmt)
        return render_comparison([(r, list(store.rows(r.id))) for r in runs], fmt)


def report_html(db: str | Path, out: str | Path, run_refs: list[str] | None = None) -> Path:
    """The static HTML report of `run_refs` (default: every run in `db`) written into the folder
    `out`; returns the path of its index.html. Needs the `report` extra (plotly)."""
    try:
        from .report.html import build_site, collect
    except ImportError as e:
        raise UsageError(f"the HTML report needs {e.name}: pip install 'kernelgenbench[report]'") from None
    if not Path(db).is_file():
        raise StoreError(f"no database at {db} (run `kgbench run` first, or pass --db)")
    target = Path(out)
    if target.exists() and not target.is_dir():
        raise UsageError(f"--out {out} is a file; the HTML report is a folder")
    with Store(db) as store:
        runs = store.runs() if not run_refs else [store.find_run(ref) for ref in run_refs]
        missing = [ref for ref, run in zip(run_refs or [], runs) if run is None]
        if missing:
            raise UsageError(f"no run {missing[0]!r} in {db}")
        if not runs:
            raise UsageError(f"{db} has no runs yet")
        data = collect(store, runs)  # type: ignore[arg-type]
    return build_site(data, target, title=f"KernelGenBench: {', '.join(v.name for v in data.runs)}"
                      if len(data.runs) <= 3 else f"KernelGenBench: {len(data.runs)} runs")

def _mc_report(db: str | Path, run_ref: str | list[str] | None, fmt: str, view: str, reference: str | None) -> str:
    from .report.mc import mc_tables, render_mc

    if view != "MC":
        raise UsageError(f"unknown view {view!r}: use MC")
    if fmt not in ("md", "json"):
        raise UsageError(f"the MC view renders as md or json, not {fmt!r}")
    if reference is not None:
        profile(reference)
    if not Path(db).is_file():
        raise StoreError(f"no database at {db} (run `kgbench run` first, or pass --db)")
    refs = run_ref if isinstance(run_ref, list) else [run_ref] if run_ref else []
    with Store(db) as store:
        runs = [store.find_run(ref) for ref in refs] if refs else store.runs()
        if not runs:
            raise UsageError(f"{db} has no runs yet")
        missing = [ref for ref, run in zip(refs, runs) if run is None]
        if missing:
            raise UsageError(f"no run {missing[0]!r} in {db}")
        return render_mc(mc_tables([(r, [row for row in store.rows(r.id) if TWIN_MARK not in row.op])
                                    for r in runs if r is not None], reference), fmt)


def audit(ops: list[str] | None = None, *, device: str | None = None, seed: int | None = None,
          progress: Callable[[str], None] = lambda _: None) -> list[tuple[OperatorAudit, Verdict]]:
    """Null candidates against every case of each operator, next to the shipped solution's margin."""
    from .methods.files import candidate_path
    from .methods.reference import solutions_dir

    platform = detect(device)
    seed = secrets.randbits(47) if seed is None else seed
    results = []
    for op in registry.select(ops):
        progress(op.id)
        nulls = audit_operator(op, platform.device, platform.sizes, seed)
        solution = candidate_path(solutions_dir(), op.id)
        verdict = verify_file(solution, op.id, device=device, seed=seed)
        results.append((nulls, verdict))
    return results
