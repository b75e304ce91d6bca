"""OpenAI-compatible chat completions through the `openai` SDK (OpenAI, vLLM, SGLang, DeepSeek, ...)."""

from __future__ import annotations

from .base import (
    Message,
    ProviderError,
    Reply,
    Retryable,
    Settings,
    api_key,
    check_reachable,
    register,
    request_params,
    send,
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
        r = send(self.sdk, self.where, self.settings.model, self.client.chat.completions.create,
                 request_params(self.settings, messages))
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
