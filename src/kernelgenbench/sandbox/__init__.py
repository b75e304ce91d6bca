"""Process isolation: one candidate, one worker process, one device, hard limits."""

from .runner import Limits, Request, judge, warm_up

__all__ = ["Limits", "Request", "judge", "warm_up"]
