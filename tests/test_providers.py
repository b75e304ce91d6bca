"""Providers: the real openai and anthropic SDKs against a loopback server with scripted replies."""

from __future__ import annotations

import socket

import pytest

from kernelgenbench import metrics
from kernelgenbench.execute.config import ConfigError, load
from kernelgenbench.methods.providers import ProviderError, Settings, create

from .loopback import code_reply, error, no_code, start, truncated

PROVIDERS = ["openai", "anthropic"]
ASK = "You are writing a Triton kernel that replaces the PyTorch ATen operator `aten::silu`."


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    state, httpd = start({"aten::silu": [error(429), code_reply("silu_good"), error(500), no_code(),
                                         truncated("silu_good")] + [error(503)] * 3}, lifetime_s=120)
    yield state
    httpd.shutdown()


def _provider(kind: str, state, **kw):
    url = state.openai_url if kind == "openai" else state.anthropic_url
    return create(kind, Settings("test-model", base_url=url, backoff_s=0.01, **kw))


@pytest.mark.parametrize("kind", PROVIDERS)
def test_scripted_replies_through_the_real_sdk(kind, server):
    p = _provider(kind, server, retries=2, temperature=0.2, top_p=0.9, max_tokens=1000)
    p.check()
    good = p.complete([{"role": "user", "content": ASK}])  # 429, then the kernel
    assert good.tries == 2 and "def silu_out" in good.text and not good.truncated
    assert good.tokens_in and good.tokens_in > 5 and good.tokens_out and good.tokens_out > 50
    plain = p.complete([{"role": "user", "content": ASK}])  # 500, then a reply without code
    assert plain.tries == 2 and "```" not in plain.text
    cut = p.complete([{"role": "user", "content": ASK}])
    assert cut.truncated and cut.tries == 1
    with pytest.raises(ProviderError, match=r"HTTP 503 \(gave up after 3 tries\)"):
        p.complete([{"role": "user", "content": ASK}])
    sent = server.generations("aten::silu")
    assert len(sent) == 8 and [r.status for r in sent[:3]] == [429, 200, 500]
    body = sent[1].body
    assert body["model"] == "test-model" and body["max_tokens"] == 1000
    assert body["temperature"] == 0.2 and body["top_p"] == 0.9 and body["messages"][0]["content"] == ASK


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("kind", PROVIDERS)
def test_unreachable_endpoint_and_missing_key_are_clear_errors(kind, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    url = f"http://127.0.0.1:{_free_port()}" + ("/v1" if kind == "openai" else "")
    p = create(kind, Settings("m", base_url=url, retries=0))
    with pytest.raises(ProviderError, match="cannot reach"):
        p.check()
    with pytest.raises(ProviderError, match="gave up after 1 tries"):
        p.complete([{"role": "user", "content": "hi"}])
    with pytest.raises(ProviderError, match="environment variable KGB_NO_SUCH_KEY is not set"):
        create(kind, Settings("m", base_url=url, api_key_env="KGB_NO_SUCH_KEY"))


def test_pass_at_k_estimator():
    assert metrics.pass_at_k(10, 0, 1) == 0.0
    assert metrics.pass_at_k(10, 10, 5) == 1.0
    assert metrics.pass_at_k(5, 1, 1) == pytest.approx(0.2)
    assert metrics.pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)
    assert metrics.pass_at_k(4, 1, 4) == 1.0
    with pytest.raises(ValueError):
        metrics.pass_at_k(2, 1, 3)


def test_config_file_is_checked(tmp_path):
    good = tmp_path / "c.toml"
    good.write_text('method = "llm"\nops = "silu, softmax"\nmodel = "m"\nsamples = 3\n'
                    '[prices."m"]\ninput = 1.5\noutput = 6\n')
    assert load(good) == {"method": "llm", "ops": ["silu", "softmax"], "model": "m", "samples": 3,
                          "prices": {"m": {"input": 1.5, "output": 6.0}}}
    for text, message in [('modle = "m"', "unknown key 'modle'"), ("samples = 'x'", "wrong type"),
                          ("samples = ", "not valid TOML"), ('[prices.m]\ninput = "a"', "takes numbers")]:
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        with pytest.raises(ConfigError, match=message):
            load(bad)
    with pytest.raises(ConfigError, match="no such file"):
        load(tmp_path / "none.toml")
