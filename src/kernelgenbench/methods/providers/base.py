"""The provider protocol: send a conversation, get one reply with its token usage.

Retries are ours, not the SDK's (its own are turned off), so every try is counted and the
backoff is the same for every provider: exponential from `backoff_s`, or the server's
Retry-After when it sends one, on 429, 5xx, timeouts and dropped connections. Anything else
(a rejected key, an unknown model, a malformed request) ends the campaign with one line.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..base import MethodError

TRUNCATED = ("length", "max_tokens")


class ProviderError(MethodError):
    """The endpoint cannot serve the campaign (unreachable, key rejected, retries exhausted)."""


class Retryable(Exception):
    """A try that failed in a way worth trying again (429, 5xx, timeout, connection)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Settings:
    """Everything that shapes a request; stored with the run."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int = 16384
    timeout_s: float = 600.0
    retries: int = 5
    backoff_s: float = 2.0


@dataclass(frozen=True)
class Reply:
    text: str
    finish: str | None
    tokens_in: int | None
    tokens_out: int | None
    tries: int
    wall_s: float
    model: str | None = None

    @property
    def truncated(self) -> bool:
        return self.finish in TRUNCATED


Message = dict[str, str]  # {"role": "user" | "assistant", "content": text}


class Provider(Protocol):
    name: str
    settings: Settings

    def check(self) -> None:
        """Raise ProviderError unless the endpoint answers and accepts the key; costs no tokens."""
        ...

    def complete(self, messages: list[Message]) -> Reply: ...


def api_key(env: str, provider: str) -> str:
    value = os.environ.get(env)
    if not value:
        raise ProviderError(f"environment variable {env} is not set (the API key for provider {provider}; "
                            f"set it, or name another variable with --api-key-env)")
    return value


def with_retries(send: Callable[[], Reply], settings: Settings, where: str,
                 sleep: Callable[[float], None] = time.sleep) -> Reply:
    """Call `send` until it succeeds or `settings.retries` retries are spent; count the tries."""
    start = time.monotonic()
    for attempt in range(settings.retries + 1):
        try:
            reply = send()
        except Retryable as e:
            if attempt == settings.retries:
                raise ProviderError(f"{where}: {e} (gave up after {attempt + 1} tries)") from None
            delay = e.retry_after if e.retry_after is not None else settings.backoff_s * 2 ** attempt
            sleep(min(60.0, max(0.0, delay)) * (1 + 0.1 * random.random()))
            continue
        return Reply(reply.text, reply.finish, reply.tokens_in, reply.tokens_out, attempt + 1,
                     time.monotonic() - start, reply.model)
    raise AssertionError("unreachable")


def retry_after(headers: Any) -> float | None:
    try:
        value = headers.get("retry-after") if headers is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


_PROVIDERS: dict[str, Callable[[Settings], Provider]] = {}


def register(name: str) -> Callable[[Callable[[Settings], Provider]], Callable[[Settings], Provider]]:
    def deco(factory: Callable[[Settings], Provider]) -> Callable[[Settings], Provider]:
        _PROVIDERS[name] = factory
        return factory

    return deco


def create(name: str, settings: Settings) -> Provider:
    if name not in _PROVIDERS:
        raise MethodError(f"unknown provider {name!r}; available: {', '.join(sorted(_PROVIDERS))}")
    return _PROVIDERS[name](settings)


def available() -> list[str]:
    return sorted(_PROVIDERS)


def check_reachable(sdk: Any, client: Any, where: str, key_env: str, timeout_s: float) -> None:
    """List the models (no tokens spent): an unreachable endpoint or a refused key is a clear error.
    Both SDKs name their errors alike."""
    try:
        client.with_options(timeout=min(30.0, timeout_s)).models.list()
    except sdk.APIConnectionError as e:
        raise ProviderError(f"cannot reach {where}: {e.__cause__ or e}") from None
    except (sdk.AuthenticationError, sdk.PermissionDeniedError):
        raise ProviderError(f"{where} rejected the API key in {key_env}") from None
    except sdk.APIStatusError:
        pass  # reachable and the key was not refused; some servers do not list models


def request_params(settings: Settings, messages: list[Message]) -> dict[str, Any]:
    """The request both APIs share; sampling goes in the body, since SDK versions differ in which
    of temperature and top_p they take as arguments."""
    params: dict[str, Any] = {"model": settings.model, "messages": messages, "max_tokens": settings.max_tokens}
    sampling = {k: v for k, v in (("temperature", settings.temperature), ("top_p", settings.top_p)) if v is not None}
    if sampling:
        params["extra_body"] = sampling
    return params


def send(sdk: Any, where: str, model: str, create: Callable[..., Any], params: dict[str, Any]) -> Any:
    """One request, with both SDKs' errors mapped: no answer, 429 and 5xx are retryable, the rest final."""
    try:
        return create(**params)
    except (sdk.APITimeoutError, sdk.APIConnectionError) as e:
        raise Retryable(f"no answer ({type(e).__name__}: {e.__cause__ or e})") from None
    except sdk.APIStatusError as e:
        if e.status_code == 429 or e.status_code >= 500:
            raise Retryable(f"HTTP {e.status_code}", retry_after(e.response.headers)) from None
        raise ProviderError(f"{where} refused the request for model {model}: HTTP {e.status_code}: "
                            f"{e.message}") from None
