"""Agents: a scripted agent program stands in for a coding-agent CLI in a fresh workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kernelgenbench import api
from kernelgenbench.methods.agent import usage_codex, usage_opencode, usage_total
from kernelgenbench.store import Store

from .conftest import CANDIDATES

AGENT = Path(__file__).parent / "agents" / "scripted_agent.py"
COMMAND = f"{sys.executable} {AGENT} {{task_file}}"


def test_usage_is_parsed_where_reported_and_never_guessed():
    claude = json.dumps({"type": "result", "result": "done", "usage": {
        "input_tokens": 10, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 7}})
    assert usage_total(claude) == (115, 7)
    assert usage_total('{"usage": {"prompt_tokens": 3, "completion_tokens": 4}}\n') == (3, 4)
    codex = "\n".join(json.dumps(e) for e in [
        {"type": "thread.started"}, {"type": "turn.completed", "usage": {"input_tokens": 50, "output_tokens": 5}},
        {"type": "turn.completed", "usage": {"input_tokens": 70, "cached_input_tokens": 60, "output_tokens": 9}}])
    assert usage_codex(codex) == (120, 14)
    opencode = "\n".join(json.dumps(e) for e in [
        {"type": "text", "part": {"text": "hi"}},
        {"type": "step_finish", "part": {"tokens": {"input": 20, "output": 3, "reasoning": 2,
                                                    "cache": {"read": 5, "write": 1}}}},
        {"type": "step_finish", "part": {"tokens": {"input": 10, "output": 1, "reasoning": 0, "cache": {}}}}])
    assert usage_opencode(opencode) == (36, 6)
    for parse in (usage_total, usage_codex, usage_opencode):
        assert parse("plain text output\nno json here\n") is None
        assert parse('{"type": "result", "result": "no usage"}') is None


def test_agent_campaign_writes_verifies_and_is_judged_on_all_cases(tmp_path, monkeypatch):
    monkeypatch.setenv("KGB_AGENT_KERNEL", str(CANDIDATES / "silu_good.py"))
    db = tmp_path / "k.db"
    r = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "run", "--method", "agent", "--agent", COMMAND,
                        "--ops", "silu", "--db", str(db), "--device", "cpu", "--name", "agent"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    with Store(db) as s:
        run = s.find_run("agent")
        (row,) = s.rows(run.id)
        (attempt,) = s.attempts(run.id)
        ex = s.exchange(attempt.id)
        verdict = s.verdict(attempt.id)
    assert row.status == "pass" and row.model == "custom"
    assert {c.visibility for c in verdict.cases} == {"public", "hidden"}  # judged on every case
    assert "verify exited with 0" in ex.reply  # the public-only verify in the workspace passed
    assert (row.tokens_in, row.tokens_out) == (2000, 340) and row.wall_s > 0
    assert ex.finish == "exit 0" and ex.request["task"].startswith("You are writing a Triton kernel")
    assert "kgbench verify kernel.py --op aten::silu --public --device cpu" in ex.request["task"]
    again = api.run(db=db, config=None, method="agent", agent=COMMAND, ops=["silu"], device="cpu", name="agent")
    assert (again.generated, again.judged) == (0, 0)


def test_agent_past_its_budget_is_killed_with_its_children(tmp_path, monkeypatch):
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("KGB_AGENT_KERNEL", str(CANDIDATES / "silu_good.py"))
    monkeypatch.setenv("KGB_AGENT_MODE", "hang")
    monkeypatch.setenv("KGB_AGENT_PIDFILE", str(pidfile))
    result = api.run("agent", agent=COMMAND, budget=4, ops=["silu"], db=tmp_path / "k.db", device="cpu")
    with Store(tmp_path / "k.db") as s:
        (row,) = s.rows(result.run.id)
        ex = s.exchange(s.attempts(result.run.id)[0].id)
    assert row.status == "pass"  # what kernel.py held at the limit is judged
    assert ex.finish.startswith("budget of 4 s reached") and 4 <= row.wall_s < 30
    assert (row.tokens_in, row.tokens_out) == (None, None)  # it reported none: unknown, not zero
    child = int(pidfile.read_text())
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]
    md = api.report(tmp_path / "k.db", None, "md")
    assert "## Cost" in md and "| all | 1 | 0 | 0 | 1 |" in md


def test_agent_that_leaves_the_skeleton_is_no_code(tmp_path, monkeypatch):
    monkeypatch.delenv("KGB_AGENT_KERNEL", raising=False)
    monkeypatch.setenv("KGB_AGENT_MODE", "silent")
    result = api.run("agent", agent=COMMAND, ops=["silu"], db=tmp_path / "k.db", device="cpu")
    with Store(tmp_path / "k.db") as s:
        (row,) = s.rows(result.run.id)
    assert row.status == "no_code" and row.reason == "the agent left kernel.py as given (exit 0)"
    assert (row.tokens_in, row.tokens_out) == (None, None) and row.wall_s > 0
