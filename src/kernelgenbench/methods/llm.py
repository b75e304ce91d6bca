"""Sampling candidates from a model: pass@1, pass@k with early stopping, or n samples for pass@k.

The code of a reply is its last complete fenced python block, after reasoning sections
(<think>...</think> and the like) are taken out. A reply without one is stored as a `no_code`
attempt with the reply kept, never as a crash.
"""

from __future__ import annotations

import re
from typing import Any

from .. import prompts
from ..store import NO_CODE, Exchange
from .base import Candidate, MethodError, Schedule, Task, register
from .providers import Message, Provider, Reply, Settings, create

_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.S | re.I)
_ORPHAN_CLOSE = re.compile(r"\A.*</(?:think|thinking|reasoning)>", re.S | re.I)
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.S | re.M)
_PYTHON_TAGS = {"python", "py", "python3"}


def strip_reasoning(text: str) -> str:
    """The reply without reasoning sections; an unclosed one runs to the end of the reply."""
    text = _REASONING.sub("", text)
    return _ORPHAN_CLOSE.sub("", text)  # servers that put the opening tag in the prompt


def extract_code(text: str) -> str | None:
    """The last complete ```python block (an untagged block when none is tagged), else None."""
    blocks = [(tag.lower(), body) for tag, body in _FENCE.findall(strip_reasoning(text))]
    tagged = [b for t, b in blocks if t in _PYTHON_TAGS]
    chosen = tagged or [b for t, b in blocks if not t]
    if not chosen or not chosen[-1].strip():
        return None
    return chosen[-1].rstrip() + "\n"


def no_code_reason(reply: Reply) -> str:
    if not reply.text.strip():
        reason = "the reply was empty"
    else:
        reason = "the reply has no complete ```python block"
    if reply.truncated:
        reason += f" (cut off at max_tokens: finish reason {reply.finish})"
    return reason


class LLMMethod:
    """One user turn with the rendered prompt; each sample is an independent request."""

    name = "llm"

    def __init__(self, model: str | None = None, provider: str = "openai", base_url: str | None = None,
                 api_key_env: str | None = None, temperature: float | None = None, top_p: float | None = None,
                 max_tokens: int = 16384, request_timeout: float = 600.0, retries: int = 5,
                 backoff: float = 2.0, samples: int | None = None, n: int | None = None):
        if not model:
            raise MethodError(f"--method {self.name} needs --model NAME (and --base-url URL for an endpoint "
                              f"other than the provider's own)")
        if samples is not None and n is not None:
            raise MethodError("--samples (pass@k with early stopping) and --n (all n samples) exclude each other")
        count = n if n is not None else samples if samples is not None else 1
        if count < 1 or max_tokens < 1 or retries < 0:
            raise MethodError("--samples/--n and --max-tokens must be at least 1, --retries at least 0")
        self.settings = Settings(model, base_url, api_key_env, temperature, top_p, max_tokens, request_timeout,
                                 retries, backoff)
        self.provider_name = provider
        self.samples = count
        self.early_stop = n is None
        self.provider: Provider = create(provider, self.settings)

    def config(self) -> dict[str, Any]:
        s = self.settings
        return {"provider": self.provider_name, "model": s.model, "base_url": s.base_url,
                "temperature": s.temperature, "top_p": s.top_p, "max_tokens": s.max_tokens}

    def schedule(self) -> Schedule:
        return Schedule(samples=self.samples, rounds=1, early_stop=self.early_stop)

    def check(self) -> None:
        self.provider.check()

    def messages(self, task: Task) -> list[Message]:
        return [{"role": "user", "content": prompts.render(task.op, self.name, task.platform)}]

    def generate(self, task: Task) -> Candidate:
        messages = self.messages(task)
        reply = self.provider.complete(messages)
        s = self.settings
        exchange = Exchange(
            request={"provider": self.provider_name, "model": s.model, "base_url": s.base_url,
                     "temperature": s.temperature, "top_p": s.top_p, "max_tokens": s.max_tokens,
                     "messages": messages},
            reply=reply.text, finish=reply.finish, tries=reply.tries, tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out, wall_s=reply.wall_s)
        code = extract_code(reply.text)
        origin = f"{self.provider_name}:{reply.model or s.model}"
        if code is None:
            return Candidate(task.op.id, None, origin, task.sample, task.round, s.model,
                             missing=no_code_reason(reply), missing_status=NO_CODE, exchange=exchange)
        return Candidate(task.op.id, code, origin, task.sample, task.round, s.model, exchange=exchange)


register("llm")(LLMMethod)
