"""ATen operators, one module per family."""

from __future__ import annotations

from collections.abc import Callable

from ..spec import Operator
from . import index, matmul, pointwise, reduce

OPERATORS: dict[str, Callable[[], Operator]] = {
    name: factory for fam in (index, matmul, pointwise, reduce) for name, factory in fam.OPERATORS.items()
}
