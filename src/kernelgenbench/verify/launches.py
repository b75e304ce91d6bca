"""Watching Triton launches from inside the worker: counted, named, and skippable on demand.

The op trace ignores torch operators issued while a launch is in progress (the interpreter
copies tensors to and from the host), and the ghost replay turns every launch into a no-op.
Both hook the one entry every launch goes through: `run` of a jit or interpreted function.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class LaunchMonitor:
    count: int = 0
    names: set[str] = field(default_factory=set)
    ghost: bool = False
    depth: int = 0

    @property
    def inside(self) -> bool:
        return self.depth > 0

    @contextmanager
    def ghosting(self) -> Iterator[None]:
        self.ghost = True
        try:
            yield
        finally:
            self.ghost = False

    def _wrap(self, original: Any) -> Any:
        monitor = self

        def run(fn_self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
            if warmup:
                return original(fn_self, *args, grid=grid, warmup=warmup, **kwargs)
            monitor.count += 1
            monitor.names.add(getattr(fn_self, "__name__", None) or fn_self.fn.__name__)
            if monitor.ghost:
                return None
            monitor.depth += 1
            try:
                return original(fn_self, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                monitor.depth -= 1

        run.__wrapped__ = original  # type: ignore[attr-defined]
        return run


_MONITOR: LaunchMonitor | None = None


def install() -> LaunchMonitor:
    """Hook every kernel class's launch entry, once per process, before the candidate is imported."""
    global _MONITOR
    if _MONITOR is None:
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction

        _MONITOR = LaunchMonitor()
        for cls in (JITFunction, InterpretedFunction):
            cls.run = _MONITOR._wrap(cls.run)
    return _MONITOR
