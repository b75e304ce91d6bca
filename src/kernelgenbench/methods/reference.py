"""The shipped positive controls in solutions/: every specified operator must pass with them."""

from __future__ import annotations

from typing import Any

from ..suite.solutions import solutions_dir
from .base import register
from .files import FilesMethod

__all__ = ["ReferenceMethod", "solutions_dir"]


class ReferenceMethod(FilesMethod):
    """The files method over the shipped solutions/."""

    name = "reference"

    def __init__(self) -> None:
        super().__init__(solutions_dir())

    def config(self) -> dict[str, Any]:
        return {}


register("reference")(ReferenceMethod)
