"""Process isolation: one candidate, one worker process, one device, hard limits."""

from .runner import Limits, Request, judge

__all__ = ["Limits", "Request", "judge"]
