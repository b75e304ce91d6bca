"""`kgbench`: a thin command line over kernelgenbench.api. No logic of its own beyond presentation."""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Column, Table

from . import api
from .execute import Outcome
from .methods import MethodError
from .platforms import PlatformError
from .store import StoreError
from .suite import registry
from .suite.registry import UnknownOperator
from .suite.spec import COMPARE_MEANING, WORK_MEANING
from .verify.timing import CaseTiming, TimingConfig, operator_speedup
from .verify.verdict import Status, Verdict

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="KernelGenBench: judge LLM- and agent-generated Triton kernels.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

USER_ERRORS = (UnknownOperator, PlatformError, StoreError, MethodError, api.UsageError)


def _ops_list(ops: Optional[str]) -> list[str] | None:
    return [o for o in (ops or "").replace(" ", ",").split(",") if o] or None


@app.command()
def ops(source: Optional[str] = typer.Option(None, help="aten, vllm or cublas"),
        view: str = typer.Option("MS", help="MS (all 210) or MC (the 110 ATen operators)"),
        perturbed: bool = typer.Option(False, "--perturbed", help="list the perturbed twins (contamination "
                                       "probes) instead")) -> None:
    """List the suite's operators with their status (specified or not yet) and case counts."""
    if perturbed:
        _twins(source)
        return
    if view not in registry.VIEWS:
        raise api.UsageError(f"unknown view {view!r}: use MS or MC")
    if source is not None and source not in registry.VIEWS["MS"]:
        raise api.UsageError(f"unknown source {source!r}: use aten, vllm or cublas")
    sources = [s for s in registry.VIEWS[view] if source in (None, s)]
    table = Table("operator", "family", "status", "overloads", "cases small/large/perf (public)")
    totals: Counter[str] = Counter()
    for s in sources:
        for e in registry.entries(s):
            totals[s] += 1
            if not e.specified:
                table.add_row(e.id, "", "not yet", "", "")
                continue
            totals[s + ":spec"] += 1
            op = registry.get(e.id)
            sizes = Counter(c.size for c in op.cases)
            public = sum(c.visibility == "public" for c in op.cases)
            table.add_row(e.id, op.family, "specified", str(len(op.overloads)),
                          f"{sizes['small']}/{sizes['large']}/{sizes['perf']} ({public})")
    out.print(table)
    spec = sum(totals[s + ":spec"] for s in sources)
    parts = ", ".join(f"{s} {totals[s + ':spec']}/{totals[s]}" for s in sources)
    out.print(f"{spec} of {sum(totals[s] for s in sources)} operators specified ({parts}); view {view}")


def _twins(source: Optional[str]) -> None:
    if source is not None and source not in registry.VIEWS["MS"]:
        raise api.UsageError(f"unknown source {source!r}: use aten, vllm or cublas")
    # the twin's id names its original (ORIGINAL~tag); what changed takes the width left and wraps
    table = Table(Column("twin", no_wrap=True), Column("what changed", ratio=1, min_width=12),
                  Column("cases\nsmall/large/perf\n(public)", no_wrap=True))
    twins = registry.twins(source)
    for t in twins:
        sizes = Counter(c.size for c in t.cases)
        public = sum(c.visibility == "public" for c in t.cases)
        table.add_row(t.id, t.perturbation, f"{sizes['small']}/{sizes['large']}/{sizes['perf']} ({public})")
    out.print(table)
    counts = Counter(t.source for t in twins)
    per_source = ", ".join(f"{s} {counts[s]}" for s in registry.VIEWS["MS"] if counts[s])
    out.print(f"{len(twins)} perturbed twins ({per_source}); never counted in MS or MC", markup=False)


