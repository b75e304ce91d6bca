"""Quantisation as vLLM 0.13 does it: `scaled_fp8_quant`, `scaled_int8_quant` (activations),
`rms_norm_dynamic_per_token_quant` (RMSNorm fused with per-token quantisation) and `convert_fp8`
(KV-cache blocks to and from fp8 bytes).

The candidate implements the Python wrappers of vllm/_custom_ops.py, not the `torch.ops._C` ops
under them: a wrapper is what model code calls, it picks the kernel from its arguments (a given
scale: static; none: dynamic per tensor or per token), allocates the quantised output and the
computed scales, and returns them. One record per wrapper thus covers every mode of the kernels
(`static_scaled_fp8_quant`, `dynamic_scaled_fp8_quant`, `dynamic_per_token_scaled_fp8_quant`;
`static_scaled_int8_quant`, `dynamic_scaled_int8_quant`) with the wrapper's own return contract
(a static scale, and azp, come back as the very tensors passed in).

Numerics follow vLLM's kernels (csrc/quantization/w8a8/fp8/common.cu and common.cuh,
csrc/quantization/w8a8/int8/scaled_quant.cu): every input is read into float32 and all the math
is float32, so the references compute in float32 whatever dtype they are called with (the float64
truth of a quantiser is vLLM's float32 result: the rounding *is* the operator).

- fp8: e4m3fn, values clamped to +-448 and then rounded to nearest, ties to even (the hardware
  cvt.rn.satfinite). A static scale multiplies by the float32 reciprocal 1/scale; the dynamic
  per-tensor scale is max|x| / 448 and multiplies by its reciprocal too; the per-token scale is
  max(min(max|row|, scale_ub) / 448, 1 / (448 * 512)) and *divides*.
- int8: round half to even (cvt.rni.sat), saturating to [-128, 127]. Static symmetric divides by
  the scale; static with azp multiplies by 1/scale, rounds, adds azp, saturates; dynamic symmetric
  uses scale = max|row| / 127 and multiplies by 127 / max|row| (0 for an all-zero row); dynamic
  asymmetric uses s = (max - min) / 255, azp = rint(-128 - min / s) and multiplies by 1/s.

convert_fp8 (csrc/cache_kernels.cu, fp8::scaled_convert in csrc/quantization/w8a8/fp8/nvidia/
quant_utils.cuh) treats every cache as flat: a float32/float16/bfloat16 source becomes e4m3fn bytes
(uint8) of float(x) / scale, rounded to nearest even and saturated to +-448 (cvt satfinite); a uint8
source is read as e4m3fn, widened exactly and multiplied by scale in float32, then rounded to the
destination dtype.

rms_norm_dynamic_per_token_quant (csrc/quantization/fused_kernels/fused_layernorm_dynamic_per_token_
quant.cu, layernorm_utils.cuh) adds the residual in float32 (the sum it normalises is *not* rounded;
only the copy stored back into `residual` is), takes r = rsqrt(mean(x^2) + epsilon), forms
y = round(round(x * r) * weight) in the working dtype (as RMSNorm does), then quantises per token
like `dynamic_per_token_scaled_fp8_quant` (scale from max |y| capped by scale_ub, y / scale).

fp8 outputs are floating, so the harness compares them by tolerance (int8 and azp are compared
exactly); `QUANT_TOLERANCE` keeps that near exact: the reference is exact, so the allowance is
the error floor of one correct rounding, not a multiple of a native error. convert_fp8's codes are
uint8 (exact) and its dequantised floats take the default tolerance; the fused norm has its own
(`RMS_QUANT_TOLERANCE`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from itertools import cycle
from typing import Any

import torch

from ..build import FLOATS, sample
from ..spec import CodeCheck, Operator, OutputSpec, Overload, Param, Sample, Size, TensorSpec, Tolerance
from .family import compute_dtype, vllm_operator
from .norm import _normalize

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0
FP8_MIN_SCALE = 1.0 / (FP8_MAX * 512.0)
INT8_MIN, INT8_MAX = -128, 127

QUANT_TOLERANCE = Tolerance(k_rms=1.0, k_max=2.0, floor_ulps=0.0)
"""The references reproduce vLLM's float32 computation bit for bit, so the native error is zero
and the allowance is the harness's floor of correct rounding: half an ulp in the max norm (times
2: one ulp, for a float32 scale that divides where the reference multiplies) and ulp/sqrt(12) in
RMS. An fp8 output with a few values one code off passes; one rounded the wrong way throughout
(truncation, round-half-up everywhere) or unclamped (NaN) fails."""

SCALED_QUANT_TOLERANCE = Tolerance(k_rms=1.0, k_max=2.0, floor_ulps=0.0,
                                   per_output=((1, Tolerance(k_rms=1.0, k_max=2.0, floor_ulps=2.0)),))
"""QUANT_TOLERANCE, except for the float32 scales (output 1) a dynamic quantisation computes: one
division, which a GPU's `/` (Triton's div.full.f32 on CUDA) rounds within 2 ulps, not correctly;
measured on the H200: the reference solutions' per-token scales 1-2 ulps off (ratio 1.9-2.0 under
QUANT_TOLERANCE). int8 codes follow their scale (INT8_CODES)."""

CODE_SLACK = 1e-4
"""In code units: float32's x * (1/s) is off the exact quotient by 2^-23 * |x / s| <= 3e-5 codes."""


