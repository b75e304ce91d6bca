"""Process isolation: one candidate, one confined worker process, one device, hard limits.

The runner's names load on first use, so a process that only confines itself (the confinement's
self-test) does not import torch for them.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["Limits", "Request", "judge", "warm_up"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(import_module(".runner", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
