"""ATen operators, one module per family."""

from __future__ import annotations

from collections.abc import Callable

from ..spec import Operator
from . import backward, binary, copies, creation, index, matmul, nn, pointwise, random, reduce, unary, views

FAMILIES = (backward, binary, copies, creation, index, matmul, nn, pointwise, random, reduce, unary, views)
OPERATORS: dict[str, Callable[[], Operator]] = {
    name: factory for fam in FAMILIES for name, factory in fam.OPERATORS.items()
}