@app.command()
def show(op: str = typer.Argument(..., help="operator id, e.g. aten::softmax"),
         hidden: bool = typer.Option(False, help="also list hidden cases")) -> None:
    """Show an operator: what it computes, the functions a candidate must define, and its cases."""
    o = registry.get(op)
    out.print(f"[bold]{o.id}[/bold]  ({o.source}, family {o.family})")
    out.print(o.doc, markup=False)
    if o.notes:
        out.print(f"note: {o.notes}", markup=False)
    out.print("\n[bold]Functions a candidate defines[/bold]")
    for ov in o.overloads:
        out.print(f"  def {ov.func_name}  <-  {ov.signature}", markup=False)
        if ov.doc:
            out.print(f"      {ov.doc}", markup=False)
    t = o.tolerance
    out.print(f"\nwork: {o.work} ({WORK_MEANING[o.work]})", markup=False)
    out.print(f"judged on: {COMPARE_MEANING[o.compare]}", markup=False)
    if o.compare == "values" or o.compare == "values_and_strides":
        out.print(f"tolerance: error <= {t.k_rms:g}x native RMS error and {t.k_max:g}x native max error, "
                  f"plus {t.floor_ulps:g} ulp of the output's scale")
    out.print("\n[bold]Cases[/bold]")
    for size in ("small", "large", "perf"):
        cases = [c for c in o.cases if c.size == size]
        shown = [c for c in cases if hidden or c.visibility == "public"]
        out.print(f"  {size}: {len(cases)} cases ({sum(c.visibility == 'public' for c in cases)} public)")
        for c in shown:
            out.print(f"    {c.visibility}: {escape(c.name)}")


def _print_verdict(v: Verdict) -> None:
    colour = "green" if v.passed else "red"
    ratio = f"; worst error {v.worst_ratio:.3g} of tolerance" if v.worst_ratio is not None else ""
    out.print(f"{v.op}: [{colour}]{v.status.value.upper()}[/{colour}]: {escape(v.reason)}{ratio} "
              f"({v.platform}, seed {v.seed}, {v.seconds:.1f} s)")
    if v.failing_case:
        out.print(f"failing case: {escape(v.failing_case)}")
    for finding in v.extra.get("findings", [])[1:]:
        out.print(f"also: {finding}", markup=False)
    bad = [c for c in v.cases if c.status is not Status.PASS]
    if bad:
        table = Table("status", "case", "reason")
        for c in bad[:12]:
            table.add_row(c.status.value, escape(c.case), escape(c.reason))
        out.print(table)
        if len(bad) > 12:
            out.print(f"... and {len(bad) - 12} more failing cases")
    if v.traceback and not v.passed:
        out.print("\n".join(v.traceback.strip().splitlines()[-12:]), markup=False, style="dim")
    if v.log_tail and v.status in (Status.CRASH, Status.TIMEOUT):
        out.print("worker output (tail):\n" + v.log_tail, markup=False, style="dim")


def _print_timing(v: Verdict) -> None:
    timing = v.extra.get("timing", {})
    cases = [CaseTiming.from_dict(c) for c in timing.get("cases", [])]
    colour = "green" if v.passed else "red"
    out.print(f"timing: [{colour}]{v.status.value.upper()}[/{colour}]: {escape(v.reason)} ({v.seconds:.1f} s)")
    if not cases:
        return
    # a side's first sight: its fastest first call on contents it had never seen, which bounds what counts
    table = Table("case", "baseline (us)", "candidate (us)", "candidate first sight (us)", "speed-up (x)",
                  "candidate IQR (us)", "floor (us)", "flags")
    for c in cases:
        first = f"{min(c.candidate_first_us):.1f}" if c.candidate_first_us else ""
        table.add_row(escape(c.case), f"{c.baseline.median_us:.1f}", f"{c.candidate.median_us:.1f}", first,
                      f"{c.speedup:.3f}", f"{c.candidate.iqr_us:.1f}",
                      "" if c.floor_us is None else f"{c.floor_us:.1f}", escape(", ".join(c.flags)))
    out.print(table)
    clock = timing.get("clock", {})
    speedup = operator_speedup(v)
    figure = f"{speedup:.3f}x" if speedup is not None else "none (timing failed)"
    over = {"library": "the library kernel", "reference": "the torch reference (no library kernel importable)"}
    out.print(f"operator speed-up (geometric mean of {len(cases)} cases) over "
              f"{over.get(timing.get('baseline', ''), 'the native baseline')}: {figure}; {cases[0].mode} on "
              f"{clock.get('device', '?')}, L2 flushed with {clock.get('flush_bytes', 0) / 2**20:.0f} MiB")


