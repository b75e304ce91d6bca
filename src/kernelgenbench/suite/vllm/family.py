"""The shared builder of vLLM operator records.

A vLLM op is one Python function (`vllm._custom_ops.OP`) over `torch.ops._C.OP`, so each record has
exactly one overload named like the op. vLLM is not importable here, so there is no baseline: the
torch reference in the working dtype stands in for vLLM's numerics and the report says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..build import Sampler, build_cases
from ..spec import CodeCheck, Operator, Overload, Param, Tolerance


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """float32 for fp16/bf16/fp32 (what vLLM's kernels accumulate in); float64 stays float64."""
    return torch.promote_types(dtype, torch.float32)


def vllm_operator(name: str, family: str, doc: str, *, params: tuple[Param, ...], signature: str,
                  reference: Callable[..., Any], sampler: Sampler, ov_doc: str,
                  tolerance: Tolerance = Tolerance(), notes: str = "", codes: CodeCheck | None = None) -> Operator:
    ov = Overload(name=name, func_name=name, params=params, signature=signature,
                  reference=reference, doc=ov_doc)
    return Operator(
        id=f"vllm::{name}",
        source="vllm",
        family=family,
        doc=doc,
        overloads=(ov,),
        cases=build_cases((ov,), sampler),
        tolerance=tolerance,
        baseline=None,
        notes=notes,
        codes=codes,
    )
