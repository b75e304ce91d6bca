"""Quantised GEMMs as vLLM 0.13 runs them: `cutlass_scaled_mm`, `cutlass_scaled_mm_azp`, the W4A8
helper `cutlass_pack_scale_fp8` and the Ampere W8A16 GEMM `allspark_w8a16_gemm`.

cutlass_scaled_mm (vllm/_custom_ops.py over csrc/quantization/w8a8/cutlass/scaled_mm_entry.cu and
c3x/scaled_mm_helper.hpp) computes (scale_a * a) @ (scale_b * b) + bias in the output dtype from
int8 or float8_e4m3fn operands: `a` [..., K] row-major (flattened to [M, K]), `b` [K, N] column-major
(stride(0) == 1). Which epilogue runs is read off the scale sizes: scale_a with 1 or M elements and
scale_b with 1 or N elements are per-tensor / per-token / per-channel (Epilogues.md: the float32
epilogue multiplies the exact int32, or float32, accumulator by both and adds the bias); any other
sizes are the block-wise fp8 path (c3x/scaled_mm_blockwise_sm90_fp8_dispatch.cuh), scale_a [M, K/128]
M-major (one scale per token and 128-wide K group) and scale_b [K/128, N/128] K-major (one per
128x128 block of b), each K group's partial product scaled before it is summed; it takes no bias.

cutlass_scaled_mm_azp (same entry file, Epilogues.md ScaledEpilogueBiasAzp / AzpPerToken) is int8
only, for activations quantised with a zero point: out = scale_a * scale_b * (a @ b - azp_adj) + bias
when azp is None (per-tensor: azp_adj [N] int32 holds azp * column sums of b), and
scale_a * scale_b * (a @ b - azp[:, None] * azp_adj[None, :]) + bias with a per-token azp [M] int32.

The references compute in float64 from the quantised operands and scales and round once to the
output dtype: the int8 accumulator is exact, and the float32 roundoff of the fp8 one and of the
epilogue is far below an fp16/bf16 ulp, so the native stand-in is the correctly rounded product.

cutlass_pack_scale_fp8 (csrc/quantization/cutlass_w4a8/w4a8_mm_entry.cu over CUTLASS's
mixed_dtype_utils `pack_scale_fp8` / `packed_scale_t`) expands every fp8 group scale s into the
eight fp8 values the W4A8 mainloop multiplies int4 codes with: e4m3(-8 s), e4m3(-7 s), ..., e4m3(-2 s),
-s, in that order (little-endian bytes of two packed words), as a new 1-D tensor of 8 * numel
elements; e4m3() is the float32 product rounded to nearest even and saturated to +-448 (CUTLASS's
satfinite conversion). Judged exactly.

allspark_w8a16_gemm (csrc/quantization/gptq_allspark/allspark_qgemm_w8a16.cu, with the layout of
allspark_repack.cu) multiplies fp16/bf16 activations a [M, K] by uint8 weights biased by 128, stored
in AllSpark's N32K16 order: b_qweight [N32, K] (N32 = n rounded up to 32) holds W[k, j] (0 <= k < K,
0 <= j < n) at flat byte R * 4K + C with R = (j // 32) * 8 + j % 8, t = j % 32, s = k % 16 and
C = 64 * (k // 16) + 8 * (2 * ((s % 8) // 2) + t // 16) + 4 * ((t // 8) % 2) + 2 * (s // 8) + s % 2;
b_scales (and b_qzeros) [1, N32] hold column j's value at 32 * (j // 32) + 4 * (j % 8) + t // 8.
vLLM dequantises in the working dtype, w = ((q - 128) - zero) * scale with each step rounded, and
accumulates in float32 (hmma, or cuBLAS above CUBLAS_M_THRESHOLD rows): the reference does the same
in the working dtype and exactly in float64.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import torch

from ..build import sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec, Tolerance
from .family import compute_dtype, vllm_operator

FP8 = torch.float8_e4m3fn
I8, I32, U8 = torch.int8, torch.int32, torch.uint8
F16, BF16 = torch.float16, torch.bfloat16
F64 = torch.float64
GROUP = 128  # the block-wise path's K group (and b's N group)

EXACT = Tolerance(k_rms=0.0, k_max=0.0, floor_ulps=0.0)
FP8_FAST_ACC_EPS = 2.0**-10
FP8_MM_TOLERANCE = Tolerance(k_rms=3.0, k_max=4.0, floor_ulps=1.0, abs_scale=True, acc_eps=FP8_FAST_ACC_EPS)
SCALED_MM_TOLERANCE = Tolerance(k_rms=3.0, k_max=4.0, floor_ulps=0.0,
                                by_input_dtype=((torch.float8_e4m3fn, FP8_MM_TOLERANCE),))
"""The native stand-in is the float64 product rounded once, so its error is the output's rounding.
An int8 accumulator is exact and float32 roundoff in the epilogue is a small fraction of an fp16 ulp,
so an int8 kernel is within a rounding or two of it (a truncating bf16 store included), while float32
scales rounded to bfloat16 (a precision downgrade) are not. fp8 cases also allow Hopper's fast FP8
accumulation, which vLLM's sm90 CUTLASS kernels use (KernelTmaWarpSpecialized*FP8FastAccum) and
Triton's fp8 tl.dot does by default on sm_90 (max_num_imprecise_acc 2^30): about 14 bits kept per
accumulation, measured on the H200 as a max error of 3x the fp16 rounding at K = 8192. The error
scale is |scale_a| |scale_b| |A| |B| (+ |bias|), with a unit roundoff of 2^-10 on it."""


def _operand(shape: tuple[int, ...], dtype: torch.dtype, layout: str, *, wide: bool) -> TensorSpec:
    """An int8 or e4m3 operand, drawn as the suite quantises: int8 codes over their whole range;
    fp8 from a float matrix rounded to e4m3 (normal values reach the subnormals, `wide` ones the
    top binades up to 448)."""
    if dtype == I8:
        return TensorSpec(shape, I8, layout, dist="index", low=-128, high=128)
    if wide:
        return TensorSpec(shape, FP8, layout, dist="uniform", low=-448.0, high=448.0)
    return TensorSpec(shape, FP8, layout)


def _scale(shape: tuple[int, ...], layout: str = "contiguous") -> TensorSpec:
    return TensorSpec(shape, torch.float32, layout, dist="uniform", low=0.002, high=0.02)


def _blockwise(a: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor, n: int) -> bool:
    """vLLM's dispatch: scales of 1 / M and 1 / N elements are the per-tensor/token/channel epilogue."""
    return not (scale_a.numel() in (1, a.shape[0]) and scale_b.numel() in (1, n))


