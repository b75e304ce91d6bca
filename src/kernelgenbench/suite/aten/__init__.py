"""ATen operators, one module per family."""

from __future__ import annotations

from ..spec import Operator
from . import index, matmul, pointwise, reduce

FAMILIES = (pointwise, reduce, matmul, index)


def operators() -> list[Operator]:
    return [op for fam in FAMILIES for op in fam.operators()]
