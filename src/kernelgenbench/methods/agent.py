"""Coding agents: an external agent CLI works on one operator in a fresh workspace.

The workspace holds TASK.md (the rendered agent prompt) and a skeleton kernel.py; `kgbench` on the
PATH is a client whose `verify` (public cases only) is judged outside (`agent_judge.py`). The agent
runs confined (`sandbox/confine.py`): its network is the host's (it needs its model's API), but of
the file system it sees its workspace (writable), a private home and /tmp, the toolchain read-only
(its own CLI's installation and the paths its command line names included), and nothing of the
project: not `solutions/`, not the store, not the harness's source, not other workspaces. It runs
under a wall-clock budget; at the limit its process group is killed, and its PID namespace with
everything it started. Whatever kernel.py then holds is the candidate, judged on every case by the
harness's own install. Token usage is read from the agent's own JSON output where it reports it
and is otherwise unknown (None), never estimated; wall time is always recorded.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import prompts
from ..sandbox import confine
from ..store import NO_CODE, Exchange
from .agent_judge import VerifyServer, install_client
from .base import Candidate, Interrupted, MethodError, Schedule, Task, register

REPLY_TAIL = 20000
PLACEHOLDERS = {"prompt", "task_file", "workspace", "op", "model"}


@dataclass(frozen=True)
class AgentTemplate:
    """A ready command for a known agent; `model_args` are added when a model is named."""

    command: str
    model_args: str
    usage: str


AGENTS: dict[str, AgentTemplate] = {
    "claude-code": AgentTemplate("claude -p {prompt} --output-format json --dangerously-skip-permissions",
                                 "--model {model}", "usage"),
    "codex": AgentTemplate("codex exec --json --full-auto --skip-git-repo-check {prompt}", "--model {model}",
                           "codex"),
    "opencode": AgentTemplate("opencode run --format json {prompt}", "--model {model}", "opencode"),
}
ALIASES = {"claude": "claude-code", "codex-cli": "codex"}
# What an agent's CLI reads beside what every worker may (`confine.allowed_env`): its model API's
# key and endpoint, its own settings, proxies. Everything else of the parent's stays out.
AGENT_ENV_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "OPENCODE_", "OPENROUTER_", "GEMINI_",
                      "GOOGLE_", "AZURE_OPENAI_", "NODE_", "NPM_CONFIG_")
AGENT_ENV_NAMES = frozenset({"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
                             "SSL_CERT_FILE", "SSL_CERT_DIR", "TERM"})


def _objects(stdout: str) -> list[dict[str, Any]]:
    """JSON objects in an agent's output: the whole of it, or one per line (JSON Lines)."""
    try:
        whole = json.loads(stdout)
        return [o for o in (whole if isinstance(whole, list) else [whole]) if isinstance(o, dict)]
    except ValueError:
        pass
    found = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                found.append(obj)
    return found


def _walk(obj: Any) -> Iterator[dict[str, Any]]:
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from _walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v)


def _int(d: dict[str, Any], *keys: str) -> int:
    return sum(int(d.get(k) or 0) for k in keys)