@app.command()
def verify(file: Optional[str] = typer.Argument(None, help="candidate Python file"),
           op: Optional[str] = typer.Option(None, "--op", help="operator id, e.g. aten::softmax"),
           device: Optional[str] = typer.Option(None, help="cpu (Triton interpreter) or cuda; default: cuda if any"),
           as_json: bool = typer.Option(False, "--json", help="print the verdict as JSON"),
           public: bool = typer.Option(False, "--public", help="public cases only (what agents may iterate on)"),
           seed: Optional[int] = typer.Option(None, help="input seed (default: a fresh secret one)"),
           timeout: float = typer.Option(300.0, help="seconds before the candidate is a timeout"),
           fail_fast: bool = typer.Option(False, help="stop at the first failing case"),
           perf: bool = typer.Option(False, "--perf", help="after a pass, time the perf cases against the "
                                     "native baseline (GPU)"),
           graph: bool = typer.Option(False, "--graph", help="with --perf: replay CUDA graphs (for launch-bound "
                                      "operators)"),
           explain: bool = typer.Option(False, "--explain", help="print the rules host code is judged by "
                                        "(for --op's kind of work, if given) and exit"),
           no_sandbox: bool = typer.Option(False, "--no-sandbox", help="run candidates unconfined (their own "
                                           "namespaces, private files and no network are given up; "
                                           "recorded as sandbox: off)")) -> None:
    """Judge one candidate file. Exits 0 only on a clean pass (and, with --perf, clean timing)."""
    if explain:
        out.print(api.explain_rules(op), markup=False)
        return
    if file is None or op is None:
        raise api.UsageError("verify needs a candidate FILE and --op OP (or --explain)")
    if perf:
        api.time_platform(device)
    with tempfile.TemporaryDirectory(prefix="kgb-triton-") as cache:  # what verifying compiled, timing reuses
        v = api.verify_file(file, op, device=device, public_only=public, seed=seed, timeout_s=timeout,
                            fail_fast=fail_fast, triton_cache=cache, sandbox=not no_sandbox)
        timed = api.time_file(file, op, device=device, seed=v.seed, config=TimingConfig(graph=graph),
                              triton_cache=cache, sandbox=not no_sandbox) if perf and v.passed else None
    if as_json:
        print(json.dumps(v.to_dict() | ({"timing": timed.to_dict()} if timed else {}), indent=2))
    else:
        _print_verdict(v)
        if timed is not None:
            _print_timing(timed)
    raise typer.Exit(0 if v.passed and (timed is None or timed.passed) else 1)


