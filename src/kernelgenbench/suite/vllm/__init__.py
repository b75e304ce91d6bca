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
    lora,
    mamba,
    marlin,
    marlin24,
    misc,
    moe,
    norm,
    quant,
    rotary,
    scaled_mm,
    sparse_index,
    transform,
)

FAMILIES = (norm, fused_norm, rotary, attention, sparse_index, cache, cache_gather, cache_gather2, cache_gather3, moe,
            lora, quant, misc, transform, gptq, marlin, marlin24, ggml, scaled_mm, mamba)
OPERATORS: dict[str, Callable[[], Operator]] = {
    name: factory for fam in FAMILIES for name, factory in fam.OPERATORS.items()
}
