"""The protocol every way of producing candidates follows, and the registry of methods by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from ..suite.spec import Operator


@dataclass(frozen=True)
class Candidate:
    """One candidate source for one operator; `code` is None when the method produced none."""

    op: str
    code: str | None
    origin: str
    sample: int = 0
    round: int = 0
    model: str | None = None
    missing: str | None = None


class Method(Protocol):
    name: str

    def config(self) -> dict[str, Any]:
        """What identifies this method's campaign (stored with the run, part of its default name)."""
        ...

    def candidates(self, op: Operator) -> Iterable[Candidate]: ...


class MethodError(Exception):
    """The method cannot run as configured (missing folder, unknown method)."""


_METHODS: dict[str, Callable[..., Method]] = {}


def register(name: str) -> Callable[[Callable[..., Method]], Callable[..., Method]]:
    def deco(factory: Callable[..., Method]) -> Callable[..., Method]:
        _METHODS[name] = factory
        return factory

    return deco


def create(name: str, **options: Any) -> Method:
    if name not in _METHODS:
        raise MethodError(f"unknown method {name!r}; available: {', '.join(sorted(_METHODS))}")
    return _METHODS[name](**options)


def available() -> list[str]:
    return sorted(_METHODS)
