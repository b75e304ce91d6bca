"""Sampling and reflection end to end: the real SDKs, a loopback endpoint, the sandbox, the store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from kernelgenbench import api
from kernelgenbench.methods.llm import extract_code, strip_reasoning
from kernelgenbench.store import Store

from .loopback import code_reply, error, no_code, start, thinking_reply, truncated


def test_extract_code_takes_the_last_complete_python_block():
    two = "```python\nfirst = 1\n```\ntext\n```py\nsecond = 2\n```\n"
    assert extract_code(two) == "second = 2\n"
    assert extract_code("```\nuntagged = 1\n```") == "untagged = 1\n"
    assert extract_code("```python\ntagged = 1\n```\n```\nuntagged = 1\n```") == "tagged = 1\n"
    assert extract_code("<think>```python\nno = 1\n```</think>\n```python\nyes = 1\n```") == "yes = 1\n"
    assert extract_code("reasoning ```python\nno = 1\n``` done</think>no code after it") is None
    assert extract_code("<think>```python\nno = 1\n```\nstill thinking when cut off") is None
    assert extract_code("```python\ncut = 1\n") is None  # truncated: the block never closes
    assert extract_code("```python\n\n```") is None
    assert extract_code("no code at all") is None
    assert strip_reasoning("<thinking>a</thinking>b<reasoning>c</reasoning>d") == "bd"


def _kgbench(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelgenbench.cli", *args], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **env})


def _exchanges(db, run_id: int) -> dict[str, int]:
    with Store(db) as s:
        rows = s.db.execute("SELECT a.op, COUNT(*) FROM exchanges e JOIN attempts a ON a.id = e.attempt_id "
                            "WHERE a.run_id=? GROUP BY a.op", (run_id,)).fetchall()
    return dict(rows)


def test_llm_campaign_killed_and_resumed_sends_no_request_twice(tmp_path):
    state, httpd = start({
        "aten::silu": [error(429), code_reply("silu_good")],
        "aten::softmax": [code_reply("softmax_zeros"), no_code()],
        "aten::mean": [truncated("mean_zeros"), no_code()],
    })
    db = tmp_path / "k.db"
    config = tmp_path / "campaign.toml"
    config.write_text(f'method = "llm"\nprovider = "openai"\nmodel = "scripted-coder"\n'
                      f'base_url = "{state.openai_url}"\nsamples = 2\nbackoff = 0.01\n'
                      f'ops = ["silu", "softmax", "mean"]\n[prices."scripted-coder"]\ninput = 2.0\noutput = 8.0\n')
    env = {"OPENAI_API_KEY": "test-key"}
    args = ["run", "--config", str(config), "--db", str(db), "--device", "cpu", "--name", "llm-killed"]
    proc = subprocess.Popen([sys.executable, "-m", "kernelgenbench.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True, env={**os.environ, **env})
    deadline = time.time() + 180
    killed = False
    while time.time() < deadline and not killed:  # kill while judging, with every reply sent stored
        time.sleep(0.2)
        if not db.exists():
            continue
        with Store(db) as s:
            run = s.find_run("llm-killed")
            judged = s.counts(run.id)[1] if run else 0
        if judged < 1 or run is None:
            continue
        state.hold()  # no reply more: once those sent are stored, the kill
        answered = sum(1 for r in state.generations() if r.status == 200)
        if sum(_exchanges(db, run.id).values()) == answered:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
        else:
            state.held.clear()
    proc.wait()
    state.held.clear()
    assert killed, "the campaign never stored a verdict"
    with Store(db) as s:
        run = s.find_run("llm-killed")
        assert run.finished is None and s.counts(run.id)[1] < 5

    r = _kgbench(*args, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    with Store(db) as s:
        run = s.find_run("llm-killed")
        statuses = {(x.op, x.sample): x.status for x in s.rows(run.id)}
        assert run.finished is not None
    assert statuses == {("aten::silu", 0): "pass", ("aten::softmax", 0): "wrong_result",
                        ("aten::softmax", 1): "no_code", ("aten::mean", 0): "no_code",
                        ("aten::mean", 1): "no_code"}
    answered: dict[str, int] = {}
    for g in state.generations():
        if g.status == 200:
            answered[g.op] = answered.get(g.op, 0) + 1
    assert answered == _exchanges(db, run.id) == {"aten::silu": 1, "aten::softmax": 2, "aten::mean": 2}
    assert [g.status for g in state.generations("aten::silu")] == [429, 200]

    md = _kgbench("report", "--db", str(db), env=env).stdout
    assert "| aten | 3 | 5 | 1 | 33.3 | 33.3 [0.0, 100.0] | 33.3 [0.0, 100.0] |" in md and "no_code" in md
    assert "pass@2 (%) [95% CI]" in md
    assert "## Cost" in md
    data = json.loads(_kgbench("report", "--db", str(db), "--format", "json", env=env).stdout)
    cost = data["cost"][-1]
    assert data["by_source"][0]["pass_at_k"] == {"1": pytest.approx(1 / 3), "2": pytest.approx(1 / 3)}
    assert cost["generated"] == 5 and cost["unknown"] == 0 and cost["solved"] == 1
    assert cost["tokens_in"] > 1000 and cost["tokens_out"] > 50
    assert cost["tokens_per_solved"] == cost["tokens_in"] + cost["tokens_out"]
    assert cost["usd"] == pytest.approx((2.0 * cost["tokens_in"] + 8.0 * cost["tokens_out"]) / 1e6)
    with Store(db) as s:
        attempt = next(a for a in s.attempts(run.id) if a.op == "aten::mean" and a.sample == 0)
        ex = s.exchange(attempt.id)
        assert s.status(attempt.id) == ("no_code", "the reply has no complete ```python block "
                                                   "(cut off at max_tokens: finish reason length)")
    assert ex.finish == "length" and ex.request["messages"][0]["content"].startswith("You are writing")
    assert ex.reply.startswith("```python") and ex.tokens_in and ex.wall_s is not None
    httpd.shutdown()


def test_anthropic_n_samples_without_early_stopping(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    state, httpd = start({"aten::silu": [thinking_reply("silu_good"), truncated("silu_good")]})
    opts = dict(provider="anthropic", base_url=state.anthropic_url, model="claude-scripted", n=2,
                backoff=0.01, ops=["silu"], db=tmp_path / "k.db", device="cpu", name="n2")
    result = api.run("llm", **opts)
    assert (result.generated, result.judged, result.total) == (2, 2, 2)
    with Store(tmp_path / "k.db") as s:
        assert sorted(r.status for r in s.rows(result.run.id)) == ["no_code", "pass"]
    again = api.run("llm", **opts)
    assert (again.generated, again.judged, again.already_judged) == (0, 0, 2)
    assert len(state.generations()) == 2
    data = json.loads(api.report(tmp_path / "k.db", "n2", "json"))
    assert data["by_source"][0]["pass_at_k"] == {"1": 0.5, "2": 1.0}
    assert data["by_source"][0]["pass_at_k_ci95"]["2"] == [1.0, 1.0]  # one operator: a point
    httpd.shutdown()


def test_reflect_sends_each_verdict_back_until_a_pass(tmp_path):
    state, httpd = start({"aten::silu": [code_reply("silu_raises"), no_code(), code_reply("silu_good")]})
    db = tmp_path / "k.db"
    r = _kgbench("run", "--method", "reflect", "--rounds", "4", "--model", "scripted", "--base-url",
                 state.openai_url, "--ops", "silu", "--db", str(db), "--device", "cpu",
                 env={"OPENAI_API_KEY": "test-key"})
    assert r.returncode == 0, r.stdout + r.stderr
    with Store(db) as s:
        run = s.find_run()
        assert [(x.round, x.status) for x in s.rows(run.id)] == [(0, "runtime_error"), (1, "no_code"),
                                                                 (2, "pass")]
    sent = [g.body["messages"] for g in state.generations()]
    assert [len(m) for m in sent] == [1, 3, 5]
    assert [m["role"] for m in sent[2]] == ["user", "assistant", "user", "assistant", "user"]
    assert "def silu_out" in sent[1][1]["content"]
    first = sent[1][2]["content"]
    assert first.startswith("Your file was judged: runtime_error. ValueError: block size must be a power of two")
    assert "Failing case: silu: self=float32[]." in first and "Traceback" in first
    assert sent[2][4]["content"].startswith("Your file was judged: no_code.")
    md = api.report(db, None, "md")
    assert "| aten | 1 | 3 | 1 | 100.0 | 100.0 [100.0, 100.0] |" in md
    httpd.shutdown()


@pytest.mark.parametrize("args, message", [
    (["--method", "llm"], "--method llm needs --model"),
    (["--method", "llm", "--model", "m", "--api-key-env", "KGB_NO_SUCH_KEY"],
     "environment variable KGB_NO_SUCH_KEY is not set"),
    (["--method", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"], "cannot reach http://127.0.0.1:9/v1"),
    (["--method", "llm", "--model", "m", "--samples", "2", "--n", "2"], "exclude each other"),
    (["--method", "llm", "--model", "m", "--rounds", "2"], "--rounds does not apply to --method llm"),
    (["--method", "reference", "--model", "m"], "--model does not apply to --method reference"),
    (["--method", "llm", "--model", "m", "--provider", "gemini"], "unknown provider 'gemini'"),
    (["--method", "agent"], "--method agent needs --agent"),
    (["--method", "agent", "--agent", "kgb-no-such-agent {prompt}"], "agent command 'kgb-no-such-agent' not found"),
    (["--config", "/no/such/campaign.toml"], "no such file"),
])
def test_bad_generation_setups_are_one_line_and_store_nothing(tmp_path, args, message):
    db = tmp_path / "k.db"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env["OPENAI_API_KEY"] = "test-key"
    r = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "run", *args, "--ops", "silu", "--db", str(db),
                        "--device", "cpu"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr + r.stdout
    assert not db.exists()
