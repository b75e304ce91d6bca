"""Candidates read from a folder laid out as SOURCE/NAME.py (e.g. aten/softmax.py, vllm/rms_norm.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Candidate, MethodError, Schedule, Task, register


def candidate_path(root: Path, op_id: str) -> Path:
    source, name = op_id.split("::", 1)
    return root / source / f"{name}.py"


def read_candidate(root: Path, op_id: str, method: str) -> Candidate:
    path = candidate_path(root, op_id)
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
        return Schedule()

    def check(self) -> None:
        pass

    def generate(self, task: Task) -> Candidate:
        return read_candidate(self.root, task.op.id, self.name)


register("files")(FilesMethod)
