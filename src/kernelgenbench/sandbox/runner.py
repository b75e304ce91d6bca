"""Running one candidate in its own worker process and turning whatever happens into a verdict.

A segfault, `os._exit`, a hang, an exhausted memory limit or a dead CUDA context ends the worker,
never the campaign: the parent sees the pipe close or the deadline pass and records `crash` or
`timeout` with the case that was running.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Protocol

from ..platforms import Platform
from ..verify.device_gate import gate_dir
from ..verify.pipeline import Plan, first_failure
from ..verify.timing import TimingConfig
from ..verify.verdict import CaseResult, Status, Verdict
from . import confine, forkserver

PACKAGE_DIR = str(Path(__file__).resolve().parents[1])  # the harness's own package: all a worker imports of ours


@dataclass(frozen=True)
class Limits:
    """What one worker may take. `sandbox`: confine it (`confine.py`); off only where the caller
    decided so (`--no-sandbox`, or a reference run on a machine without namespaces)."""

    timeout_s: float = 300.0
    memory_gb: float | None = 16.0
    perf_timeout_s: float = 600.0
    sandbox: bool = True
    scratch_mb: int = 1024
    # Its own Triton cache is the one host folder a confined worker writes: past this it is stopped
    triton_cache_mb: int = 1024


@dataclass(frozen=True)
class Request:
    op_id: str
    code: str
    platform: Platform
    seed: int
    plan: Plan
    device_index: int | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    timing: TimingConfig | None = None  # set: time the perf cases instead of verifying
    # Where Triton keeps this candidate's compiled kernels; set per source text (never shared by two
    # different candidates), so its timing job reuses what its verification compiled.
    triton_cache: str | None = None


def worker_env(platform: Platform, workdir: Path, device_index: int | None,
               extra: dict[str, str] | None = None, triton_cache: str | None = None) -> dict[str, str]:
    """The variables a worker needs, by an allow-list (`confine.allowed_env`): nothing else of the
    parent's. Its home and temporary folder are its own folder."""
    env = confine.allowed_env(dict(os.environ))
    env.pop("TRITON_INTERPRET", None)
    env.update(platform.env)
    env["TRITON_CACHE_DIR"] = triton_cache or str(workdir / "triton-cache")
    env["KGB_GATE_DIR"] = str(gate_dir())
    env.update(HOME=str(workdir), TMPDIR=str(workdir), USER="kgb", LOGNAME="kgb")
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    pin = platform.profile.visible_devices
    if pin and device_index is not None:
        env[pin] = str(device_index)
    env.update(extra or {})
    return env


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _death_reason(code: int | None) -> str:
    if code is None:
        return "worker did not exit"
    if code < 0:
        try:
            return f"worker killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"worker killed by signal {-code}"
    return f"worker exited with code {code} before a verdict"


def confinement(request: Request, limits: Limits, workdir: Path, env: dict[str, str]) -> confine.Confinement:
    """The worker's view: the toolchain read-only, its folder private, its Triton cache its own, the
    device gate's folder shared, and its platform's device nodes."""
    profile = request.platform.profile
    own = (request.triton_cache,) if request.triton_cache else ()
    allowed = limits.timeout_s if request.timing is None else limits.perf_timeout_s
    return confine.Confinement(
        scratch=str(workdir), copy_in=("candidate.py",), read_only=confine.toolchain(PACKAGE_DIR), own=own,
        shared=(env["KGB_GATE_DIR"],),
        devices=confine.device_nodes(profile.device_nodes), scratch_mb=limits.scratch_mb,
        cpu_s=int(allowed * 8) + 60)


def judge(request: Request, limits: Limits = Limits(),
          on_event: Callable[[dict], None] | None = None) -> Verdict:
    workdir = Path(tempfile.mkdtemp(prefix="kgb-"))
    try:
        return _judge_in(workdir, request, limits, on_event)
    finally:
        if not os.environ.get("KGB_KEEP_WORKDIR"):
            shutil.rmtree(workdir, ignore_errors=True)