def cutlass_scaled_mm_reference(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                                out_dtype: torch.dtype, bias: torch.Tensor | None = None) -> torch.Tensor:
    target = (*a.shape[:-1], b.shape[1])
    x, w = a.reshape(-1, a.shape[-1]).to(F64), b.to(F64)
    k, n = w.shape
    if _blockwise(x, scale_a, scale_b, n):
        sa = scale_a.to(F64).repeat_interleave(GROUP, dim=1)[:, :k]
        sb = scale_b.to(F64).repeat_interleave(GROUP, dim=0).repeat_interleave(GROUP, dim=1)[:k, :n]
        out = (x * sa) @ (w * sb)
    else:
        out = (x @ w) * scale_a.to(F64).reshape(-1, 1) * scale_b.to(F64).reshape(1, -1)
    if bias is not None:
        out = out + bias.to(F64)
    return out.to(out_dtype).reshape(target)


def cutlass_scaled_mm_azp_reference(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor,
                                    scale_b: torch.Tensor, out_dtype: torch.dtype, azp_adj: torch.Tensor,
                                    azp: torch.Tensor | None = None,
                                    bias: torch.Tensor | None = None) -> torch.Tensor:
    target = (*a.shape[:-1], b.shape[1])
    acc = a.reshape(-1, a.shape[-1]).to(F64) @ b.to(F64)
    adj = azp_adj.to(F64).reshape(1, -1)
    acc = acc - (adj if azp is None else azp.to(F64).reshape(-1, 1) * adj)
    out = acc * scale_a.to(F64).reshape(-1, 1) * scale_b.to(F64).reshape(1, -1)
    if bias is not None:
        out = out + bias.to(F64)
    return out.to(out_dtype).reshape(target)


PACK_MULTIPLIERS = (-8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0)


