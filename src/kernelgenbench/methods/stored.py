"""Candidates replayed from a stored run, unchanged, so another platform judges the same kernels.

Each (operator, sample) of the source run is replayed once: its last round, the attempt that
decided the sample (rounds stop at the first pass). The replay keeps the sample number and the
source text, so its verdicts pair with the source's by operator, sample and code hash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..store import Attempt, Store
from .base import Candidate, MethodError, Schedule, Task


class StoredMethod:
    name = "stored"

    def __init__(self, db: str | Path, run: str):
        with Store(db) as store:
            source = store.find_run(run)
            if source is None:
                raise MethodError(f"no run {run!r} in {db}")
            deciding: dict[tuple[str, int], Attempt] = {}
            for a in store.attempts(source.id):
                if (a.op, a.sample) not in deciding or a.round > deciding[a.op, a.sample].round:
                    deciding[a.op, a.sample] = a
        self.source = source
        self.attempts = {key: a for key, a in deciding.items() if a.source_code is not None}
        if not self.attempts:
            raise MethodError(f"run {source.name} has no candidate source to judge again")

    def ops(self) -> list[str]:
        return sorted({op for op, _ in self.attempts})

    def config(self) -> dict[str, Any]:
        """`rejudge_of` links the new run to its source: the MC transfer matrix pairs them by it."""
        return {"rejudge_of": self.source.name, "source_platform": self.source.platform}

    def schedule(self) -> Schedule:
        samples: dict[str, list[int]] = {}
        for op, sample in sorted(self.attempts):
            samples.setdefault(op, []).append(sample)
        return Schedule(samples=1 + max(s for _, s in self.attempts), rounds=1,
                        replay=tuple((op, tuple(s)) for op, s in samples.items()))

    def check(self) -> None:
        pass

    def generate(self, task: Task) -> Candidate:
        a = self.attempts[task.op.id, task.sample]
        return Candidate(a.op, a.source_code, f"{self.source.name} attempt {a.id} (sample {a.sample}, round {a.round})",
                         sample=a.sample, model=a.model)
