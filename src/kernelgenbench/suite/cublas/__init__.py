"""cublas operators (being specified)."""

from __future__ import annotations

from ..spec import Operator


def operators() -> list[Operator]:
    return []
