"""cuBLAS routines: torch references with BLAS column-major semantics, libcublas as the baseline."""

from __future__ import annotations

from collections.abc import Callable

from ..spec import Operator
from . import batched, batched_complex, level1, level1_complex, level2, level3

OPERATORS: dict[str, Callable[[], Operator]] = {
    name: factory
    for fam in (level1, level2, level3, level1_complex, batched, batched_complex)
    for name, factory in fam.OPERATORS.items()
}
