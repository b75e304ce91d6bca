"""The Python API the CLI is a thin layer over."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path

from . import methods
from .execute import CampaignResult, LocalPool, run_campaign
from .platforms import detect
from .sandbox import Limits, Request, judge
from .store import Attempt, Store, StoreError
from .suite import registry
from .verify.pipeline import Plan
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


def verify_file(path: str | Path, op: str, *, device: str | None = None, public_only: bool = False,
                seed: int | None = None, timeout_s: float = 300.0, fail_fast: bool = False) -> Verdict:
    """Judge one candidate file on every case of `op` the platform affords, in a sandboxed worker."""
    operator = registry.get(op)
    code = read_source(path)
    platform = detect(device)
    plan = Plan(platform.sizes, public_only=public_only, fail_fast=fail_fast)
    seed = secrets.randbits(47) if seed is None else seed
    return judge(Request(operator.id, code, platform, seed, plan, 0 if platform.name == "cuda" else None),
                 Limits(timeout_s=timeout_s))


def run(method: str, *, dir: str | None = None, ops: list[str] | None = None, source: str | None = None,
        db: str | Path = "kgbench.db", device: str | None = None, name: str | None = None,
        fresh: bool = False, workers: int | None = None, timeout_s: float = 300.0,
        on_verdict: Callable[[Attempt, Verdict], None] | None = None) -> CampaignResult:
    """Produce candidates with `method`, judge them, and store everything in `db`."""
    if source is not None and source not in ("aten", "vllm", "cublas"):
        raise UsageError(f"unknown source {source!r}: use aten, vllm or cublas")
    options = {"dir": dir} if method == "files" else {}
    if dir is not None and method != "files":
        raise UsageError("--dir is only for --method files")
    chosen = registry.select(ops, source)
    if not chosen:
        raise UsageError("no specified operator matches the selection")
    m = methods.create(method, **options)
    platform = detect(device)
    with Store(db) as store:
        return run_campaign(store, m, chosen, platform, limits=Limits(timeout_s=timeout_s), name=name,
                            fresh=fresh, executor=LocalPool(platform, workers), on_verdict=on_verdict)


def report(db: str | Path, run_ref: str | None = None, fmt: str = "md") -> str:
    from .report import FORMATS, render

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use {', '.join(FORMATS)}")
    if not Path(db).is_file():
        raise StoreError(f"no database at {db} (run `kgbench run` first, or pass --db)")
    with Store(db) as store:
        run_record = store.find_run(run_ref)
        if run_record is None:
            raise UsageError(f"no run {run_ref!r} in {db}" if run_ref else f"{db} has no runs yet")
        return render(run_record, list(store.rows(run_record.id)), fmt)
