"""Model endpoints behind one small protocol; each SDK is imported only when its provider is used."""

from . import anthropic_messages, openai_chat  # noqa: F401 - registration
from .base import Message, Provider, ProviderError, Reply, Settings, available, create

__all__ = ["Message", "Provider", "ProviderError", "Reply", "Settings", "available", "create"]
