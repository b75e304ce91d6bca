"""vLLM operators (the vLLM 0.13 generation of `torch.ops._C`), one module per family."""

from __future__ import annotations

from collections.abc import Callable

from ..spec import Operator
from . import (
    attention,
    cache,
    cache_gather,
    cache_gather2,
    cache_gather3,
    fused_norm,
    ggml,
    gptq,
    mamba,
    marlin,
    misc,
    moe,
    norm,
    quant,
    rotary,
    scaled_mm,
    transform,
)

FAMILIES = (norm, fused_norm, rotary, attention, cache, cache_gather, cache_gather2, cache_gather3, moe, quant, misc,
            transform, gptq, marlin, ggml, scaled_mm, mamba)
OPERATORS: dict[str, Callable[[], Operator]] = {
    name: factory for fam in FAMILIES for name, factory in fam.OPERATORS.items()
}