def _int8_codes_follow_scale(ov: Overload, inputs: Mapping[str, Any], produced: list[Any]) -> str | None:
    """Every int8 code (output 0) is its input rounded to nearest under the scale (output 1) and zero
    point (output 2, or the one given) the candidate returned, saturated to [-128, 127]; a dynamic
    zero point is -128 - min(row) / scale rounded to nearest. Measured on the H200: the reference
    solution's per-token scales 1-2 ulps off the truth put 84 of 32768 rows' zero points (and so
    every code of those rows) one off the truth's; judged against their own scale they are right,
    while truncating instead of rounding is not."""
    x = inputs["input"]
    if x.numel() == 0:
        return None
    rows = x.double().reshape(-1, x.shape[-1])
    q = produced[0].double().reshape(rows.shape)
    scale = produced[1].double().reshape(-1, 1)
    zp = produced[2] if len(produced) > 2 and isinstance(produced[2], torch.Tensor) else None
    z = zp.double().reshape(-1, 1) if zp is not None else torch.zeros_like(scale)
    if inputs["scale"] is None and zp is not None:
        start = -128.0 - rows.amin(dim=-1, keepdim=True) / scale
        off = (start - z).abs() > 0.5 + CODE_SLACK
        if bool(off.any()):
            r = int(off.nonzero()[0, 0])
            return (f"output 2: row {r}'s zero point is {int(z[r, 0])}, but -128 - min(row) / its scale is "
                    f"{float(start[r, 0]):.4f}: not rounded to nearest")
    exact = torch.where(scale == 0, torch.zeros_like(rows), rows / scale) + z
    low, high = float(INT8_MIN), float(INT8_MAX)
    wrong = torch.where(q == high, exact < high - 0.5 - CODE_SLACK,
                        torch.where(q == low, exact > low + 0.5 + CODE_SLACK, (exact - q).abs() > 0.5 + CODE_SLACK))
    if bool(wrong.any()):
        i = int(wrong.reshape(-1).nonzero()[0, 0])
        return (f"output 0: {int(wrong.sum())} of {q.numel()} codes are not their input rounded to nearest under "
                f"the returned scale and zero point (first at flat index {i}: code {int(q.reshape(-1)[i])}, "
                f"input / scale + zero point = {float(exact.reshape(-1)[i]):.4f})")
    return None


INT8_CODES = CodeCheck(outputs=(0, 2), check=_int8_codes_follow_scale)


def _over(numerator: float, t: torch.Tensor) -> torch.Tensor:
    """numerator / t as one IEEE float32 division (torch's `float / tensor` multiplies by a
    reciprocal, a second rounding vLLM does not make)."""
    return torch.div(torch.full_like(t, numerator), t)


def _to_fp8(x: torch.Tensor) -> torch.Tensor:
    """float32 -> e4m3fn as vLLM converts: clamp to +-448, then round to nearest even."""
    return x.clamp(-FP8_MAX, FP8_MAX).to(FP8)


