"""cuBLAS routines: torch references with BLAS column-major semantics, libcublas as the baseline."""

from __future__ import annotations

from collections.abc import Callable

from ..spec import Operator
from . import (
    batched,
    batched_complex,
    level1,
    level1_complex,
    level2,
    level2_real,
    level3,
    level3_real,
    level23_complex,
    sym_complex,
)

FAMILIES = (level1, level2, level3, level1_complex, level2_real, level3_real, level23_complex, sym_complex, batched,
            batched_complex)
OPERATORS: dict[str, Callable[[], Operator]] = {
    name: factory for fam in FAMILIES for name, factory in fam.OPERATORS.items()
}