@app.command()
def run(method: Optional[str] = typer.Option(None, help="reference (default), files, llm, reflect or agent"),
        config: Optional[str] = typer.Option(None, help="TOML file with these options as keys (flags win)"),
        dir: Optional[str] = typer.Option(None, help="with --method files: folder of SOURCE/NAME.py"),
        ops: Optional[str] = typer.Option(None, help="comma-separated operator ids (default: all specified)"),
        source: Optional[str] = typer.Option(None, help="only operators of this source"),
        db: Optional[str] = typer.Option(None, help="SQLite store (default: kgbench.db)"),
        device: Optional[str] = typer.Option(None, help="cpu or cuda; default: cuda if present"),
        name: Optional[str] = typer.Option(None, help="run name (default: derived from the configuration)"),
        fresh: bool = typer.Option(False, help="start a new run even if one with this name exists"),
        workers: Optional[int] = typer.Option(None, help="parallel sandboxed workers"),
        timers: Optional[int] = typer.Option(None, help="timing jobs at once per GPU, their measurements "
                                             "taking turns (default: 4)"),
        executor: Optional[str] = typer.Option(None, help="local (default) or ray: judge as Ray tasks on a cluster"),
        address: Optional[str] = typer.Option(None, help="with --executor ray: the cluster's address "
                                              "(default: RAY_ADDRESS, else a new local cluster)"),
        timeout: Optional[float] = typer.Option(None, help="seconds per candidate (default: 300)"),
        model: Optional[str] = typer.Option(None, help="llm/reflect: model name; agent: passed to the agent"),
        provider: Optional[str] = typer.Option(None, help="openai (any OpenAI-compatible endpoint) or anthropic"),
        base_url: Optional[str] = typer.Option(None, help="endpoint, e.g. http://localhost:8000/v1"),
        api_key_env: Optional[str] = typer.Option(None, help="variable holding the API key "
                                                  "(default: OPENAI_API_KEY / ANTHROPIC_API_KEY)"),
        temperature: Optional[float] = typer.Option(None, help="sampling temperature (default: the endpoint's)"),
        top_p: Optional[float] = typer.Option(None, help="nucleus sampling (default: the endpoint's)"),
        max_tokens: Optional[int] = typer.Option(None, help="reply limit in tokens (default: 16384)"),
        request_timeout: Optional[float] = typer.Option(None, help="seconds per request (default: 600)"),
        retries: Optional[int] = typer.Option(None, help="retries on 429/5xx/timeouts (default: 5)"),
        concurrency: Optional[int] = typer.Option(None, help="generations at once (default: 4; agents 1)"),
        samples: Optional[int] = typer.Option(None, help="pass@k: up to k samples, stopping at the first pass"),
        n: Optional[int] = typer.Option(None, "--n", help="n samples each, no early stop (unbiased pass@k)"),
        rounds: Optional[int] = typer.Option(None, help="reflect: rounds per sample (default: 3)"),
        agent: Optional[str] = typer.Option(None, help="agent: claude-code, codex, opencode, or a command "
                                            "with {prompt} or {task_file}"),
        budget: Optional[float] = typer.Option(None, help="agent: wall-clock seconds per operator "
                                               "(default: 1800)"),
        perf: Optional[bool] = typer.Option(None, "--perf/--no-perf", help="time every passing candidate against "
                                            "the native baseline afterwards (GPU only; default there)"),
        graph: Optional[bool] = typer.Option(None, "--graph", help="with --perf: replay CUDA graphs"),
        quick_timing: Optional[bool] = typer.Option(None, "--quick-timing", help="with --perf: 30 samples (or "
                                                    "0.3 s) a side per case, for sweeps over many operators"),
        tiers: Optional[str] = typer.Option(None, help="correctness size tiers, e.g. small,large (default: "
                                            "all the platform affords)"),
        with_perturbed: Optional[bool] = typer.Option(None, "--with-perturbed", help="also run the perturbed "
                                                      "twins of the chosen operators (the report shows the gap)"),
        no_copy_check: bool = typer.Option(False, "--no-copy-check", help="judge copies of the shipped "
                                           "solutions too, instead of calling them hack_copied unjudged (only "
                                           "to study the harness; recorded as copy_check: false)"),
        fail_fast: Optional[bool] = typer.Option(None, "--fail-fast", help="stop judging a candidate at its first "
                                                 "failing case (same verdict, fewer case results)"),
        no_sandbox: bool = typer.Option(False, "--no-sandbox", help="run candidates unconfined (their own "
                                           "namespaces, private files and no network are given up; "
                                           "recorded as sandbox: off)")
        ) -> None:
    """Run a campaign: produce candidates, judge each in a sandbox, store verdicts; resumable."""
    done = [0]

    def progress(o: Outcome) -> None:
        done[0] += 1
        colour = "green" if o.passed else "red"
        where = f" sample {o.attempt.sample}" if o.attempt.sample else ""
        where += f" round {o.attempt.round}" if o.attempt.round else ""
        figures = f" ({len(o.verdict.cases)} cases, {o.verdict.seconds:.1f} s)" if o.verdict else ""
        out.print(f"{done[0]:>3}. {o.attempt.op}{where}: [{colour}]{o.status}[/{colour}]{figures}"
                  f"{'' if o.passed else ': ' + escape(o.reason)}")

    def timed(attempt, v: Verdict) -> None:  # noqa: ANN001 - a store Attempt
        colour = "green" if v.passed else "red"
        speedup = operator_speedup(v)
        figure = f"{speedup:.3f}x over {len(v.cases)} perf cases" if speedup is not None else escape(v.reason)
        took = (f"sample {attempt.sample}: the same code as attempt {v.extra['same_code_as']}, timed once"
                if "same_code_as" in v.extra else f"{v.seconds:.1f} s")
        out.print(f"  timed {attempt.op}: [{colour}]{v.status.value}[/{colour}]: {figure} ({took})")

    result = api.run(method, config=config, dir=dir, ops=_ops_list(ops), source=source, db=db, device=device,
                     name=name, fresh=fresh, workers=workers, timers=timers, timeout_s=timeout, concurrency=concurrency,
                     model=model, provider=provider, base_url=base_url, api_key_env=api_key_env,
                     temperature=temperature, top_p=top_p, max_tokens=max_tokens, request_timeout=request_timeout,
                     retries=retries, samples=samples, n=n, rounds=rounds, agent=agent, budget=budget,
                     perf=perf, graph=graph, quick_timing=quick_timing, tiers=_ops_list(tiers),
                     executor=executor, address=address, with_perturbed=with_perturbed, fail_fast=fail_fast,
                     copy_check=False if no_copy_check else None,
                     sandbox=False if no_sandbox else None, on_outcome=progress, on_timing=timed)
    store_path = result.db
    if result.already_judged:
        out.print(f"resumed run {result.run.name}: {result.already_judged} of {result.total} attempts "
                  f"were already judged")
    sent = f", {result.generated} new generations" if result.generated else ""
    out.print(f"run {result.run.name} ({result.run.platform}): judged {result.judged}{sent}, stored in "
              f"{store_path}\n")
    out.print(api.report(store_path, result.run.name, "md").split("## By operator")[0].rstrip(), markup=False)