def scaled_fp8_quant_reference(input: torch.Tensor, scale: torch.Tensor | None = None,
                               num_token_padding: int | None = None, scale_ub: torch.Tensor | None = None,
                               use_per_token_if_dynamic: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    x = input.float()
    if scale is not None:
        return _to_fp8(x * _over(1.0, scale.float())), scale
    if use_per_token_if_dynamic:
        amax = x.abs().amax(dim=-1, keepdim=True)
        if scale_ub is not None:
            amax = torch.minimum(amax, scale_ub.float())
        token_scale = (amax / FP8_MAX).clamp(min=FP8_MIN_SCALE)
        return _to_fp8(x / token_scale), token_scale
    tensor_scale = (x.abs().amax() / FP8_MAX).reshape(1)
    return _to_fp8(x * _over(1.0, tensor_scale)), tensor_scale


def _rint_int8(v: torch.Tensor) -> torch.Tensor:
    """Round half to even and saturate to int8 (torch.round rounds half to even)."""
    return torch.round(v).clamp(INT8_MIN, INT8_MAX).to(torch.int8)


def _with_azp(v: torch.Tensor, azp: torch.Tensor) -> torch.Tensor:
    """vLLM's azp path: round to int32 (half to even), add the zero point, saturate to int8."""
    return (torch.round(v).to(torch.int64) + azp.to(torch.int64)).clamp(INT8_MIN, INT8_MAX).to(torch.int8)


def scaled_int8_quant_reference(input: torch.Tensor, scale: torch.Tensor | None = None,
                                azp: torch.Tensor | None = None, symmetric: bool = True
                                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    x = input.float()
    if scale is not None:
        s = scale.float()
        q = _rint_int8(x / s) if azp is None else _with_azp(x * _over(1.0, s), azp)
        return q, scale, azp
    rows = x.reshape(-1, x.shape[-1])
    if symmetric:
        amax = rows.abs().amax(dim=-1, keepdim=True)
        inv = torch.where(amax == 0, torch.zeros_like(amax), _over(127.0, amax))
        return _rint_int8(rows * inv).reshape(x.shape), amax / 127.0, None
    lo, hi = rows.amin(dim=-1, keepdim=True), rows.amax(dim=-1, keepdim=True)
    s = (hi - lo) / 255.0
    zp = torch.round(-128.0 - lo / s).to(torch.int32)
    return _with_azp(rows * _over(1.0, s), zp).reshape(x.shape), s, zp


# [num_tokens, hidden]: odd hidden sizes (tails), one column, an empty batch (static only: the
# dynamic per-tensor scale of nothing is vLLM's memset 0, and 1/0 then poisons nothing).
QUANT_SHAPES: dict[str, list[tuple[int, int]]] = {
    "small": [(1, 8), (7, 33), (5, 130), (4, 769), (16, 256), (3, 1), (2, 2050)],
    # large and perf: one case per mode, (shape, dtype) taken in turn
    "large": [(4096, 4096), (83, 5125), (2048, 14336), (1024, 7168)],
    "perf": [(16384, 4096), (16384, 8192), (16384, 7168), (16384, 14336)],
}
DTYPES: dict[str, tuple[torch.dtype, ...]] = {"small": FLOATS, "large": FLOATS,
                                             "perf": (torch.bfloat16, torch.float16)}
EMPTY = (0, 64)

# x ~ N(0, 1): a static scale below 1/128 pushes the tails past 448, so the clamp is exercised;
# scale_ub in [0.5, 2] caps some rows' maxima and not others.
FP8_STATIC_SCALE = TensorSpec((1,), torch.float32, dist="uniform", low=0.004, high=0.02)
FP8_SCALE_UB = TensorSpec((1,), torch.float32, dist="uniform", low=0.5, high=2.0)
INT8_STATIC_SCALE = TensorSpec((1,), torch.float32, dist="uniform", low=0.01, high=0.03)
INT8_AZP = TensorSpec((1,), torch.int32, dist="index", low=-20, high=21)

# fp8 modes: (scale given, use_per_token_if_dynamic, scale_ub given)
FP8_MODES = (("static", True, False, False), ("per_tensor", False, False, False),
             ("per_token", False, True, False), ("per_token_ub", False, True, True))


def _fp8_values(shape: tuple[int, int], dtype: torch.dtype, mode: tuple[str, bool, bool, bool],
                expanded: bool) -> dict[str, object]:
    _, static, per_token, ub = mode
    return {
        "input": TensorSpec(shape, dtype, "expanded" if expanded else "contiguous"),
        "scale": FP8_STATIC_SCALE if static else None,
        "num_token_padding": None,
        "scale_ub": FP8_SCALE_UB if ub else None,
        "use_per_token_if_dynamic": per_token,
    }


def scaled_fp8_quant_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    if size != "small":
        for shape, dtype, mode in zip(QUANT_SHAPES[size], cycle(DTYPES[size]), FP8_MODES):
            yield sample(_fp8_values(shape, dtype, mode, False))
        return
    modes = cycle(FP8_MODES)
    for i, shape in enumerate(QUANT_SHAPES[size]):
        for dtype in FLOATS:
            # every mode with every dtype over the grid; a broadcast (row stride 0) input now and then
            yield sample(_fp8_values(shape, dtype, next(modes), i % 3 == 1))
    yield sample(_fp8_values(EMPTY, torch.float16, FP8_MODES[0], False))
    yield sample(_fp8_values(EMPTY, torch.bfloat16, FP8_MODES[2], False))


# int8 modes: (static scale, azp, symmetric)
INT8_MODES = (("static", True, False, True), ("static_azp", True, True, False),
              ("dynamic", False, False, True), ("dynamic_azp", False, False, False))
# the dynamic path makes its input contiguous, the static one requires it; a transposed input is
# refused by vLLM (empty_like keeps its strides, and the kernel requires a contiguous output)
INT8_LAYOUTS = ("contiguous", "strided", "expanded")


def _int8_values(shape: tuple[int, int], dtype: torch.dtype, mode: tuple[str, bool, bool, bool],
                 layout: str) -> dict[str, object]:
    _, static, azp, symmetric = mode
    if shape[1] == 1 and not static:  # one value per row: max == min, an asymmetric scale of 0
        symmetric = True
    return {
        "input": TensorSpec(shape, dtype, "contiguous" if static or shape[1] == 1 else layout),
        "scale": INT8_STATIC_SCALE if static else None,
        "azp": INT8_AZP if azp else None,
        "symmetric": symmetric,
    }


def scaled_int8_quant_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    if size != "small":
        for shape, dtype, mode in zip(QUANT_SHAPES[size], cycle(DTYPES[size]), INT8_MODES):
            yield sample(_int8_values(shape, dtype, mode, "contiguous"))
        return
    modes, layouts = cycle(INT8_MODES), cycle(INT8_LAYOUTS)
    for shape in QUANT_SHAPES[size]:
        for dtype in FLOATS:
            mode = next(modes)
            yield sample(_int8_values(shape, dtype, mode, next(layouts) if not mode[1] else "contiguous"))
    for mode in INT8_MODES[::2]:
        yield sample(_int8_values(EMPTY, torch.float16, mode, "contiguous"))


def scaled_fp8_quant() -> Operator:
    return vllm_operator(
        "scaled_fp8_quant", "quant",
        "Quantise to fp8 e4m3fn with a static, dynamic per-tensor or dynamic per-token scale; "
        "returns (output, scale).",
        params=(
            Param("input", "Tensor"),
            Param("scale", "Tensor?", has_default=True),
            Param("num_token_padding", "int?", has_default=True),
            Param("scale_ub", "Tensor?", has_default=True),
            Param("use_per_token_if_dynamic", "bool", has_default=True, default=False),
        ),
        signature=("scaled_fp8_quant(input: torch.Tensor, scale: torch.Tensor | None = None, "
                   "num_token_padding: int | None = None, scale_ub: torch.Tensor | None = None, "
                   "use_per_token_if_dynamic: bool = False) -> tuple[torch.Tensor, torch.Tensor]"),
        reference=scaled_fp8_quant_reference,
        sampler=scaled_fp8_quant_sampler,
        tolerance=SCALED_QUANT_TOLERANCE,
        ov_doc=("input [num_tokens, hidden] float32/float16/bfloat16 with unit last stride (any row stride). "
                "All math in float32; q(v) = round-to-nearest-even of clamp(v, -448, 448) to "
                "torch.float8_e4m3fn. Static (scale [1] float32 given): output = q(x * (1/scale)), and "
                "the `scale` tensor itself is returned. Dynamic per tensor (scale None, "
                "use_per_token_if_dynamic False): s = max|x| / 448, shape [1] float32, output = "
                "q(x * (1/s)). Dynamic per token (scale None, use_per_token_if_dynamic True): per row "
                "s = max(min(max|row|, scale_ub) / 448, 1/(448*512)) (no min with scale_ub when it is "
                "None), scales [num_tokens, 1] float32, output = q(x / s). Returns (output, scale) with "
                "output a new contiguous float8_e4m3fn tensor shaped like input. num_token_padding is "
                "always None here."),
        notes=("vllm/_custom_ops.py scaled_fp8_quant over csrc/quantization/w8a8/fp8/common.cu. Not drawn: "
               "num_token_padding (the padded rows are left uninitialised by vLLM), the output= buffer, "
               "inputs with a non-unit last stride (vLLM raises), an all-zero input in the dynamic "
               "per-tensor mode (vLLM's 1/0 scale makes every value 448), per-channel static scales."),
    )


def scaled_int8_quant() -> Operator:
    return vllm_operator(
        "scaled_int8_quant", "quant",
        "Quantise to int8, symmetric or with a zero point, with a static per-tensor or dynamic per-token "
        "scale; returns (output, scale, azp).",
        params=(
            Param("input", "Tensor"),
            Param("scale", "Tensor?", has_default=True),
            Param("azp", "Tensor?", has_default=True),
            Param("symmetric", "bool", has_default=True, default=True),
        ),
        signature=("scaled_int8_quant(input: torch.Tensor, scale: torch.Tensor | None = None, "
                   "azp: torch.Tensor | None = None, symmetric: bool = True) "
                   "-> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]"),
        reference=scaled_int8_quant_reference,
        sampler=scaled_int8_quant_sampler,
        tolerance=SCALED_QUANT_TOLERANCE,
        codes=INT8_CODES,
        ov_doc=("input [..., hidden] float32/float16/bfloat16. All math in float32; rint = round half to "
                "even; sat = clamp to [-128, 127]. Static (scale [1] float32 given; input contiguous): "
                "without azp, output = sat(rint(x / scale)); with azp ([1] int32, symmetric False), "
                "output = sat(rint(x * (1/scale)) + azp); returns (output, scale, azp), the very tensors "
                "passed in. Dynamic (scale None; any strides): per row of input.view(-1, hidden), "
                "symmetric: scales = max|row| / 127, output = sat(rint(x * (127 / max|row|))) (0 for an "
                "all-zero row), azp None; asymmetric: s = (max - min) / 255, azp = rint(-128 - min / s) "
                "as int32, output = sat(rint(x * (1/s)) + azp). Dynamic scales and azp are "
                "[num_tokens, 1] (float32, int32). output: a new contiguous int8 tensor shaped like input."),
        notes=("vllm/_custom_ops.py scaled_int8_quant over csrc/quantization/w8a8/int8/scaled_quant.cu. "
               "Not drawn: a non-contiguous input with a static scale and a dense permuted (transposed) "
               "input in the dynamic mode (vLLM raises on both), rows whose max equals "
               "their min in the asymmetric dynamic mode (a zero scale)."),
    )


RMS_QUANT_TOLERANCE = Tolerance(k_rms=2.0, k_max=4.0, floor_ulps=0.0,
                                per_output=((1, Tolerance(k_rms=2.0, k_max=4.0, floor_ulps=2.0)),))
"""The float64 truth of the fused norm skips the working-dtype roundings inside the norm (the harness
hands the reference float64 tensors), so the native result is a few fp8 codes off it; a candidate
may be as far off, or twice as far in RMS (another reduction order, an approximate rsqrt). The
float32 scales (output 1) also allow a division's 2 ulps, as in SCALED_QUANT_TOLERANCE: the
reference solution's scales were 1.03x over the RMS bound without it (one seed in 16, interpreter)."""


def rms_norm_dynamic_per_token_quant_reference(input: torch.Tensor, weight: torch.Tensor, epsilon: float,
                                               quant_dtype: torch.dtype, scale_ub: torch.Tensor | None = None,
                                               residual: torch.Tensor | None = None
                                               ) -> tuple[torch.Tensor, torch.Tensor]:
    # the only floating quant dtype vLLM takes is e4m3fn (the float64 truth sees it as float64)
    out_dtype = FP8 if quant_dtype.is_floating_point else quant_dtype
    work = compute_dtype(input.dtype)
    hidden = input.shape[-1]
    x = input.reshape(-1, hidden).to(work)
    if residual is not None:
        x = x + residual.reshape(-1, hidden).to(work)
        residual.copy_(x.reshape(residual.shape))
    y = _normalize(x, weight, epsilon, input.dtype).to(work)  # vllm::rms_norm's numerics
    amax = y.abs().amax(dim=-1, keepdim=True)
    if scale_ub is not None:
        amax = torch.minimum(amax, scale_ub.to(work))
    scales = (amax / FP8_MAX).clamp(min=FP8_MIN_SCALE)
    out = _to_fp8(y / scales).to(out_dtype).reshape(input.shape)
    return out, scales


# [..., hidden]: odd hidden sizes, 3-d inputs, one token, an empty batch
RMS_QUANT_SHAPES: dict[str, list[tuple[int, ...]]] = {
    "small": [(1, 8), (7, 33), (5, 130), (4, 769), (2, 3, 64), (16, 256), (0, 64)],
    "large": [(4096, 4096), (83, 5125), (2048, 8192)],
    "perf": [(16384, 4096), (16384, 8192), (16384, 7168)],
}


def rms_norm_quant_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    grid = ([(shape, dtype) for shape in RMS_QUANT_SHAPES[size] for dtype in FLOATS] if size == "small"
            else [(shape, FLOATS[(i + 2) % 3]) for i, shape in enumerate(RMS_QUANT_SHAPES[size])])
    for i, (shape, dtype) in enumerate(grid):
        yield sample({
            "input": TensorSpec(shape, dtype),
            "weight": TensorSpec(shape[-1:], dtype, dist="uniform", low=0.5, high=1.5),
            "epsilon": 1e-6 if i // 3 % 2 else 1e-5,
            "quant_dtype": FP8,
            "scale_ub": FP8_SCALE_UB if i % 3 == 1 else None,
            "residual": TensorSpec(shape, dtype) if i % 2 == 0 else None,
        })


def rms_norm_dynamic_per_token_quant() -> Operator:
    return vllm_operator(
        "rms_norm_dynamic_per_token_quant", "quant",
        "RMSNorm (optionally after a residual add, written back) fused with dynamic per-token fp8 "
        "quantisation; returns (output, scales).",
        params=(
            Param("input", "Tensor"),
            Param("weight", "Tensor"),
            Param("epsilon", "float"),
            Param("quant_dtype", "ScalarType"),
            Param("scale_ub", "Tensor?", has_default=True),
            Param("residual", "Tensor!?", writes=True, has_default=True),
        ),
        signature=("rms_norm_dynamic_per_token_quant(input: torch.Tensor, weight: torch.Tensor, epsilon: float, "
                   "quant_dtype: torch.dtype, scale_ub: torch.Tensor | None = None, "
                   "residual: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]"),
        reference=rms_norm_dynamic_per_token_quant_reference,
        sampler=rms_norm_quant_sampler,
        tolerance=RMS_QUANT_TOLERANCE,
        ov_doc=("input [..., hidden] float32/float16/bfloat16 contiguous; weight [hidden] of its dtype; "
                "quant_dtype torch.float8_e4m3fn; scale_ub None or [1] float32; residual None or like input "
                "(contiguous). Per row, in float32: x = input (+ residual, not rounded; residual <- x rounded "
                "to the dtype); r = rsqrt(mean(x^2) + epsilon); y = round(round(x * r) * weight) in the dtype; "
                "s = max(min(max|y|, scale_ub) / 448, 1/(448*512)); output = e4m3fn(clamp(y / s, -448, 448)) "
                "(nearest even). Returns (output shaped like input, scales [num_tokens, 1] float32)."),
        notes=("vllm/_custom_ops.py rms_norm_dynamic_per_token_quant over csrc/quantization/fused_kernels/"
               "fused_layernorm_dynamic_per_token_quant.cu. Not drawn: quant_dtype torch.int8 (the harness "
               "compares int8 exactly, and an int8 code next to a rounding boundary legitimately depends on "
               "the last bit of the row's rms, i.e. on the reduction order and on rsqrt's rounding; vLLM's "
               "own int8 tests allow a difference of 1), non-contiguous inputs."),
    )


def convert_fp8_reference(output: torch.Tensor, input: torch.Tensor, scale: float = 1.0,
                          kv_dtype: str = "fp8") -> None:
    if input.dtype == torch.uint8:
        output.copy_(input.view(FP8).float() * scale)
        return
    x = input.float()
    output.copy_(_to_fp8(torch.div(x, torch.full_like(x, scale))).view(torch.uint8))


# paged caches: [num_blocks, block_size 16, kv_heads, head_size] (the flash layout) and the key
# cache's [num_blocks, kv_heads, head_size / x, block_size, x]; each case converts one way
CACHE_SHAPES: dict[str, list[tuple[int, ...]]] = {
    "small": [(3, 16, 2, 64), (2, 16, 1, 128), (4, 2, 8, 16, 8), (1, 16, 3, 80), (0, 16, 2, 64)],
    "large": [(1024, 16, 8, 128), (512, 8, 16, 16, 8), (777, 16, 4, 64)],
    "perf": [(4096, 16, 8, 128), (4096, 16, 8, 128)],
}
# x ~ N(0, 1): the smallest scales push values past 448, where the conversion saturates
CACHE_SCALES = (1.0, 0.05, 0.004, 2.5)


def convert_fp8_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    grid = ([(shape, dtype) for shape in CACHE_SHAPES[size] for dtype in FLOATS] if size == "small"
            else [(shape, FLOATS[(i + 2) % 3]) for i, shape in enumerate(CACHE_SHAPES[size])])
    for i, (shape, dtype) in enumerate(grid):
        quantise = i % 2 == 0  # each direction meets every dtype over the small grid
        yield sample({
            "output": OutputSpec(shape, torch.uint8 if quantise else dtype),
            # fp8 bytes: every code, NaN (0x7f, 0xff) included, which dequantises to NaN
            "input": (TensorSpec(shape, dtype) if quantise
                      else TensorSpec(shape, torch.uint8, dist="index", low=0, high=256)),
            "scale": CACHE_SCALES[i % len(CACHE_SCALES)],
            "kv_dtype": "fp8" if i % 3 else "fp8_e4m3",
        })


def convert_fp8() -> Operator:
    return vllm_operator(
        "convert_fp8", "quant",
        "Convert a KV cache to or from fp8 e4m3fn bytes with a scale, into a given buffer.",
        params=(
            Param("output", "Tensor!", writes=True),
            Param("input", "Tensor"),
            Param("scale", "float", has_default=True, default=1.0),
            Param("kv_dtype", "str", has_default=True, default="fp8"),
        ),
        signature=("convert_fp8(output: torch.Tensor, input: torch.Tensor, scale: float = 1.0, "
                   "kv_dtype: str = 'fp8') -> None"),
        reference=convert_fp8_reference,
        sampler=convert_fp8_sampler,
        ov_doc=("output and input: contiguous caches of one shape (any rank), kv_dtype 'fp8' or 'fp8_e4m3' "
                "(the same). Quantise (input float32/float16/bfloat16, output uint8): each byte is the "
                "e4m3fn code of float(x) / scale (float32 division), saturated to +-448 and rounded to "
                "nearest even. Dequantise (input uint8 e4m3fn codes, output float32/float16/bfloat16): "
                "float(code) * scale in float32, rounded to the output dtype; NaN codes give NaN. Writes "
                "output in place; returns None."),
        notes=("vllm/_custom_ops.py convert_fp8 over csrc/cache_kernels.cu. Not drawn: kv_dtype 'auto' "
               "(vLLM dispatches it to a float -> uint8 cast, vllm-project/vllm#8796), 'fp8_e5m2' (vLLM's "
               "convert_fp8 dispatches e4m3 only and raises), non-contiguous caches."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "convert_fp8": convert_fp8,
    "rms_norm_dynamic_per_token_quant": rms_norm_dynamic_per_token_quant,
    "scaled_fp8_quant": scaled_fp8_quant,
    "scaled_int8_quant": scaled_int8_quant,
}
