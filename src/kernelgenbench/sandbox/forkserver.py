"""Start-up paid once: a fork server that has imported torch, Triton and the harness, and forks one
fresh worker process per candidate.

A worker process per candidate stays the rule (its own session, environment, working directory,
limits and Triton cache; a crash or hang takes nothing else down); what is shared is only the
imports, which cost 1-2 s per worker on a CPU and ~9 s under gVisor. The server never runs a
candidate, touches a device or starts a thread pool, so what a child inherits is the state of a
fresh interpreter after its imports. Servers are keyed by the environment they were started with
(less the per-worker variables), so a changed environment gets a server of its own.

Protocol (one Unix-socket connection per worker): the parent sends a JSON request with the
worker's result pipe and log file as passed descriptors; the server forks, answers
`{"pid": N}`, and when the child exits, `{"status": S}` (a wait status), then closes.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from ..platforms.profiles import PROFILES

# Variables each worker sets for itself; the rest of the environment picks the server.
PER_WORKER = frozenset({"TRITON_CACHE_DIR", "HOME", "TMPDIR", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                        *(p.visible_devices for p in PROFILES.values() if p.visible_devices)})
# Set by torch itself, to the same default, in whichever process imports torch._dynamo: passed on, but
# not part of the key. On the H200 a server started ahead of the workers (`runner.warm_up`) was keyed
# without it, and the parent's set-up then set it: the workers waited for that start, then made their own.
UNKEYED = frozenset({"TORCHINDUCTOR_CACHE_DIR"})
MAX_SERVERS = 2  # environments kept warm at once; the least recently used server goes first
PRELOAD = ("torch", "triton", "kernelgenbench.sandbox.worker", "kernelgenbench.verify.pipeline",
           "kernelgenbench.suite.registry", "kernelgenbench.suite.aten", "kernelgenbench.suite.vllm",
           "kernelgenbench.suite.cublas")
# Imported by the first ATen operator a worker builds (torch._refs goes through torch._dynamo) and by
# Triton launches under a dispatch mode: about 1 s per worker on a CPU, 5.3 s per ATen timing worker on
# the H200. Kept only where a worker forked after them can still use the GPU, which a trial fork shows
# before the server serves (`_forked_child_computes`): on the H200 a server with these and a check that
# the CUDA driver library was not mapped refused to serve (benchmarks/results/README.md, session H).
PRELOAD_LAZY = ("torch._dynamo", "torch._higher_order_ops.triton_kernel_wrap", "triton.compiler.code_generator")
TRIAL_TIMEOUT_S = 120.0
STARTED_AT = "KGB_FORKSERVER_STARTED_AT"  # when the parent started the server (time.time())
# Set by a server whose trial fork failed when it starts itself again without the lazy preloads: the
# seconds that first start took, so its workers still report them
LAZY_REFUSED = "KGB_FORKSERVER_LAZY_REFUSED"
BOOT_S: dict[str, float] = {}  # in a server and the workers it forks: seconds of each part of its start
START_TIMEOUT_S = 180.0


class ForkServerError(Exception):
    """The server could not be started or reached; the caller spawns a plain process instead."""


@dataclass
class ForkedWorker:
    """A worker forked by the server: the pid to signal, and its exit status when it comes."""

    pid: int
    conn: socket.socket

    def wait(self, timeout: float | None = None) -> int | None:
        """The exit code as `subprocess` gives it (negative for a signal), or None when the server
        went away first; raises TimeoutExpired like Popen.wait."""
        self.conn.settimeout(timeout)
        data = b""
        try:
            while not data.endswith(b"\n"):
                chunk = self.conn.recv(4096)
                if not chunk:
                    return None
                data += chunk
        except TimeoutError:
            raise subprocess.TimeoutExpired("fork server worker", timeout or 0) from None
        finally:
            self.conn.settimeout(None)
        self.conn.close()
        return os.waitstatus_to_exitcode(json.loads(data)["status"])


class ForkServer:
    """The parent's handle on one server process."""

    def __init__(self, env: dict[str, str]):
        self._dir = tempfile.mkdtemp(prefix="kgb-fork-")
        self.path = os.path.join(self._dir, "server.sock")
        self.proc = subprocess.Popen([sys.executable, "-m", "kernelgenbench.sandbox.forkserver", self.path],
                                     env=env | {STARTED_AT: repr(time.time())}, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        _starting.add(self.proc)
        if _closing.is_set():  # the parent is exiting: so is a server it had begun to start
            self.proc.kill()
        try:
            ready, _, _ = select.select([self.proc.stdout], [], [], START_TIMEOUT_S)
            line = self.proc.stdout.readline() if ready else b""  # type: ignore[union-attr]
        finally:
            _starting.discard(self.proc)
        word, _, preloaded = line.strip().partition(b" ")
        if word != b"ready":
            self.close()
            raise ForkServerError("the fork server did not start")
        self.preloaded: tuple[str, ...] = tuple(json.loads(preloaded or b"[]"))  # what its workers find imported

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def spawn(self, request_path: str, result_fd: int, log_fd: int, cwd: str, env: dict[str, str]) -> ForkedWorker:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(self.path)
            payload = json.dumps({"request": request_path, "cwd": cwd, "env": env}).encode()
            socket.send_fds(conn, [len(payload).to_bytes(8, "big") + payload], [result_fd, log_fd])
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(4096)
                if not chunk:
                    raise ForkServerError("the fork server closed the connection before forking")
                data += chunk
        except OSError as e:
            conn.close()
            raise ForkServerError(f"fork server unreachable: {e}") from None
        return ForkedWorker(json.loads(data)["pid"], conn)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()
        shutil.rmtree(self._dir, ignore_errors=True)  # the server removes it too when its parent goes


_servers: dict[frozenset[tuple[str, str]], ForkServer] = {}  # in order of last use
_starting: set[subprocess.Popen] = set()  # servers not ready yet, which an exit must not wait for
_closing = threading.Event()
_unservable: set[frozenset[tuple[str, str]]] = set()  # environments whose server would not start
_starts: dict[frozenset[tuple[str, str]], threading.Lock] = {}  # one start at a time per environment
_lock = threading.Lock()


def enabled() -> bool:
    return os.environ.get("KGB_FORKSERVER", "1") != "0"


def server_for(env: dict[str, str]) -> ForkServer:
    """The running server for this environment, started on first use (and again if it died). One
    that would not start is not tried again: every worker would wait for that start in turn. A start
    keeps waiting only the workers of its own environment."""
    key = frozenset((k, v) for k, v in env.items() if k not in PER_WORKER | UNKEYED)
    with _lock:
        start = _starts.setdefault(key, threading.Lock())
    with start:
        with _lock:
            if key in _unservable:
                raise ForkServerError("the fork server for this environment did not start before")
            server = _servers.pop(key, None)
            if server is not None and server.alive:
                _servers[key] = server
                return server
        if server is not None:
            server.close()
        try:
            server = ForkServer({k: v for k, v in env.items() if k not in PER_WORKER})
        except ForkServerError:
            with _lock:
                _unservable.add(key)
            raise
        with _lock:
            while len(_servers) >= MAX_SERVERS:
                _servers.pop(next(iter(_servers))).close()
            _servers[key] = server
        return server


@atexit.register
def _shutdown() -> None:
    _closing.set()
    for proc in list(_starting):  # a start begun ahead of the first worker (`warm_up`) ends with the process
        proc.kill()
    with _lock:
        for server in _servers.values():
            server.close()
        _servers.clear()


# --- the server process ---------------------------------------------------------------------


def _child(request: dict, result_fd: int, log_fd: int, inherited: list[int]) -> None:
    """In the forked worker: become a fresh session with the worker's own environment, then judge."""
    code = 1
    try:
        for fd in inherited:
            os.close(fd)
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)  # stdin was the server's line to its parent
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        for fd in {devnull, log_fd} - {0, 1, 2}:
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        threads = request["env"].get("OMP_NUM_THREADS")
        if threads:
            import torch

            torch.set_num_threads(int(threads))
        from kernelgenbench.sandbox.worker import main

        code = main([request["request"], str(result_fd)])
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    head, fds, _, _ = socket.recv_fds(conn, 65536, 2)
    size = int.from_bytes(head[:8], "big")
    body = head[8:]
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise ConnectionError("request cut short")
        body += chunk
    return json.loads(body), fds


