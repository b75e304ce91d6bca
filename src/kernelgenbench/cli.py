"""`kgbench`: a thin command line over kernelgenbench.api. No logic of its own beyond presentation."""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import api
from .methods import MethodError
from .platforms import PlatformError
from .store import StoreError
from .suite import registry
from .suite.registry import UnknownOperator
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
        view: str = typer.Option("MS", help="MS (all 210) or MC (the 110 ATen operators)")) -> None:
    """List the suite's operators with their status (specified or not yet) and case counts."""
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
    out.print(f"\ntolerance: error <= {t.k_rms:g}x native RMS error and {t.k_max:g}x native max error, "
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


@app.command()
def verify(file: str = typer.Argument(..., help="candidate Python file"),
           op: str = typer.Option(..., "--op", help="operator id, e.g. aten::softmax"),
           device: Optional[str] = typer.Option(None, help="cpu (Triton interpreter) or cuda; default: cuda if any"),
           as_json: bool = typer.Option(False, "--json", help="print the verdict as JSON"),
           public: bool = typer.Option(False, "--public", help="public cases only (what agents may iterate on)"),
           seed: Optional[int] = typer.Option(None, help="input seed (default: a fresh secret one)"),
           timeout: float = typer.Option(300.0, help="seconds before the candidate is a timeout"),
           fail_fast: bool = typer.Option(False, help="stop at the first failing case")) -> None:
    """Judge one candidate file. Exits 0 only on a clean pass."""
    v = api.verify_file(file, op, device=device, public_only=public, seed=seed, timeout_s=timeout,
                        fail_fast=fail_fast)
    if as_json:
        print(json.dumps(v.to_dict(), indent=2))
    else:
        _print_verdict(v)
    raise typer.Exit(0 if v.passed else 1)


@app.command()
def run(method: str = typer.Option("reference", help="reference (shipped solutions) or files"),
        dir: Optional[str] = typer.Option(None, help="with --method files: folder of SOURCE/NAME.py"),
        ops: Optional[str] = typer.Option(None, help="comma-separated operator ids (default: all specified)"),
        source: Optional[str] = typer.Option(None, help="only operators of this source"),
        db: str = typer.Option("kgbench.db", help="SQLite store"),
        device: Optional[str] = typer.Option(None, help="cpu or cuda; default: cuda if present"),
        name: Optional[str] = typer.Option(None, help="run name (default: derived from the configuration)"),
        fresh: bool = typer.Option(False, help="start a new run even if one with this name exists"),
        workers: Optional[int] = typer.Option(None, help="parallel sandboxed workers"),
        timeout: float = typer.Option(300.0, help="seconds per candidate")) -> None:
    """Run a campaign: produce candidates, judge each in a sandbox, store verdicts; resumable."""
    done = [0]

    def progress(attempt, v: Verdict) -> None:
        done[0] += 1
        colour = "green" if v.passed else "red"
        out.print(f"{done[0]:>3}. {attempt.op}: [{colour}]{v.status.value}[/{colour}] "
                  f"({len(v.cases)} cases, {v.seconds:.1f} s){'' if v.passed else ': ' + escape(v.reason)}")

    result = api.run(method, dir=dir, ops=_ops_list(ops), source=source, db=db, device=device, name=name,
                     fresh=fresh, workers=workers, timeout_s=timeout, on_verdict=progress)
    if result.already_judged:
        out.print(f"resumed run {result.run.name}: {result.already_judged} of {result.total} attempts "
                  f"were already judged")
    out.print(f"run {result.run.name} ({result.run.platform}): judged {result.judged}, stored in {db}\n")
    out.print(api.report(db, result.run.name, "md").split("## By operator")[0].rstrip())


@app.command()
def report(run_ref: Optional[str] = typer.Argument(None, metavar="RUN", help="run name or id (default: newest)"),
           db: str = typer.Option("kgbench.db", help="SQLite store"),
           fmt: str = typer.Option("md", "--format", help="md, json or csv")) -> None:
    """Render a run's results: per source (operators, clean passes, statuses) and per operator."""
    print(api.report(db, run_ref, fmt))


def main() -> None:
    try:
        code = app(standalone_mode=False)
    except USER_ERRORS as e:
        err.print(f"error: {e}")
        sys.exit(2)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        err.print("aborted")
        sys.exit(130)
    except Exception as e:  # click's own usage errors
        import click

        if isinstance(e, click.ClickException):
            e.show()
            sys.exit(e.exit_code)
        raise
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