@app.command()
def rejudge(run: str = typer.Option(..., help="the stored run whose candidates are judged again"),
            platform: str = typer.Option(..., help="this machine's platform: cpu (interpreter), cuda, hip, ..."),
            name: Optional[str] = typer.Option(None, help="the new run's name (default: RUN@PLATFORM)"),
            ops: Optional[str] = typer.Option(None, help="comma-separated operator ids (default: all in RUN)"),
            db: str = typer.Option("kgbench.db", help="SQLite store holding RUN; the new run goes there too"),
            workers: Optional[int] = typer.Option(None, help="parallel sandboxed workers"),
            timeout: float = typer.Option(300.0, help="seconds per candidate"),
            perf: Optional[bool] = typer.Option(None, "--perf/--no-perf", help="time passing candidates (GPU only; "
                                                "default there)"),
            quick_timing: bool = typer.Option(False, "--quick-timing", help="with --perf: fewer samples"),
            no_sandbox: bool = typer.Option(False, "--no-sandbox", help="run candidates unconfined (their own "
                                           "namespaces, private files and no network are given up; "
                                           "recorded as sandbox: off)")) -> None:
    """Judge a stored run's candidates, unchanged, on this machine's platform, into a new linked run
    (the MC report's transfer matrix pairs the two)."""
    def progress(o: Outcome) -> None:
        colour = "green" if o.passed else "red"
        out.print(f"{o.attempt.op} sample {o.attempt.sample}: [{colour}]{o.status}[/{colour}]"
                  f"{'' if o.passed else ': ' + escape(o.reason)}")

    result = api.rejudge(db, run, platform, name=name, ops=_ops_list(ops), workers=workers, timeout_s=timeout,
                         perf=perf, quick_timing=quick_timing, on_outcome=progress, sandbox=not no_sandbox)
    out.print(f"run {result.run.name} ({result.run.platform}, rejudge of {run}): judged {result.judged}, "
              f"stored in {result.db}")


@app.command()
def prompt(op: str = typer.Argument(..., help="operator id, e.g. aten::softmax"),
           method: str = typer.Option("llm", help="llm (also reflect's first turn) or agent"),
           platform: Optional[str] = typer.Option(None, help="interpreter, cuda, hip, xpu, npu, musa or mlu "
                                                  "(default: this machine's)")) -> None:
    """Print exactly what a model or agent receives for OP (public cases only)."""
    print(api.prompt(op, method, platform), end="")


