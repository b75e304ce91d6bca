"""cuBLAS routines: torch references with BLAS column-major semantics, libcublas as the baseline."""

from __future__ import annotations

from ..spec import Operator
from . import level1, level2, level3


def operators() -> list[Operator]:
    return [*level1.operators(), *level2.operators(), *level3.operators()]
