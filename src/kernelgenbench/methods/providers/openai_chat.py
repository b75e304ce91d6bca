"""OpenAI-compatible chat completions through the `openai` SDK (OpenAI, vLLM, SGLang, DeepSeek, ...)."""

from __future__ import annotations

from typing import Any

from .base import (
    Message,
    ProviderError,
    Reply,
    Retryable,
    Settings,
    api_key,
    check_reachable,
    register,
    retry_after,
    with_retries,
)


class OpenAIChat:
    name = "openai"

    def __init__(self, settings: Settings):
        try:
            import openai
        except ImportError:
            raise ProviderError("provider openai needs the openai package: pip install openai") from None
        self.settings = settings
        self.sdk = openai
        self.where = settings.base_url or "https://api.openai.com/v1"
        self.client = openai.OpenAI(api_key=api_key(settings.api_key_env or "OPENAI_API_KEY", self.name),
                                    base_url=settings.base_url, timeout=settings.timeout_s, max_retries=0)

    def check(self) -> None:
        check_reachable(self.sdk, self.client, self.where, self.settings.api_key_env or "OPENAI_API_KEY",
                        self.settings.timeout_s)

    def _send(self, messages: list[Message]) -> Reply:
        s = self.settings
        params: dict[str, Any] = {"model": s.model, "messages": messages, "max_tokens": s.max_tokens}
        sampling = {k: v for k, v in (("temperature", s.temperature), ("top_p", s.top_p)) if v is not None}
        if sampling:  # as body fields: SDK versions differ in which of them they take as arguments
            params["extra_body"] = sampling
        sdk = self.sdk
        try:
            r = self.client.chat.completions.create(**params)
        except (sdk.APITimeoutError, sdk.APIConnectionError) as e:
            raise Retryable(f"no answer ({type(e).__name__}: {e.__cause__ or e})") from None
        except sdk.APIStatusError as e:
            if e.status_code == 429 or e.status_code >= 500:
                raise Retryable(f"HTTP {e.status_code}", retry_after(e.response.headers)) from None
            raise ProviderError(f"{self.where} refused the request for model {s.model}: HTTP {e.status_code}: "
                                f"{e.message}") from None
        if not r.choices:
            raise Retryable("a reply without choices")
        choice = r.choices[0]
        usage = r.usage
        return Reply(choice.message.content or "", choice.finish_reason,
                     usage.prompt_tokens if usage else None, usage.completion_tokens if usage else None,
                     1, 0.0, r.model)

    def complete(self, messages: list[Message]) -> Reply:
        return with_retries(lambda: self._send(messages), self.settings, self.where)


register("openai")(OpenAIChat)