def _judge_in(workdir: Path, request: Request, limits: Limits,
              on_event: Callable[[dict], None] | None) -> Verdict:
    start = time.monotonic()
    candidate = workdir / "candidate.py"
    candidate.write_text(request.code)
    memory = int(limits.memory_gb * 2**30) if (limits.memory_gb and not request.platform.profile.accelerated) else None
    req_path = workdir / "request.json"
    env = worker_env(request.platform, workdir, request.device_index, request.extra_env, request.triton_cache)
    req_path.write_text(json.dumps({
        "op": request.op_id, "candidate": str(candidate), "device": request.platform.device,
        "platform": request.platform.name, "seed": request.seed, "sizes": list(request.plan.sizes),
        "public_only": request.plan.public_only, "fail_fast": request.plan.fail_fast,
        "checks": list(request.plan.checks), "unsupported_dtypes": list(request.plan.unsupported_dtypes),
        "memory_limit_bytes": memory,
        "timing": None if request.timing is None else asdict(request.timing),
        "spawned_at": time.time(),
        "confinement": confinement(request, limits, workdir, env).to_dict() if limits.sandbox else None,
    }))
    log = workdir / "worker.log"
    read_fd, write_fd = os.pipe()
    with open(log, "wb") as log_file:
        proc = _spawn(req_path, write_fd, log_file.fileno(), workdir, env)
    os.close(write_fd)
    results: list[CaseResult] = []
    current: dict | None = None
    final: dict | None = None
    buffer = b""
    allowed = limits.timeout_s if request.timing is None else limits.perf_timeout_s
    deadline = start + allowed
    timed_out = False
    overgrown: float | None = None
    watched = Path(request.triton_cache) if request.triton_cache and limits.sandbox else None
    with os.fdopen(read_fd, "rb", buffering=0) as channel:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            if watched is not None:
                overgrown = _over_cap(watched, limits.triton_cache_mb)
                if overgrown is not None:
                    break
            ready, _, _ = select.select([channel], [], [], min(remaining, 0.5))
            if not ready:
                continue
            chunk = channel.read(65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                event = json.loads(line)
                if on_event:
                    on_event(event)
                kind = event.pop("event")
                if kind == "case_start":
                    current = event
                elif kind == "case_done":
                    results.append(CaseResult.from_dict(event))
                    current = None
                elif kind in ("verdict", "infra_error"):
                    final = {"kind": kind, **event}
    if timed_out or overgrown is not None:
        _kill(proc)
    code = _reap(proc)
    _kill(proc)  # whatever the candidate left running in the worker's session goes too
    elapsed = time.monotonic() - start

    def verdict(status: Status, reason: str, **kw) -> Verdict:
        if current is not None:
            results.append(CaseResult(current["case"], current["overload"], current["visibility"], status, reason))
        first = first_failure(results)
        if first is not None and first is not results[-1]:
            status, reason, kw["failing_case"] = first.status, f"{first.reason} (then: {reason})", first.case
        return Verdict(op=request.op_id, status=status, reason=reason, seed=request.seed,
                       platform=request.platform.name, seconds=elapsed, cases=tuple(results), **kw)

    if final is not None and final["kind"] == "verdict":
        v = Verdict.from_dict(final)
        log_tail = None if v.status is Status.PASS else (_tail(log) or None)
        return replace(v, seconds=elapsed, log_tail=log_tail)
    if final is not None:
        return verdict(Status.INFRA_ERROR, f"harness error in the worker: {final['reason']}",
                       traceback=final.get("traceback"), layer="harness")
    running = current["case"] if current else None
    if overgrown is not None:
        shutil.rmtree(watched, ignore_errors=True)  # type: ignore[arg-type]
        return verdict(Status.HACK_SANDBOX, f"wrote {overgrown:.0f} MiB into its Triton cache, the one host folder "
                       f"it may write (at most {limits.triton_cache_mb} MiB): stopped, and the folder removed",
                       failing_case=running, layer="sandbox")
    if timed_out:
        where = f" while running case {running!r}" if running else ""
        return verdict(Status.TIMEOUT, f"no verdict within {allowed:g} s{where}",
                       failing_case=running, log_tail=_tail(log) or None, layer="sandbox")
    where = f" during case {running!r}" if running else " before any case ran"
    return verdict(Status.CRASH, f"{_death_reason(code)}{where}", failing_case=running,
                   log_tail=_tail(log) or None, layer="sandbox")


def _over_cap(folder: Path, cap_mb: int) -> float | None:
    """The folder's size in MiB where it is over `cap_mb`, else None."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total / 2**20 if total > cap_mb << 20 else None


class WorkerProcess(Protocol):
    pid: int

    def wait(self, timeout: float | None = None) -> int | None: ...


def _spawn(request_path: Path, result_fd: int, log_fd: int, workdir: Path, env: dict[str, str]) -> WorkerProcess:
    """A fresh worker process for one candidate: forked from a server that has done the imports
    already, or started from scratch where there is none (KGB_FORKSERVER=0, or it failed)."""
    if forkserver.enabled():
        try:
            return forkserver.server_for(env).spawn(str(request_path), result_fd, log_fd, str(workdir), env)
        except forkserver.ForkServerError:
            pass
    return subprocess.Popen(
        [sys.executable, "-m", "kernelgenbench.sandbox.worker", str(request_path), str(result_fd)],
        cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=log_fd, stderr=log_fd,
        pass_fds=(result_fd,), start_new_session=True,
    )


def warm_up(platform: Platform) -> None:
    """Start the fork server for `platform`'s workers now, in the background: its imports then overlap
    the campaign's own set-up (building the operators, probing the device, opening the store: about
    12 s on the H200) instead of keeping the first workers waiting 10-15 s."""
    if not forkserver.enabled():
        return
    env = worker_env(platform, Path(tempfile.gettempdir()), None)

    def start() -> None:
        try:
            forkserver.server_for(env)
        except forkserver.ForkServerError:
            pass  # the first worker finds it unservable and starts plain

    threading.Thread(target=start, name="kgb-forkserver-warm-up", daemon=True).start()


def _kill(proc: WorkerProcess) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(proc: WorkerProcess) -> int | None:
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        _kill(proc)
        return proc.wait()
