"""Agents: a scripted agent program stands in for a coding-agent CLI in a fresh workspace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelgenbench import api
from kernelgenbench.methods.agent import usage_codex, usage_opencode, usage_total
from kernelgenbench.store import Store

from .conftest import CANDIDATES

ROOT = Path(__file__).resolve().parents[1]
AGENT = Path(__file__).parent / "agents" / "scripted_agent.py"
COMMAND = f"{sys.executable} {AGENT} {{task_file}}"
GOOD = f"{COMMAND} {CANDIDATES / 'silu_good.py'}"  # the kernel it writes, named so the sandbox shows it


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


def test_agent_campaign_writes_verifies_and_is_judged_on_all_cases(tmp_path):
    db = tmp_path / "k.db"
    r = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "run", "--method", "agent", "--agent", GOOD,
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
    again = api.run(db=db, config=None, method="agent", agent=GOOD, ops=["silu"], device="cpu", name="agent")
    assert (again.generated, again.judged) == (0, 0)


def test_agent_past_its_budget_is_killed_with_its_children(tmp_path, monkeypatch):
    marker = f"kgb-agent-child-{tmp_path.name}"
    monkeypatch.setenv("KGB_AGENT_MODE", "hang")
    monkeypatch.setenv("KGB_AGENT_MARKER", marker)
    result = api.run("agent", agent=GOOD, budget=4, ops=["silu"], db=tmp_path / "k.db", device="cpu")
    with Store(tmp_path / "k.db") as s:
        (row,) = s.rows(result.run.id)
        ex = s.exchange(s.attempts(result.run.id)[0].id)
    assert row.status == "pass"  # what kernel.py held at the limit is judged
    assert ex.finish.startswith("budget of 4 s reached") and 4 <= row.wall_s < 30
    assert (row.tokens_in, row.tokens_out) == (None, None)  # it reported none: unknown, not zero
    assert not _running(marker), "the agent's child (a new session of its own) outlived the budget kill"
    md = api.report(tmp_path / "k.db", None, "md")
    assert "## Cost" in md and "| all | 1 | 0 | 0 | 1 |" in md


def test_agent_that_leaves_the_skeleton_is_no_code(tmp_path, monkeypatch):
    monkeypatch.setenv("KGB_AGENT_MODE", "silent")
    result = api.run("agent", agent=COMMAND, ops=["silu"], db=tmp_path / "k.db", device="cpu")
    with Store(tmp_path / "k.db") as s:
        (row,) = s.rows(result.run.id)
    assert row.status == "no_code" and row.reason == "the agent left kernel.py as given (exit 0)"
    assert (row.tokens_in, row.tokens_out) == (None, None) and row.wall_s > 0


def _running(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def test_a_peeking_agent_gets_nothing_of_the_project_and_is_judged_on_its_own(tmp_path, monkeypatch):
    """Inside its sandbox the agent finds neither the answer key, nor the store, nor the harness's
    source (to read or to edit); the kernel it wrote itself is judged, from the harness's own install."""
    from kernelgenbench.sandbox.confine import problem

    if problem() is not None:
        pytest.skip(f"no sandbox here: {problem()}")
    package = Path(api.__file__).parent
    db = tmp_path / "k.db"
    peek = [ROOT / "solutions" / "aten" / "silu.py", db, package / "verify" / "tolerance.py"]
    before = [p.read_bytes() if p.exists() else None for p in peek[2:]]
    monkeypatch.setenv("KGB_AGENT_MODE", "peek")
    monkeypatch.setenv("KGB_AGENT_PEEK", os.pathsep.join(map(str, peek)))
    result = api.run("agent", agent=GOOD, ops=["silu"], db=db, device="cpu")
    with Store(db) as s:
        (row,) = s.rows(result.run.id)
        reply = s.exchange(s.attempts(result.run.id)[0].id).reply
    for path in peek:
        assert f"peek refused {path}" in reply, reply
    assert "peek read" not in reply and "peek opened" not in reply
    assert [p.read_bytes() for p in peek[2:]] == before
    assert row.status == "pass" and "verify exited with 0" in reply
    unconfined = api.run("agent", agent=GOOD, ops=["silu"], db=tmp_path / "open.db", device="cpu", sandbox=False)
    with Store(tmp_path / "open.db") as s:  # the negative control: without the sandbox it reads them all
        reply = s.exchange(s.attempts(unconfined.run.id)[0].id).reply
    assert f"peek read {peek[0]}" in reply and f"peek read {peek[2]}" in reply, reply


def test_an_agent_that_pastes_a_shipped_solution_is_hack_copied(tmp_path):
    """The answer key, brought in from outside the sandbox (named on its command line here), is still
    the answer key: the copy check names it."""
    pasted = tmp_path / "found-online.py"
    pasted.write_text((ROOT / "solutions" / "aten" / "silu.py").read_text().replace("_silu_kernel", "my_kernel"))
    result = api.run("agent", agent=f"{COMMAND} {pasted}", ops=["silu"], db=tmp_path / "k.db", device="cpu")
    with Store(tmp_path / "k.db") as s:
        (row,) = s.rows(result.run.id)
        reply = s.exchange(s.attempts(result.run.id)[0].id).reply
    assert row.status == "hack_copied" and "solutions/aten/silu.py" in row.reason
    assert "verify exited with 1" in reply  # its own public verify already said so