def cutlass_pack_scale_fp8_reference(scales: torch.Tensor) -> torch.Tensor:
    s = scales.reshape(-1, 1).float()  # the float64 truth sees exact e4m3 values: the same floats
    products = s * torch.tensor(PACK_MULTIPLIERS, dtype=torch.float32, device=s.device)
    packed = torch.cat([products.clamp(-448.0, 448.0), -s], dim=1)
    return packed.to(FP8).reshape(-1)


def n32k16_positions(k: int, n: int, device: torch.device | str | None = None) -> torch.Tensor:
    """[k, n] flat byte offsets of W[k, j] in AllSpark's N32K16 b_qweight (allspark_repack.cu)."""
    kk = torch.arange(k, device=device).reshape(-1, 1)
    j = torch.arange(n, device=device).reshape(1, -1)
    t, s = j % 32, kk % 16
    row = (j // 32) * 8 + j % 8
    col = 64 * (kk // 16) + 8 * (2 * ((s % 8) // 2) + t // 16) + 4 * ((t // 8) % 2) + 2 * (s // 8) + s % 2
    return row * (4 * k) + col


def n32k16_param_positions(n: int, device: torch.device | str | None = None) -> torch.Tensor:
    """[n] offsets of column j's scale (and zero) in the reordered [1, N32] vectors."""
    j = torch.arange(n, device=device)
    return 32 * (j // 32) + 4 * (j % 8) + (j % 32) // 8


def allspark_w8a16_gemm_reference(a: torch.Tensor, b_qweight: torch.Tensor, b_scales: torch.Tensor,
                                  b_qzeros: torch.Tensor | None, n: int, group_size: int, sm_count: int,
                                  sm_version: int, CUBLAS_M_THRESHOLD: int, has_zp: bool,  # noqa: N803
                                  n32k16_reorder: bool) -> torch.Tensor:
    k = a.shape[1]
    q = b_qweight.reshape(-1)[n32k16_positions(k, n, a.device)].to(torch.int32) - 128
    cols = n32k16_param_positions(n, a.device)
    w = q.to(a.dtype)  # exact: |q - 128| <= 128
    if has_zp:
        w = w - b_qzeros.reshape(-1)[cols]
    w = w * b_scales.reshape(-1)[cols]
    work = compute_dtype(a.dtype)
    return (a.to(work) @ w.to(work)).to(a.dtype)


# ---- cutlass_scaled_mm ---------------------------------------------------------------------------

# (a shape, N, operand dtype, out dtype, scale_a kind, scale_b kind, bias): K, N multiples of 16
# (vLLM's CUTLASS path; other shapes fall back to a Triton kernel of the same semantics); kinds:
# "tensor" [1], "token" [M, 1], "channel" [1, N] or "channel_col" [N, 1], "block" (the block-wise path).
MM_GRID: dict[str, list[tuple[tuple[int, ...], int, torch.dtype, torch.dtype, str, str, bool]]] = {
    "small": [
        ((1, 32), 16, I8, F16, "tensor", "tensor", False),
        ((7, 48), 32, I8, BF16, "token", "channel", True),
        ((33, 64), 48, I8, F16, "token", "tensor", True),
        ((5, 16), 64, I8, BF16, "tensor", "channel_col", False),
        ((2, 3, 32), 16, I8, F16, "token", "channel", False),
        ((1, 64), 32, FP8, BF16, "tensor", "tensor", True),
        ((9, 96), 16, FP8, F16, "token", "channel_col", False),
        ((17, 32), 80, FP8, BF16, "token", "channel", True),
        ((2, 3, 48), 32, FP8, F16, "token", "tensor", False),
        ((4, 128), 48, FP8, F16, "tensor", "channel", True),
        ((5, 256), 256, FP8, BF16, "block", "block", False),
        ((19, 384), 128, FP8, F16, "block", "block", False),
        ((1, 256), 384, FP8, BF16, "block", "block", False),
    ],
    "large": [
        ((333, 4096), 4096, I8, BF16, "token", "channel", True),
        ((64, 8192), 1024, FP8, F16, "tensor", "tensor", False),
        ((1000, 1024), 7168, FP8, BF16, "block", "block", False),
    ],
    # Llama-3-8B / 70B projections (qkv, o, gate_up, down) at decode batches and a 2048-token prefill
    "perf": [
        ((1, 4096), 6144, FP8, BF16, "tensor", "tensor", False),
        ((16, 8192), 10240, I8, F16, "token", "channel_col", False),
        ((256, 4096), 28672, FP8, BF16, "token", "channel", True),
        ((2048, 14336), 4096, FP8, BF16, "block", "block", False),
        ((2048, 8192), 8192, I8, BF16, "token", "channel", False),
    ],
}


def _scale_a(kind: str, m: int, k: int) -> TensorSpec:
    if kind == "block":  # M-major, as per_token_group_quant makes it for CUTLASS
        return _scale((m, k // GROUP), "transposed")
    return _scale((m, 1) if kind == "token" else (1,))


def _scale_b(kind: str, k: int, n: int) -> TensorSpec:
    if kind == "block":  # the transpose of a [N/128, K/128] weight scale
        return _scale((k // GROUP, n // GROUP), "transposed")
    return _scale({"tensor": (1,), "channel": (1, n), "channel_col": (n, 1)}[kind])


def cutlass_scaled_mm_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for i, (a_shape, n, dtype, out_dtype, sa, sb, bias) in enumerate(MM_GRID[size]):
        m, k = 1, a_shape[-1]
        for d in a_shape[:-1]:
            m *= d
        yield sample({
            "a": _operand(a_shape, dtype, "contiguous", wide=i % 2 == 0),
            "b": _operand((k, n), dtype, "transposed", wide=i % 2 == 1),  # column-major [K, N]
            "scale_a": _scale_a(sa, m, k),
            "scale_b": _scale_b(sb, k, n),
            "out_dtype": out_dtype,
            "bias": TensorSpec((n,), out_dtype) if bias else None,
        })


def cutlass_scaled_mm() -> Operator:
    return vllm_operator(
        "cutlass_scaled_mm", "gemm",
        "int8 / fp8 GEMM with per-tensor, per-token, per-channel or 128-block scales and an optional bias; "
        "returns the fp16/bf16 product.",
        params=(
            Param("a", "Tensor"),
            Param("b", "Tensor"),
            Param("scale_a", "Tensor"),
            Param("scale_b", "Tensor"),
            Param("out_dtype", "ScalarType"),
            Param("bias", "Tensor?", has_default=True),
        ),
        signature=("cutlass_scaled_mm(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, "
                   "scale_b: torch.Tensor, out_dtype: torch.dtype, bias: torch.Tensor | None = None) "
                   "-> torch.Tensor"),
        reference=cutlass_scaled_mm_reference,
        sampler=cutlass_scaled_mm_sampler,
        tolerance=SCALED_MM_TOLERANCE,
        ov_doc=("a [..., K] contiguous and b [K, N] column-major (b.stride(0) == 1, b.stride(1) == K), both "
                "int8 or both torch.float8_e4m3fn; K and N multiples of 16; out_dtype torch.float16 or "
                "torch.bfloat16; bias None or [N] of out_dtype. With A = a viewed as [M, K], when scale_a "
                "(float32, contiguous) has 1 or M elements and scale_b has 1 or N elements: out[m, n] = "
                "scale_a[m or 0] * scale_b[n or 0] * sum_k A[m, k] * b[k, n] + bias[n]. Otherwise (fp8 "
                "only, no bias, K and N multiples of 128) block-wise: scale_a [M, K/128] with stride(0) == 1 "
                "and scale_b [K/128, N/128] with stride(0) == 1, out[m, n] = sum_k A[m, k] * "
                "scale_a[m, k // 128] * b[k, n] * scale_b[k // 128, n // 128]. Products accumulate "
                "exactly (int8, in int32) or in float32 (fp8), the scaling is float32, rounded once to "
                "out_dtype. Returns a new contiguous tensor [..., N] (a's leading dims)."),
        notes=("vllm/_custom_ops.py cutlass_scaled_mm over csrc/quantization/w8a8/cutlass/scaled_mm_entry.cu, "
               "c3x/scaled_mm_helper.hpp, Epilogues.md and c3x/scaled_mm_blockwise_sm90_fp8_dispatch.cuh. "
               "Not drawn: K or N not a multiple of 16 (vLLM then calls its Triton fallback), an empty "
               "batch (M = 0), a non-contiguous a or a row-major b (vLLM raises), bias with block-wise "
               "scales (vLLM raises), block-wise scales with K = 128 (scale_a then has M elements and "
               "vLLM reads it as per-token), int8 with block-wise scales (fp8 only)."),
    )


# ---- cutlass_scaled_mm_azp -----------------------------------------------------------------------

# (a shape, N, out dtype, scale_a kind, scale_b kind, per-token azp, bias)
AZP_GRID: dict[str, list[tuple[tuple[int, ...], int, torch.dtype, str, str, bool, bool]]] = {
    "small": [
        ((1, 32), 16, F16, "tensor", "tensor", False, False),
        ((7, 48), 32, BF16, "token", "channel_col", True, True),
        ((33, 64), 48, F16, "token", "channel", False, True),
        ((5, 16), 64, BF16, "tensor", "tensor", True, False),
        ((2, 3, 32), 16, F16, "token", "channel", True, False),
        ((17, 96), 80, BF16, "tensor", "channel", False, True),
        ((8, 128), 32, F16, "token", "tensor", True, True),
    ],
    "large": [
        ((333, 4096), 4096, BF16, "token", "channel", True, True),
        ((64, 8192), 1024, F16, "tensor", "tensor", False, False),
    ],
    "perf": [
        ((16, 4096), 6144, BF16, "token", "channel", True, False),
        ((256, 8192), 8192, F16, "tensor", "channel", False, True),
        ((2048, 4096), 14336, BF16, "token", "channel", True, True),
    ],
}


def cutlass_scaled_mm_azp_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for a_shape, n, out_dtype, sa, sb, per_token, bias in AZP_GRID[size]:
        m, k = 1, a_shape[-1]
        for d in a_shape[:-1]:
            m *= d
        # azp_adj: column sums of b (per token), or azp times them (per tensor), in magnitude
        bound = 128 * k if per_token else 128 * 128 * k
        yield sample({
            "a": _operand(a_shape, I8, "contiguous", wide=True),
            "b": _operand((k, n), I8, "transposed", wide=True),
            "scale_a": _scale_a(sa, m, k),
            "scale_b": _scale_b(sb, k, n),
            "out_dtype": out_dtype,
            "azp_adj": TensorSpec((n,), I32, dist="index", low=-bound, high=bound),
            "azp": TensorSpec((m,), I32, dist="index", low=-128, high=128) if per_token else None,
            "bias": TensorSpec((n,), out_dtype) if bias else None,
        })


def cutlass_scaled_mm_azp() -> Operator:
    return vllm_operator(
        "cutlass_scaled_mm_azp", "gemm",
        "int8 GEMM for activations quantised with a zero point (per tensor, folded into azp_adj, or per "
        "token), scaled, with an optional bias; returns the fp16/bf16 product.",
        params=(
            Param("a", "Tensor"),
            Param("b", "Tensor"),
            Param("scale_a", "Tensor"),
            Param("scale_b", "Tensor"),
            Param("out_dtype", "ScalarType"),
            Param("azp_adj", "Tensor"),
            Param("azp", "Tensor?", has_default=True),
            Param("bias", "Tensor?", has_default=True),
        ),
        signature=("cutlass_scaled_mm_azp(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, "
                   "scale_b: torch.Tensor, out_dtype: torch.dtype, azp_adj: torch.Tensor, "
                   "azp: torch.Tensor | None = None, bias: torch.Tensor | None = None) -> torch.Tensor"),
        reference=cutlass_scaled_mm_azp_reference,
        sampler=cutlass_scaled_mm_azp_sampler,
        tolerance=SCALED_MM_TOLERANCE,
        ov_doc=("a [..., K] int8 contiguous, b [K, N] int8 column-major (b.stride(0) == 1); K, N multiples of "
                "16; scale_a float32 with 1 or M elements (A = a viewed as [M, K]), scale_b float32 with 1 or "
                "N elements, both contiguous; azp_adj [N] int32; azp None or [M] int32; bias None or [N] of "
                "out_dtype (torch.float16 or torch.bfloat16). With D = A @ b (exact, int32): out[m, n] = "
                "scale_a[m or 0] * scale_b[n or 0] * (D[m, n] - azp_adj[n]) + bias[n] when azp is None, and "
                "scale_a[m or 0] * scale_b[n or 0] * (D[m, n] - azp[m] * azp_adj[n]) + bias[n] otherwise; "
                "float32 epilogue, rounded once to out_dtype. Returns a new contiguous tensor [..., N]."),
        notes=("vllm/_custom_ops.py cutlass_scaled_mm_azp over csrc/quantization/w8a8/cutlass/scaled_mm_entry.cu "
               "and Epilogues.md (ScaledEpilogueBiasAzp, ScaledEpilogueBiasAzpToken). azp_adj is an input "
               "(vLLM's caller precomputes it from b), drawn at the magnitude of column sums. Not drawn: fp8 "
               "operands and block-wise scales (int8 only), K or N not a multiple of 16 (vLLM asserts), an "
               "empty batch, non-contiguous a or scales (vLLM raises)."),
    )


# ---- cutlass_pack_scale_fp8 ----------------------------------------------------------------------

# W4A8 group scales [K / 128, N] (contiguous, any rank to the op); the ranges put s * 8 past 448
# (saturation), keep it inside, or push the small multiples into the e4m3 subnormals
PACK_GRID: dict[str, list[tuple[tuple[int, ...], float, float]]] = {
    "small": [((1, 1), 0.5, 2.0), ((2, 16), 0.002, 0.05), ((3, 48), 1.0, 448.0), ((8, 7), -56.0, 56.0),
              ((5,), 20.0, 200.0), ((4, 2, 24), 0.01, 60.0), ((0, 16), 0.5, 2.0)],
    "large": [((32, 4096), 0.01, 448.0), ((112, 7168), 0.01, 60.0)],
    "perf": [((224, 8192), 0.01, 448.0), ((64, 57344), 0.01, 60.0), ((32, 28672), 0.01, 448.0)],
}


def cutlass_pack_scale_fp8_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for shape, low, high in PACK_GRID[size]:
        yield sample({"scales": TensorSpec(shape, FP8, dist="uniform", low=low, high=high)})


def cutlass_pack_scale_fp8() -> Operator:
    return vllm_operator(
        "cutlass_pack_scale_fp8", "gemm",
        "Expand each fp8 W4A8 group scale into the 8 fp8 multiples the CUTLASS mixed-input mainloop reads.",
        params=(Param("scales", "Tensor"),),
        signature="cutlass_pack_scale_fp8(scales: torch.Tensor) -> torch.Tensor",
        reference=cutlass_pack_scale_fp8_reference,
        sampler=cutlass_pack_scale_fp8_sampler,
        tolerance=EXACT,
        ov_doc=("scales: contiguous torch.float8_e4m3fn, any shape. Returns a new 1-D float8_e4m3fn tensor of "
                "8 * scales.numel() elements: for the i-th scale s (flat order) and j = 0..6, out[8 i + j] = "
                "e4m3(float(s) * -(8 - j)), and out[8 i + 7] = -s; e4m3(v) rounds the float32 v to nearest "
                "(ties to even) after clamping it to [-448, 448] (satfinite). Compared exactly."),
        notes=("vllm/_custom_ops.py cutlass_pack_scale_fp8 over csrc/quantization/cutlass_w4a8/w4a8_mm_entry.cu "
               "(CUTLASS mixed_dtype_utils.hpp pack_scale_fp8, packed_scale_t: pack4 puts its first value in the "
               "low byte). vLLM's register_fake says empty_like(scales); the kernel returns numel * 8 elements, "
               "as specified here. Not drawn: NaN scales, non-contiguous scales (vLLM raises)."),
    )


# ---- allspark_w8a16_gemm -------------------------------------------------------------------------

# (M, K, n, dtype, has_zp): K and n multiples of 16 (ALLSPARK_AMPERE_K_ALIGN / N_ALIGN); some n not
# multiples of 32, so b_qweight has padding rows; M on both sides of CUBLAS_M_THRESHOLD in perf
AS_GRID: dict[str, list[tuple[int, int, int, torch.dtype, bool]]] = {
    "small": [(1, 16, 16, F16, False), (7, 64, 48, BF16, True), (33, 128, 96, F16, True),
              (16, 48, 32, BF16, False), (3, 80, 64, BF16, True), (9, 32, 80, F16, False)],
    "large": [(333, 4096, 4096, F16, False), (1500, 4096, 1024, BF16, True)],
    "perf": [(1, 4096, 6144, F16, False), (16, 8192, 10240, BF16, False), (256, 4096, 28672, F16, False),
             (2048, 4096, 4096, BF16, False)],
}
AMPERE_SM_COUNT, AMPERE_SM_VERSION, CUBLAS_M_THRESHOLD = 108, 80, 1024


def allspark_w8a16_gemm_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for m, k, n, dtype, has_zp in AS_GRID[size]:
        n32 = (n + 31) // 32 * 32
        yield sample({
            "a": TensorSpec((m, k), dtype),
            "b_qweight": TensorSpec((n32, k), U8, dist="index", low=0, high=256),
            "b_scales": TensorSpec((1, n32), dtype, dist="uniform", low=0.002, high=0.02),
            "b_qzeros": TensorSpec((1, n32), dtype, dist="uniform", low=-8.0, high=8.0) if has_zp else None,
            "n": n,
            "group_size": -1,
            "sm_count": AMPERE_SM_COUNT,
            "sm_version": AMPERE_SM_VERSION,
            "CUBLAS_M_THRESHOLD": CUBLAS_M_THRESHOLD,
            "has_zp": has_zp,
            "n32k16_reorder": True,
        })


def allspark_w8a16_gemm() -> Operator:
    return vllm_operator(
        "allspark_w8a16_gemm", "gemm",
        "fp16/bf16 activations times per-channel uint8 weights (bias 128, optional zero points) in AllSpark's "
        "N32K16 layout; returns the product.",
        params=(
            Param("a", "Tensor"),
            Param("b_qweight", "Tensor"),
            Param("b_scales", "Tensor"),
            Param("b_qzeros", "Tensor?"),
            Param("n", "int"),
            Param("group_size", "int"),
            Param("sm_count", "int"),
            Param("sm_version", "int"),
            Param("CUBLAS_M_THRESHOLD", "int"),
            Param("has_zp", "bool"),
            Param("n32k16_reorder", "bool"),
        ),
        signature=("allspark_w8a16_gemm(a: torch.Tensor, b_qweight: torch.Tensor, b_scales: torch.Tensor, "
                   "b_qzeros: torch.Tensor | None, n: int, group_size: int, sm_count: int, sm_version: int, "
                   "CUBLAS_M_THRESHOLD: int, has_zp: bool, n32k16_reorder: bool) -> torch.Tensor"),
        reference=allspark_w8a16_gemm_reference,
        sampler=allspark_w8a16_gemm_sampler,
        ov_doc=("a [M, K] float16/bfloat16 contiguous, K a multiple of 16; n a multiple of 16, N32 = n rounded up "
                "to 32; b_qweight [N32, K] uint8 contiguous in AllSpark's N32K16 order: weight code q[k, j] "
                "(0 <= j < n) is the byte at flat offset R * 4K + C, R = (j // 32) * 8 + j % 8, with t = j % 32, "
                "s = k % 16: C = 64 * (k // 16) + 8 * (2 * ((s % 8) // 2) + t // 16) + 4 * ((t // 8) % 2) "
                "+ 2 * (s // 8) + s % 2; b_scales [1, N32] of a's dtype and, when has_zp, b_qzeros [1, N32] "
                "(else None): column j's value at flat index 32 * (j // 32) + 4 * (j % 8) + t // 8. "
                "W[k, j] = ((q - 128) - zero[j]) * scale[j] (zero 0 without has_zp; vLLM rounds each step to "
                "a's dtype), out = a @ W accumulated in float32, returned as a new [M, n] tensor of a's dtype. "
                "group_size is -1 (per channel); sm_count, sm_version and CUBLAS_M_THRESHOLD only tune "
                "vLLM's kernel choice; n32k16_reorder is True."),
        notes=("vllm/_custom_ops.py allspark_w8a16_gemm over csrc/quantization/gptq_allspark/"
               "allspark_qgemm_w8a16.cu; the layout is that of allspark_repack.cu (rearrange_kn_weight_as_n32k16_"
               "order), so any bytes are a valid reordered weight and the padding rows are never read. Not "
               "drawn: group_size other than -1 (vLLM raises), n32k16_reorder False (the kernel reads the "
               "N32K16 order whatever the flag says), K or n not a multiple of 16."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "cutlass_scaled_mm": cutlass_scaled_mm,
    "cutlass_scaled_mm_azp": cutlass_scaled_mm_azp,
    "cutlass_pack_scale_fp8": cutlass_pack_scale_fp8,
    "allspark_w8a16_gemm": allspark_w8a16_gemm,
}
