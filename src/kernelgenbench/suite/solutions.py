"""Where the shipped solutions live: solutions/SOURCE/NAME.py, one known-good file per operator
(and per perturbed twin). They are the reference method's candidates and the benchmark's answer
key, which `verify/copied.py` checks every other candidate against."""

from __future__ import annotations

from pathlib import Path


def solutions_dir() -> Path:
    """solutions/ of the source checkout, or the copy installed inside the package."""
    here = Path(__file__).resolve()
    for candidate in (here.parents[3] / "solutions", here.parents[1] / "solutions"):
        if candidate.is_dir():
            return candidate
    return here.parents[3] / "solutions"


def is_shipped(path: str | Path, root: Path | None = None) -> bool:
    """Whether `path` is a file of the shipped solutions itself (not a copy of one elsewhere)."""
    folder = (root or solutions_dir()).resolve()
    return Path(path).resolve().is_relative_to(folder)
