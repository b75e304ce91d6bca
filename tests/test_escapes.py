"""The escape corpus: real attempts to get out of a worker, each judged with L1 off, so the sandbox
alone stands between it and the machine. Each file's header:

    # escape: what it tries
    # op: aten::silu             the operator it pretends to implement
    # expect: hack_static        what L1 says of it (the first filter)
    # without-static: ...        the status it gets with L1 off, inside the sandbox

Placeholders (`@OUTSIDE@`, `@PORT@`, `@PARENT_PID@`, ...) are filled with the bait this test lays
out, as an attacker who guessed every path would. After the verdict, nothing outside may have
changed: the bait folder, the store, the sibling Triton cache, the loopback port, the judging
process (no signal), the process table (nothing left running), and no secret may be in the verdict.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kernelgenbench.platforms import INTERPRETER, detect
from kernelgenbench.sandbox import Limits, Request, judge
from kernelgenbench.sandbox.confine import problem
from kernelgenbench.sandbox.runner import PACKAGE_DIR
from kernelgenbench.verify.pipeline import Plan
from kernelgenbench.verify.static import scan
from kernelgenbench.verify.verdict import Status

from .corpus import header

ESCAPES = sorted((Path(__file__).parent / "escapes").glob("*.py"))
ANY_DEVICE = [p for p in ESCAPES if "device" not in header(p)]
SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"
SECRET = "the-bait-secret-7f3a"
ENV_SECRETS = {"DATABASE_URL": "postgres://judge:hunter2-db@db/kgb", "OPENAI_API_KEY": "sk-bait-0123456789"}
CACHE_CAP_MB = 64

pytestmark = pytest.mark.skipif(problem() is not None, reason=f"no sandbox on this machine: {problem()}")
# KGB_ESCAPE_DEVICE=cuda runs the corpus on the GPU platform: its workers see the GPU's device nodes
PLATFORM = detect(os.environ.get("KGB_ESCAPE_DEVICE", "cpu"))
DEVICE_INDEX = 0 if PLATFORM.profile.accelerated else None


@dataclass
class Bait:
    """What an escaped candidate would change or carry out, and the ways to tell that it did."""

    root: Path
    port: int = 0
    connections: list[bytes] = field(default_factory=list)
    signals: list[int] = field(default_factory=list)

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def store(self) -> Path:
        return self.outside / "store.db"

    @property
    def own_cache(self) -> Path:
        return self.root / "triton" / "own"

    @property
    def other_cache(self) -> Path:
        return self.root / "triton" / "other"

    def fill(self, source: str, port: int) -> str:
        marks = {"@OUTSIDE@": str(self.outside), "@PORT@": str(port), "@PARENT_PID@": str(os.getpid()),
                 "@STORE@": str(self.store), "@SOLUTIONS@": str(SOLUTIONS), "@PACKAGE@": PACKAGE_DIR,
                 "@OTHER_CACHE_NAME@": self.other_cache.name, "@MARKER@": f"kgb-escape-{self.root.name}",
                 "@HANDLE@": "None"}
        for mark, value in marks.items():
            source = source.replace(mark, value)
        return source

    def outside_files(self) -> set[str]:
        return {p.name for p in self.outside.iterdir()}


def _listen_tcp(bait: Bait, stop: threading.Event) -> tuple[socket.socket, threading.Thread]:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            conn.settimeout(2)
            try:
                bait.connections.append(conn.recv(1024) or b"(connected)")
            except OSError:
                bait.connections.append(b"(connected)")
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    return server, thread


@pytest.fixture
def bait(tmp_path, monkeypatch):
    b = Bait(tmp_path)
    b.outside.mkdir()
    (b.outside / "secret.txt").write_text(SECRET)
    with sqlite3.connect(b.store) as db:
        db.execute("create table runs (secret text)")
        db.execute("insert into runs values (?)", (SECRET,))
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(b.outside / "daemon.sock"))
    unix.listen(1)
    unix.setblocking(False)
    b.other_cache.mkdir(parents=True)
    b.own_cache.mkdir(parents=True)
    for name, value in ENV_SECRETS.items():
        monkeypatch.setenv(name, value)
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: b.signals.append(signum))
    stop = threading.Event()
    server, thread = _listen_tcp(b, stop)
    b.port = server.getsockname()[1]
    yield b
    stop.set()
    thread.join(timeout=2)
    server.close()
    try:
        unix.accept()
        b.connections.append(b"(unix socket)")
    except BlockingIOError:
        pass
    unix.close()
    signal.signal(signal.SIGUSR1, previous)


def _marked_processes(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(pid))
    return found


def _folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


@pytest.mark.parametrize("path", ESCAPES, ids=lambda p: p.stem)
def test_the_static_scan_refuses_every_escape(path):
    """L1 is the first filter: each escape is refused before it is imported."""
    h = header(path)
    code = Bait(Path("/nonexistent")).fill(path.read_text(), 9)
    assert h["expect"] == "hack_static" and scan(code), path.name


@pytest.mark.sweep
@pytest.mark.parametrize("path", ANY_DEVICE, ids=lambda p: p.stem)
def test_the_sandbox_alone_contains_every_escape(path, bait):
    h = header(path)
    code = bait.fill(path.read_text(), bait.port)
    before = bait.outside_files()
    plan = Plan(("small",), fail_fast=True, checks=("ghost", "trace", "profile"))
    request = Request(h["op"], code, PLATFORM, 7, plan, DEVICE_INDEX, triton_cache=str(bait.own_cache))
    v = judge(request, Limits(timeout_s=120, scratch_mb=256, triton_cache_mb=CACHE_CAP_MB))
    said = " ".join(str(x) for x in (v.reason, v.traceback, v.log_tail, v.to_dict()))
    assert v.status is Status(h["without-static"]), f"{v.status.value}: {v.reason}"
    assert bait.outside_files() == before, "a file was written outside the scratch folder"
    assert (bait.outside / "secret.txt").read_text() == SECRET
    with sqlite3.connect(bait.store) as db:
        assert db.execute("select secret from runs").fetchall() == [(SECRET,)], "the store was written"
    assert not list(bait.other_cache.iterdir()), "another candidate's Triton cache was written"
    assert _folder_mb(bait.own_cache) <= CACHE_CAP_MB, "the Triton cache outgrew its cap"
    assert not bait.connections, f"the host's loopback was reached: {bait.connections}"
    assert not bait.signals, "the judging process was signalled"
    assert not _marked_processes(f"kgb-escape-{bait.root.name}"), "a process was left running"
    for secret in (SECRET, *ENV_SECRETS.values(), "_silu_kernel"):  # the last: the answer key's kernel
        assert secret not in said, f"{secret!r} was carried out in the verdict"


UNCONFINED_HARMLESS = ("write_outside_open", "read_outside_secret", "read_parent_root", "connect_loopback",
                       "read_store_sqlite", "write_other_triton_cache")


@pytest.mark.parametrize("name", UNCONFINED_HARMLESS)
def test_without_the_sandbox_the_same_escapes_get_out(name, bait):
    """The negative control: these escapes (the ones safe to let out into a test's own bait) do get
    out of an unconfined worker, so the checks above can fail. (The environment's keys stay in
    either way: the allow-list of variables does not depend on the namespaces.)"""
    path = Path(__file__).parent / "escapes" / f"{name}.py"
    plan = Plan(("small",), fail_fast=True, checks=("ghost", "trace", "profile"))
    request = Request("aten::silu", bait.fill(path.read_text(), bait.port), INTERPRETER, 7, plan,
                      triton_cache=str(bait.own_cache))
    v = judge(request, Limits(timeout_s=120, sandbox=False))
    said = " ".join(str(x) for x in (v.reason, v.traceback, v.log_tail))
    with sqlite3.connect(bait.store) as db:
        stored = db.execute("select secret from runs").fetchall()
    got_out = (len(bait.outside_files()) > 3 or SECRET in said or any(s in said for s in ENV_SECRETS.values())
               or bool(bait.connections) or stored != [(SECRET,)] or bool(list(bait.other_cache.iterdir())))
    assert got_out, f"{name} stayed in without a sandbox: {v.status.value}: {v.reason}"


@pytest.mark.gpu
@pytest.mark.skipif(not PLATFORM.profile.accelerated, reason="needs KGB_ESCAPE_DEVICE=cuda and a GPU")
def test_a_cuda_ipc_handle_of_the_judge_opens_nothing(bait):
    """Device memory of another process (the judge's truths, another candidate's buffers) is reached
    through a CUDA IPC handle; a confined worker (own IPC and PID namespaces) must not open one."""
    import torch

    secret = torch.full((1024,), 7.3125, device="cuda")
    handle = secret.untyped_storage()._share_cuda_()
    code = (Path(__file__).parent / "escapes" / "gpu_ipc_handle.py").read_text().replace("@HANDLE@", repr(handle))
    plan = Plan(("small",), fail_fast=True, checks=("ghost", "trace", "profile"))
    v = judge(Request("aten::silu", code, PLATFORM, 7, plan, DEVICE_INDEX), Limits(timeout_s=120))
    said = " ".join(str(x) for x in (v.reason, v.traceback, v.log_tail))
    assert "7.3125" not in said, f"the judge's device memory was read: {v.reason}"
    assert v.status in (Status.RUNTIME_ERROR, Status.CRASH), f"{v.status.value}: {v.reason}"  # H200: "mapping of
    # buffer object failed", which leaves the context unusable: a crash
    unconfined = judge(Request("aten::silu", code, PLATFORM, 7, plan, DEVICE_INDEX),
                       Limits(timeout_s=120, sandbox=False))
    assert "7.3125" in unconfined.reason, f"the negative control read nothing either: {unconfined.reason}"
