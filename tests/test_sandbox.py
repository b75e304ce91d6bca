"""The worker's environment: no credentials, its own Triton cache, the platform's settings."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from kernelgenbench.platforms import INTERPRETER, Platform
from kernelgenbench.sandbox.runner import worker_env
from kernelgenbench.verify.verdict import Status


def test_worker_env_drops_credentials(monkeypatch, tmp_path):
    """An allow-list: a secret whose name no deny-list would guess (a DATABASE_URL) stays out too."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("HF_TOKEN", "hf-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    monkeypatch.setenv("DATABASE_URL", "postgres://u:pw-secret@db/x")
    env = worker_env(INTERPRETER, tmp_path, None)
    assert not {"OPENAI_API_KEY", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL"} & set(env)
    assert "sk-secret" not in "".join(env.values()) and "pw-secret" not in "".join(env.values())
    assert env["HOME"] == str(tmp_path) and env["TMPDIR"] == str(tmp_path)
    assert env["TRITON_INTERPRET"] == "1"
    assert Path(env["TRITON_CACHE_DIR"]).parent == tmp_path


def test_cuda_worker_is_pinned_to_its_device(tmp_path):
    cuda = Platform("cuda", "cuda", "CUDA", ("small", "large"), device_count=4)
    assert worker_env(cuda, tmp_path, 3)["CUDA_VISIBLE_DEVICES"] == "3"


def test_only_the_interpreter_platform_interprets(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    cuda = Platform("cuda", "cuda", "CUDA", ("small", "large"))
    assert "TRITON_INTERPRET" not in worker_env(cuda, tmp_path, 0)
    assert worker_env(INTERPRETER, tmp_path, None)["TRITON_INTERPRET"] == "1"


def test_workers_are_forked_from_one_server_that_is_replaced_when_it_dies(candidate, monkeypatch):
    """Imports are paid once per server, not per candidate; a dead server costs nothing but a restart,
    and a worker forked from it is judged exactly like one started from scratch."""
    from kernelgenbench import api
    from kernelgenbench.sandbox import forkserver

    def judge():
        return api.verify_file(candidate("silu_segfault"), "aten::silu", device="cpu", seed=3)

    def newest():
        return list(forkserver._servers.values())[-1]

    monkeypatch.setenv("KGB_FORKSERVER", "1")
    first = judge()
    server = newest()
    second = judge()
    assert newest() is server and server.alive
    server.proc.kill()
    server.proc.wait()
    third = judge()
    assert newest() is not server and newest().alive
    assert len(forkserver._servers) <= forkserver.MAX_SERVERS
    monkeypatch.setenv("KGB_FORKSERVER", "0")
    plain = judge()
    assert first.status is second.status is third.status is plain.status is Status.CRASH
    assert first.reason == third.reason == plain.reason and "SIGSEGV" in first.reason
    assert first.failing_case == plain.failing_case


def test_a_parent_killed_outright_leaves_no_fork_server_or_folder_behind(tmp_path):
    """A campaign killed with SIGKILL runs no clean-up: its server notices its line to the parent close,
    ends, and removes its own folder (122 such folders had piled up in /tmp)."""
    import signal

    script = ("import os, sys\nfrom kernelgenbench.sandbox import forkserver\n"
              "server = forkserver.server_for(dict(os.environ))\n"
              "print(server.proc.pid, os.path.dirname(server.path), flush=True)\nsys.stdin.read()\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    pid, folder = parent.stdout.readline().split()
    assert os.path.isdir(folder)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 30
    while (os.path.exists(folder) or os.path.exists(f"/proc/{pid}")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(folder) and not os.path.exists(f"/proc/{pid}")


def test_a_forked_worker_reports_what_the_servers_start_cost(candidate, monkeypatch):
    """The first workers of a run wait for the server's start (12-14 s on the H200): each verdict
    says what its parts took, so a run shows where that time goes."""
    from kernelgenbench import api

    monkeypatch.setenv("KGB_FORKSERVER", "1")
    boot = api.verify_file(candidate("silu_good"), "aten::silu", device="cpu", seed=3).extra["phases"]["server_boot_s"]
    assert set(boot) == {"python", "preload", "lazy imports", "triton key"}
    assert all(s >= 0 for s in boot.values()) and boot["preload"] > 0
    monkeypatch.setenv("KGB_FORKSERVER", "0")
    plain = api.verify_file(candidate("silu_good"), "aten::silu", device="cpu", seed=3).extra["phases"]
    assert "server_boot_s" not in plain


def test_a_worker_forked_from_the_servers_imports_can_still_compute_in_parallel():
    """A forked child inherits its parent's OpenMP pool: had the server's imports run one parallel
    torch op, every child would hang in its first one (seen here: a matmul before fork). Timing
    workers compute float64 truths on all cores, so the server's imports must never compute."""
    script = (
        "import os, sys, torch\n"
        "from kernelgenbench.sandbox import forkserver\n"
        "for name in forkserver.PRELOAD: __import__(name)\n"
        "from triton.runtime.cache import triton_key; triton_key()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    torch.set_num_threads(2)\n"
        "    a = torch.randn(800, 800, dtype=torch.float64); (a @ a).sum()\n"
        "    os._exit(0)\n"
        "sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_forked_worker_finds_torchs_lazy_imports_done(monkeypatch):
    """torch._dynamo, imported by the first ATen operator a worker builds and by Triton launches under
    a dispatch mode, cost every worker about 1 s here and 3-6 s on the H200: the server imports it.
    (The candidate looks at sys.modules, which L1 forbids, so this harness test turns L1 off.)"""
    from kernelgenbench.methods.files import candidate_path
    from kernelgenbench.methods.reference import solutions_dir
    from kernelgenbench.sandbox import Request, judge
    from kernelgenbench.verify.pipeline import Plan

    monkeypatch.setenv("KGB_FORKSERVER", "1")
    code = ("import sys\nif 'torch._dynamo' not in sys.modules:\n    raise ImportError('not preloaded')\n"
            + candidate_path(solutions_dir(), "aten::silu").read_text())
    verdict = judge(Request("aten::silu", code, INTERPRETER, 3, Plan(("small",), checks=("ghost", "trace"))))
    assert verdict.status is Status.PASS, verdict.reason


def test_a_runs_fork_server_starts_while_the_campaign_sets_up(tmp_path, monkeypatch):
    """On the H200 a run's first workers waited 10-15 s for the server's start, after a 12-s set-up
    (operators built, device probed) that it could have overlapped: it starts before that set-up now,
    so a worker started once the set-up is done finds the server ready. That set-up imports
    torch._dynamo, which sets TORCHINDUCTOR_CACHE_DIR: the workers must still take that server, not
    start a second one (which they did on the H200)."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    from kernelgenbench import api
    from kernelgenbench.sandbox import forkserver
    from kernelgenbench.suite import registry

    monkeypatch.setenv("KGB_FORKSERVER", "1")
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    monkeypatch.setattr(forkserver, "_servers", {})
    monkeypatch.setattr(forkserver, "_unservable", set())
    started = []

    class Counted(forkserver.ForkServer):
        def __init__(self, env):
            started.append(env)
            super().__init__(env)

    monkeypatch.setattr(forkserver, "ForkServer", Counted)
    select = registry.select

    def long_set_up(*args, **kwargs):  # as long as the H200's: until a server is ready, at most a minute
        deadline = time.monotonic() + 60
        while not forkserver._servers and time.monotonic() < deadline:
            time.sleep(0.05)
        cache_dir()  # what importing torch._dynamo does to the environment
        return select(*args, **kwargs)

    monkeypatch.setattr(registry, "select", long_set_up)
    outcomes = []
    try:
        api.run("reference", ops=["aten::silu"], db=tmp_path / "k.db", device="cpu", tiers=["small"],
                on_outcome=outcomes.append)
    finally:
        for server in forkserver._servers.values():
            server.close()
    phases = outcomes[0].verdict.extra["phases"]
    assert outcomes[0].passed
    assert len(started) == 1
    assert phases["startup_s"] < sum(phases["server_boot_s"].values()) / 2, phases


def test_a_server_that_would_not_start_is_not_started_again_for_every_worker(candidate, monkeypatch):
    """On the H200 a server that refused to serve was started again for each worker, one at a time
    under the servers' lock: every worker waited 10 s longer than the last. Workers then start plain."""
    from kernelgenbench import api
    from kernelgenbench.sandbox import forkserver

    starts = []

    class Refusing:
        def __init__(self, env):
            starts.append(env)
            raise forkserver.ForkServerError("the fork server did not start")

    monkeypatch.setenv("KGB_FORKSERVER", "1")
    monkeypatch.setattr(forkserver, "_servers", {})
    monkeypatch.setattr(forkserver, "_unservable", set())
    monkeypatch.setattr(forkserver, "ForkServer", Refusing)
    verdicts = [api.verify_file(candidate("silu_segfault"), "aten::silu", device="cpu", seed=3) for _ in range(2)]
    assert len(starts) == 1
    assert all(v.status is Status.CRASH and "SIGSEGV" in v.reason for v in verdicts)  # judged all the same


def test_gpu_workers_get_the_lazy_preloads_only_where_a_trial_fork_still_computes_on_the_gpu():
    """A server for GPU workers imports those modules, then forks a child that must compute on the
    GPU; here there is none, so the trial fails and the server starts again without them (the
    preload is kept for interpreted workers, which never touch a GPU)."""
    import torch

    from kernelgenbench.sandbox import forkserver

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    for environment, lazy in ((env, torch.cuda.is_available()), (env | {"TRITON_INTERPRET": "1"}, True)):
        server = forkserver.ForkServer(environment)
        try:
            assert server.preloaded == forkserver.PRELOAD + (forkserver.PRELOAD_LAZY if lazy else ())
        finally:
            server.close()


def test_without_a_sandbox_untrusted_candidates_are_refused_unless_the_user_gives_it_up(monkeypatch, tmp_path):
    """Where no worker can be confined, a run of candidates (not the shipped solutions) is one clear
    line and exit 2; --no-sandbox runs it, records `sandbox: off` and its report says so."""
    import pytest

    from kernelgenbench import api
    from kernelgenbench.sandbox import confine

    monkeypatch.setattr(confine, "problem", lambda: "no namespaces here (test)")
    with pytest.raises(api.UsageError, match="no namespaces here.*--no-sandbox"):
        api.confined("files")
    assert api.confined("reference") is False and api.confined("files", sandbox=False) is False
    r = subprocess.run([sys.executable, "-c", "import sys; from kernelgenbench.sandbox import confine; "
                        "confine.problem = lambda: 'no namespaces here (test)'; "
                        "from kernelgenbench.cli import main; "
                        "sys.argv = ['kgbench', 'verify', sys.argv[1], '--op', 'aten::silu', '--device', 'cpu']; "
                        "main()",
                        str(Path(__file__).parent / "candidates" / "silu_good.py")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "--no-sandbox" in r.stderr + r.stdout
    result = api.run("reference", ops=["silu"], db=tmp_path / "k.db", device="cpu", tiers=["small"], sandbox=False)
    assert result.run.config["sandbox"] == "off"
    assert "**Sandbox: off.**" in api.report(tmp_path / "k.db", result.run.name, "md")
