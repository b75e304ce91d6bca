"""Candidates read from a folder laid out as SOURCE/NAME.py (e.g. aten/softmax.py, vllm/rms_norm.py).

An operator may instead have a folder SOURCE/NAME/ of several candidates, judged as its samples in
the order of their file names (a model's k samples, or a mixed set for the throughput benchmark).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Candidate, MethodError, Schedule, Task, register


def candidate_path(root: Path, op_id: str) -> Path:
    source, name = op_id.split("::", 1)
    return root / source / f"{name}.py"


def sample_paths(root: Path, op_id: str) -> list[Path]:
    """The candidates of an operator that has a folder of them, in order; [] if it has none."""
    folder = candidate_path(root, op_id).with_suffix("")
    return sorted(folder.glob("*.py")) if folder.is_dir() else []


def read_candidate(root: Path, op_id: str, method: str, sample: int = 0) -> Candidate:
    samples = sample_paths(root, op_id)
    path = samples[sample] if sample < len(samples) else candidate_path(root, op_id)
    if not path.is_file():
        return Candidate(op_id, None, str(path), missing=f"no candidate file {path}")
    try:
        code = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return Candidate(op_id, None, str(path), missing=f"cannot read {path}: {e}")
    return Candidate(op_id, code, str(path))


class FilesMethod:
    name = "files"

    def __init__(self, dir: str | Path | None = None):
        if dir is None:
            raise MethodError("--method files needs --dir DIR (a folder with SOURCE/NAME.py files)")
        self.root = Path(dir).expanduser().resolve()
        if not self.root.is_dir():
            raise MethodError(f"--dir {dir}: no such folder")

    def config(self) -> dict[str, Any]:
        return {"dir": str(self.root)}

    def schedule(self) -> Schedule:
        """One sample per operator, or as many as its folder holds."""
        from ..suite import registry

        counts = {op: len(sample_paths(self.root, op)) for op in registry.all_ids() + registry.twin_ids()}
        if not any(counts.values()):
            return Schedule()
        return Schedule(samples=max(counts.values()),
                        replay=tuple((op, tuple(range(max(n, 1)))) for op, n in counts.items()))

    def check(self) -> None:
        pass

    def generate(self, task: Task) -> Candidate:
        return read_candidate(self.root, task.op.id, self.name, task.sample)


register("files")(FilesMethod)