def usage_total(stdout: str) -> tuple[int, int] | None:
    """The last object's `usage` (Claude Code's result, or a plain {"usage": {...}} line)."""
    for obj in reversed(_objects(stdout)):
        u = obj.get("usage")
        if isinstance(u, dict) and "output_tokens" in u:
            return (_int(u, "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),
                    _int(u, "output_tokens"))
        if isinstance(u, dict) and "completion_tokens" in u:
            return _int(u, "prompt_tokens"), _int(u, "completion_tokens")
    return None


def usage_codex(stdout: str) -> tuple[int, int] | None:
    """Codex CLI `exec --json`: the sum over `turn.completed` events (input includes cached)."""
    turns = [o["usage"] for o in _objects(stdout) if o.get("type") == "turn.completed"
             and isinstance(o.get("usage"), dict)]
    if not turns:
        return None
    return sum(_int(u, "input_tokens") for u in turns), sum(_int(u, "output_tokens") for u in turns)


def usage_opencode(stdout: str) -> tuple[int, int] | None:
    """OpenCode `run --format json`: the sum over its steps' `tokens` records."""
    steps = [d["tokens"] for o in _objects(stdout) for d in _walk(o)
             if isinstance(d.get("tokens"), dict) and "input" in d["tokens"] and "output" in d["tokens"]]
    if not steps:
        return None
    tin = sum(_int(t, "input") + _int(t.get("cache") or {}, "read", "write") for t in steps)
    return tin, sum(_int(t, "output", "reasoning") for t in steps)


USAGE: dict[str, Callable[[str], tuple[int, int] | None]] = {
    "usage": usage_total, "codex": usage_codex, "opencode": usage_opencode}


def _kill_group(proc: subprocess.Popen, grace_s: float = 2.0) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            continue


def agent_env(bin_dir: Path, home: Path) -> dict[str, str]:
    env = confine.allowed_env(dict(os.environ))
    env.update({k: v for k, v in os.environ.items() if k.startswith(AGENT_ENV_PREFIXES) or k in AGENT_ENV_NAMES})
    env["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    env.update(HOME=str(home), TMPDIR=str(home), USER="agent", LOGNAME="agent")
    return env


def confinement(root: Path, work: Path, bin_dir: Path, argv: list[str], task: Task) -> confine.Confinement:
    """The agent's view: its workspace writable; read-only the toolchain, its CLI's installation, the
    paths its command line names (a script, a config file) and the `kgbench` client; its platform's
    devices; the network. The harness's package is emptied wherever the toolchain would show it."""
    named = tuple(os.path.abspath(a) for a in argv if os.path.isabs(a) and os.path.exists(a)
                  and not a.startswith(str(root)))
    package = str(Path(__file__).resolve().parents[1])
    read_only = confine.toolchain(network=True, programs=(argv[0],)) + named + (str(bin_dir),)
    return confine.Confinement(scratch=str(root / "home"), read_only=read_only, own=(str(work),),
                               devices=confine.device_nodes(task.platform.profile.device_nodes),
                               network=True, hidden=(package,), processes=4096)


def _tail(path: Path, limit: int) -> str:
    data = path.read_bytes() if path.exists() else b""
    return data[-limit:].decode("utf-8", errors="replace")


class AgentMethod:
    name = "agent"

    def __init__(self, agent: str | None = None, model: str | None = None, budget: float = 1800.0,
                 samples: int | None = None, n: int | None = None):
        if not agent:
            raise MethodError(f"--method agent needs --agent: one of {', '.join(AGENTS)}, or a command line "
                              f"with {{prompt}} or {{task_file}} in it")
        if samples is not None and n is not None:
            raise MethodError("--samples (pass@k with early stopping) and --n (all n samples) exclude each other")
        key = ALIASES.get(agent, agent)
        if key in AGENTS:
            t = AGENTS[key]
            self.agent, self.usage = key, t.usage
            self.template = t.command + (f" {t.model_args}" if model else "")
        else:
            self.agent, self.usage, self.template = "custom", "usage", agent
        try:
            self.argv = shlex.split(self.template)
            for part in self.argv:
                part.format(**{k: "" for k in PLACEHOLDERS})
        except (ValueError, KeyError, IndexError) as e:
            raise MethodError(f"--agent {agent!r} is not a usable command template ({e}); placeholders: "
                              f"{', '.join('{' + p + '}' for p in sorted(PLACEHOLDERS))}") from None
        if not self.argv:
            raise MethodError("--agent is an empty command")
        self.model = model
        self.budget_s = float(budget)
        self.samples = n if n is not None else samples if samples is not None else 1
        self.early_stop = n is None

    def config(self) -> dict[str, Any]:
        return {"agent": self.agent, "command": self.template, "model": self.model, "budget_s": self.budget_s}

    def schedule(self) -> Schedule:
        return Schedule(samples=self.samples, rounds=1, early_stop=self.early_stop, concurrency=1)

    def check(self) -> None:
        if shutil.which(self.argv[0]) is None:
            raise MethodError(f"agent command {self.argv[0]!r} not found (not on the PATH, or not executable)")

    def generate(self, task: Task) -> Candidate:
        root = Path(tempfile.mkdtemp(prefix=f"kgb-agent-{task.op.name}-"))
        try:
            return self._run(task, root)
        finally:
            if not os.environ.get("KGB_KEEP_WORKDIR"):
                shutil.rmtree(root, ignore_errors=True)

    def _run(self, task: Task, root: Path) -> Candidate:
        work, bin_dir, home = root / "work", root / "bin", root / "home"
        for folder in (work, bin_dir, home):
            folder.mkdir()
        text = prompts.render(task.op, "agent", task.platform)
        skeleton = prompts.skeleton(task.op)
        (work / "TASK.md").write_text(text)
        (work / "kernel.py").write_text(skeleton)
        install_client(bin_dir)
        values = {"prompt": text, "task_file": str(work / "TASK.md"), "workspace": str(work),
                  "op": prompts.shown_id(task.op), "model": self.model or ""}
        argv = [part.format(**values) for part in self.argv]
        env = agent_env(bin_dir, home)
        if task.sandbox:
            argv = confine.command(confinement(root, work, bin_dir, argv, task), argv, str(work))
        server = VerifyServer(bin_dir, task.op, task.platform, task.sandbox)
        try:
            return self._drive(task, root, work, argv, env, text, skeleton)
        finally:
            server.close()

    def _drive(self, task: Task, root: Path, work: Path, argv: list[str], env: dict[str, str], text: str,
               skeleton: str) -> Candidate:
        out_path, err_path = root / "stdout", root / "stderr"
        start = time.monotonic()
        over_budget = False
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                proc = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                        start_new_session=True)
            except OSError as e:
                raise MethodError(f"cannot start agent command {argv[0]!r}: {e.strerror}") from None
            try:
                while True:
                    try:
                        code = proc.wait(timeout=0.5)
                        break
                    except subprocess.TimeoutExpired:
                        if task.stop.is_set():
                            raise Interrupted from None
                        if time.monotonic() - start > self.budget_s:
                            over_budget = True
                            _kill_group(proc)
                            code = proc.wait()
                            break
            finally:
                _kill_group(proc)  # what the agent left running goes too
        wall = time.monotonic() - start
        stdout = out_path.read_text(errors="replace")
        usage = USAGE[self.usage](stdout)
        reply = _tail(out_path, REPLY_TAIL)
        stderr = _tail(err_path, 4000)
        if stderr.strip():
            reply += f"\n--- stderr (tail) ---\n{stderr}"
        finish = f"budget of {self.budget_s:g} s reached; process group killed" if over_budget else f"exit {code}"
        exchange = Exchange(request={"agent": self.agent, "command": self.template, "model": self.model,
                                     "budget_s": self.budget_s, "task": text},
                            reply=reply, finish=finish, tries=1, tokens_in=usage[0] if usage else None,
                            tokens_out=usage[1] if usage else None, wall_s=wall)
        kernel = work / "kernel.py"
        code_text = kernel.read_text(errors="replace") if kernel.is_file() else None
        origin = f"agent:{self.agent}"
        model = self.model or self.agent
        missing = None
        if code_text is None:
            missing = f"the agent left no kernel.py ({finish})"
        elif code_text == skeleton or not code_text.strip():
            missing = f"the agent left kernel.py {'empty' if not code_text.strip() else 'as given'} ({finish})"
        if missing:
            return Candidate(task.op.id, None, origin, task.sample, task.round, model, missing=missing,
                             missing_status=NO_CODE, exchange=exchange)
        return Candidate(task.op.id, code_text, origin, task.sample, task.round, model, exchange=exchange)


register("agent")(AgentMethod)