@app.command()
def report(runs: Optional[list[str]] = typer.Argument(None, metavar="[RUN]...",
                                                     help="run names or ids (default: the newest run)"),
           db: str = typer.Option("kgbench.db", help="SQLite store"),
           fmt: str = typer.Option("md", "--format", help="md, json, csv, or html (a static site; needs --out)"),
           out_dir: Optional[str] = typer.Option(None, "--out", help="with --format html: the site's folder"),
           run_list: Optional[str] = typer.Option(None, "--runs", help="comma-separated run names or ids (html "
                                                  "default: every run in the store)"),
           view: Optional[str] = typer.Option(None, help="MC: per-platform accuracy, transfer matrix and "
                                              "portability tax over the given runs (default: all)"),
           reference_platform: Optional[str] = typer.Option(None, help="with --view MC: the platform the "
                                                            "portability tax is relative to (default: cuda)")) -> None:
    """Render a run's results (per source, speed, per operator); several runs: a matched-set comparison.
    With --format html: a static site (leaderboard, plots, per-operator pages) in --out."""
    chosen = (runs or []) + (_ops_list(run_list) or [])
    if fmt == "html":
        if out_dir is None:
            raise api.UsageError("--format html writes a folder: give it with --out DIR")
        index = api.report_html(db, out_dir, chosen or None)
        out.print(f"wrote {index} (open it in a browser; the folder can be published as it is)", markup=False)
        return
    if out_dir is not None:
        raise api.UsageError("--out goes with --format html; md, json and csv print to standard output")
    text = api.report(db, chosen or None, fmt, view, reference_platform)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")  # a blank CSV row would be a row


@app.command()
def audit(ops: Optional[str] = typer.Option(None, help="comma-separated operator ids (default: all specified)"),
          device: Optional[str] = typer.Option(None, help="cpu or cuda; default: cuda if any"),
          seed: Optional[int] = typer.Option(None, help="input seed (default: a fresh secret one)")) -> None:
    """Prove the tolerance rejects null candidates on every case; show each solution's error margin.

    Exits 1 if a null candidate (zeros, uninitialised memory, an input copy, the reference's mean, the
    native op in lower precision) passes every case of an overload, or a shipped solution fails."""
    results = api.audit(_ops_list(ops), device=device, seed=seed,
                        progress=lambda op: err.print(f"auditing {op}", style="dim"))
    table = Table("cases", "solution", "margin (worst error / tolerance)", "null passes (degenerate cases)",
                  "nulls never failing")
    table.columns.insert(0, Column("operator", no_wrap=True))
    bad = False
    for nulls, verdict in results:
        margin = "" if verdict.worst_ratio is None else f"{verdict.worst_ratio:.3g}"
        holes = ", ".join(f"{ov}: {null}" for ov, null in nulls.holes)
        bad |= bool(nulls.holes) or not verdict.passed
        table.add_row(nulls.op, str(nulls.cases), verdict.status.value, margin, str(len(nulls.passes)),
                      holes or nulls.skipped or "none")
    out.print(table)
    for nulls, _ in results:
        for p in nulls.passes:
            out.print(f"{nulls.op}: {p.null} passes {p.case}", markup=False)
    out.print("audit " + ("FAILED" if bad else "passed") + f": {len(results)} operators")
    raise typer.Exit(1 if bad else 0)


def _click_errors() -> tuple[type[Exception], ...]:
    """Click's own errors (an unknown option or command, a bad value), from typer's copy of click
    (0.29 on) and from click itself: with click installed beside typer 0.29 (ray brings it), only
    click's was caught, and `kgbench report --run X` ended in a traceback."""
    import importlib

    found = []
    for module in ("typer._click.exceptions", "click.exceptions"):
        try:
            found.append(importlib.import_module(module).ClickException)
        except ImportError:
            continue
    return tuple(found)


def main() -> None:
    try:
        code = app(standalone_mode=False, prog_name="kgbench")
    except USER_ERRORS as e:
        err.print(f"error: {e}")
        sys.exit(2)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        err.print("aborted")
        sys.exit(130)
    except _click_errors() as e:
        ctx = getattr(e, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        err.print(escape(f"error: {e.format_message()}{hint}"))  # type: ignore[attr-defined]
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