def _forked_child_computes() -> bool:
    """Whether a worker forked from this process now can still compute on the GPU."""
    pid = os.fork()
    if pid == 0:
        ok = False
        try:
            import torch

            from ..verify.device_gate import DeviceGate, gate_path

            with DeviceGate(gate_path("cuda"), idle=torch.cuda.synchronize).shared():  # never in a measurement
                ok = torch.ones(1, device="cuda").add(1).item() == 2
        finally:
            os._exit(0 if ok else 1)
    return _exit_code(pid, TRIAL_TIMEOUT_S) == 0


def _exit_code(pid: int, timeout_s: float) -> int:
    """The child's exit code; a child still running after `timeout_s` is killed and counts as failed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return 1


def serve(path: str) -> None:
    """Import, then serve. How long each part of the start took stays in BOOT_S, which every worker
    forked from here inherits and reports (on the H200 a run's workers waited 12-14 s for it)."""
    mark = time.time()

    def stage(name: str) -> None:
        nonlocal mark
        now = time.time()
        BOOT_S[name] = round(now - mark, 3)
        mark = now

    started = os.environ.get(STARTED_AT)
    if started:
        BOOT_S["python"] = round(mark - float(started), 3)  # the interpreter and this module's imports
    refused = os.environ.pop(LAZY_REFUSED, None)
    if refused:
        BOOT_S["lazy refused"] = float(refused)
    for name in PRELOAD:
        __import__(name)
    stage("preload")
    preloaded = list(PRELOAD)
    if not refused:
        # imported here once, then tried: a trial child that imported them itself (and the server
        # again after it) paid them twice, 4.7 s each on the H200
        for name in PRELOAD_LAZY:
            __import__(name)
        stage("lazy imports")
        if os.environ.get("TRITON_INTERPRET") != "1":  # interpreted workers never touch a GPU
            computes = _forked_child_computes()
            stage("trial fork")
            if not computes:  # what a worker would inherit cannot be undone: start again without them
                spent = repr(round(sum(BOOT_S.values()), 3))
                env = os.environ | {LAZY_REFUSED: spent, STARTED_AT: repr(time.time())}
                os.execve(sys.executable, [sys.executable, "-m", "kernelgenbench.sandbox.forkserver", path], env)
        preloaded += PRELOAD_LAZY
    import torch
    from triton.runtime.cache import triton_key

    triton_key()  # the hash of Triton's own sources, which every compiling worker needs: 0.73 s on the H200
    stage("triton key")

    if torch.cuda.is_initialized():  # a forked child could not use the device: never serve then
        return
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    children: dict[int, socket.socket] = {}
    sys.stdout.write(f"ready {json.dumps(preloaded)}\n")
    sys.stdout.flush()
    parent = sys.stdin.fileno()  # closes when the parent goes
    while True:
        ready, _, _ = select.select([listener, wake_r, parent], [], [])
        if parent in ready and not os.read(parent, 1):
            for pid in children:  # the campaign is gone: so is what it was judging
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            # and its folder, which a parent killed outright never removed (122 were left in /tmp)
            shutil.rmtree(os.path.dirname(path), ignore_errors=True)
            return
        if wake_r in ready:
            os.read(wake_r, 4096)
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(json.dumps({"status": status}).encode() + b"\n")
                except OSError:
                    pass
                conn.close()
        if listener in ready:
            conn, _ = listener.accept()
            try:
                request, fds = _receive(conn)
            except (OSError, ValueError, ConnectionError):
                conn.close()
                continue
            if len(fds) != 2:
                conn.close()
                for fd in fds:
                    os.close(fd)
                continue
            result_fd, log_fd = fds
            inherited = [listener.fileno(), wake_r, wake_w, conn.fileno(), *(c.fileno() for c in children.values())]
            pid = os.fork()
            if pid == 0:
                _child(request, result_fd, log_fd, inherited)
            os.close(result_fd)
            os.close(log_fd)
            children[pid] = conn
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")


if __name__ == "__main__":
    from kernelgenbench.sandbox import forkserver  # not __main__: the module whose BOOT_S workers read

    forkserver.serve(sys.argv[1])
