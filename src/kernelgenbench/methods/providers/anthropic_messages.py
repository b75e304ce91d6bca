"""Anthropic messages through the `anthropic` SDK; only text blocks count as the reply."""

from __future__ import annotations

from .base import (
    Message,
    ProviderError,
    Reply,
    Settings,
    api_key,
    check_reachable,
    register,
    request_params,
    send,
    with_retries,
)


class AnthropicMessages:
    name = "anthropic"

    def __init__(self, settings: Settings):
        try:
            import anthropic
        except ImportError:
            raise ProviderError("provider anthropic needs the anthropic package: pip install anthropic") from None
        self.settings = settings
        self.sdk = anthropic
        self.where = settings.base_url or "https://api.anthropic.com"
        self.client = anthropic.Anthropic(api_key=api_key(settings.api_key_env or "ANTHROPIC_API_KEY", self.name),
                                          base_url=settings.base_url, timeout=settings.timeout_s, max_retries=0)

    def check(self) -> None:
        check_reachable(self.sdk, self.client, self.where, self.settings.api_key_env or "ANTHROPIC_API_KEY",
                        self.settings.timeout_s)

    def _send(self, messages: list[Message]) -> Reply:
        r = send(self.sdk, self.where, self.settings.model, self.client.messages.create,
                 request_params(self.settings, messages))
        text = "".join(b.text for b in r.content if getattr(b, "type", None) == "text")
        usage = r.usage
        tokens_in = None
        if usage is not None:  # cached prompt tokens are reported apart from the rest; all were sent
            tokens_in = usage.input_tokens + sum(getattr(usage, k, None) or 0 for k in
                                                 ("cache_creation_input_tokens", "cache_read_input_tokens"))
        return Reply(text, r.stop_reason, tokens_in, usage.output_tokens if usage else None, 1, 0.0, r.model)

    def complete(self, messages: list[Message]) -> Reply:
        return with_retries(lambda: self._send(messages), self.settings, self.where)


register("anthropic")(AnthropicMessages)
