"""vLLM operators (the vLLM 0.13 generation of `torch.ops._C`), one module per family."""

from __future__ import annotations

from ..spec import Operator
from . import norm, rotary

FAMILIES = (norm, rotary)


def operators() -> list[Operator]:
    return [op for fam in FAMILIES for op in fam.operators()]
