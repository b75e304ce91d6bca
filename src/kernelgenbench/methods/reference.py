"""The shipped positive controls in solutions/: every specified operator must pass with them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import register
from .files import FilesMethod


def solutions_dir() -> Path:
    """solutions/ of the source checkout, or the copy installed inside the package."""
    here = Path(__file__).resolve()
    for candidate in (here.parents[3] / "solutions", here.parents[1] / "solutions"):
        if candidate.is_dir():
            return candidate
    return here.parents[3] / "solutions"


class ReferenceMethod(FilesMethod):
    """The files method over the shipped solutions/."""

    name = "reference"

    def __init__(self) -> None:
        super().__init__(solutions_dir())

    def config(self) -> dict[str, Any]:
        return {}


register("reference")(ReferenceMethod)
