"""Placeholder: filled in by the views family."""

from __future__ import annotations

from collections.abc import Callable

from ..spec import Operator

OPERATORS: dict[str, Callable[[], Operator]] = {}
