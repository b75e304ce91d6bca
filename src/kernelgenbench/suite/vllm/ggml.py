"""GGUF (GGML block-quantized) weights as vLLM 0.13 runs them: `ggml_dequantize`, `ggml_mul_mat_vec_a8`,
`ggml_mul_mat_a8`, `ggml_moe_a8_vec`, `ggml_moe_a8`.

Semantics from vLLM's csrc/quantization/gguf/gguf_kernel.cu (the five entry points), dequantize.cuh,
vecdotq.cuh, mmvq.cuh, mmq.cuh, moe_vec.cuh and moe.cuh, vllm/_custom_ops.py (signatures; `quant_type` is the
GGML type id) and vllm/model_executor/layers/quantization/gguf.py (which calls which op).

- The weight is uint8 GGML blocks, read flat; the suite packs them itself from a normal float
  weight (`ggml_formats.pack`), for Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K and Q6_K.
- ggml_dequantize(W, type, m, n, dtype) decodes the first m * n values into an [m, n] tensor of
  `dtype` (float16 when None). vLLM decodes in float16 arithmetic (one rounding per operation);
  the native stand-in does the same, the truth is exact.
- The a8 ops quantize each activation row to q8_1 inside the op (per 32 values: d = amax / 127 in
  float32, q = roundf(x / d), d stored as fp16) and take integer dot products with the weight
  quants. That rounding is an approximation vLLM makes, not a result anyone asks for (vLLM's own
  tests compare with x @ dequantize(W).T), so the truth is the float64 product of the dequantized
  weight and the unrounded activations; the native stand-in emulates the q8_1 activations (float32
  product of the dequantized weight and q * fp16(d)), so its error, mostly that rounding (about
  0.5% of the output's RMS), calibrates the tolerance. A candidate may quantize the activations the
  same way or not at all; a wrong decode is off by the weight's own size.
- ggml_moe_a8_vec: output row z (z < tokens * top_k) = W[topk_ids.flat[z]] @ X[z // top_k]; the
  caller's second call passes top_k=1 with tokens = num_tokens * top_k.
- ggml_moe_a8 (moe.cuh): the same product, routed by moe_align_block_size's outputs for block size
  MOE_X = 4 (`ggml_moe_get_block_size`, every type on CUDA). Slot s of sorted_token_ids belongs to
  block s // 4, whose expert is expert_ids[s // 4]; a slot holding z < tokens * top_k writes output
  row z = W[expert] @ X[z // top_k]; padding slots (holding tokens * top_k) write nothing, and blocks
  that start past num_tokens_post_padded[0] are skipped. The launch covers S // 4 blocks (S =
  sorted_token_ids' length). The three routing tensors are drawn jointly from one hidden topk_ids
  (`moe.moe_align_block_size_reference`), so every row is written exactly once, as in vLLM's caller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import sample
from ..spec import Joint, Operator, Overload, Param, Sample, Size, TensorSpec, Tolerance
from .family import vllm_operator
from .ggml_formats import BY_NAME, TYPES, dequantize, packed_weight, row_bytes
from .moe import Align, moe_align_block_size_reference

f16, bf16, f32, i32 = torch.float16, torch.bfloat16, torch.float32, torch.int32

# the native error is the q8_1 activation rounding; a decode mistake is far larger
A8_TOLERANCE = Tolerance(k_rms=2.0, k_max=3.0)
NOTES = ("Types drawn: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q6_K (the IQ and Q2_K/Q3_K/Q5_K formats "
         "are not packed by the suite). Empty inputs are not drawn (vLLM's caller returns early on "
         "zero tokens; the kernels would launch empty grids).")
A8_NOTES = NOTES + (" Activations are float16/bfloat16 only: vLLM also takes float32, but its 8-bit activation "
                    "rounding is coarser than bfloat16's, so no tolerance that admits vLLM's own result could "
                    "reject a bfloat16 downgrade of a float32 case.")


def _truth() -> bool:
    """The reference runs as the float64 truth (the harness sets float64 as the default dtype)."""
    return torch.get_default_dtype() == torch.float64


def _weight(qtype: int, shape: tuple[int, ...]) -> TensorSpec:
    """GGML blocks of a normal weight [..., cols], as uint8 [..., bytes]."""
    *lead, cols = shape
    packed = (*lead, row_bytes(qtype, cols))
    make = packed_weight(qtype)
    return Joint(packed, torch.uint8, (), lambda gen: make(packed, gen),
                 f"{TYPES[qtype].name} blocks of a normal {list(shape)} weight")


def _q8_1(x: torch.Tensor) -> torch.Tensor:
    """x as vLLM's quantize_q8_1 leaves it: per 32 values q * fp16(amax / 127), in float32."""
    xf = x.to(f32).reshape(*x.shape[:-1], -1, 32)
    d = xf.abs().amax(-1, keepdim=True) / 127
    q = xf / torch.where(d > 0, d, 1.0)
    q = torch.sign(q) * torch.floor(q.abs() + 0.5)
    return (q * d.to(f16).to(f32)).reshape(x.shape)


def _decoded(w: torch.Tensor, qtype: int, shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    work = torch.float64 if like.dtype == torch.float64 else f32
    count = 1
    for s in shape:
        count *= s
    return dequantize(w, qtype, count, work).reshape(shape)


def _activations(x: torch.Tensor) -> torch.Tensor:
    return x if x.dtype == torch.float64 else _q8_1(x)


# ----------------------------------------------------------------------------------- dequantize

def ggml_dequantize_reference(W: torch.Tensor, quant_type: int, m: int, n: int,
                              dtype: torch.dtype | None = None) -> torch.Tensor:
    if _truth():
        return dequantize(W, quant_type, m * n, torch.float64).reshape(m, n)
    return dequantize(W, quant_type, m * n, f16).reshape(m, n).to(dtype or f16)


@dataclass(frozen=True)
class Deq:
    """A weight [rows, cols] of `kind`; `flat` asks for it as vLLM's embedding path does: m = cols
    (the hidden size), n = rows (the gathered tokens), so the [m, n] result is the flat values."""

    kind: str
    rows: int
    cols: int
    dtype: torch.dtype | None
    flat: bool = False

    def values(self) -> dict[str, object]:
        qtype = BY_NAME[self.kind]
        m, n = (self.cols, self.rows) if self.flat else (self.rows, self.cols)
        return {"W": _weight(qtype, (self.rows, self.cols)), "quant_type": qtype, "m": m, "n": n,
                "dtype": self.dtype}


DEQS: dict[str, list[Deq]] = {
    "small": [
        Deq("Q4_0", 8, 64, f16), Deq("Q4_1", 5, 96, bf16), Deq("Q5_0", 3, 160, f32),
        Deq("Q5_1", 7, 32, None), Deq("Q8_0", 4, 128, bf16), Deq("Q4_K", 3, 256, f16),
        Deq("Q6_K", 2, 512, f32), Deq("Q6_K", 3, 256, bf16, True), Deq("Q4_K", 2, 512, None, True),
    ],
    "large": [
        Deq("Q4_K", 4096, 4096, f16), Deq("Q6_K", 2048, 4096, bf16), Deq("Q8_0", 1024, 4096, f32),
        Deq("Q4_0", 4096, 4096, f16), Deq("Q5_1", 3072, 1024, bf16), Deq("Q6_K", 37, 4096, f16, True),
    ],
    "perf": [Deq("Q4_K", 14336, 4096, f16), Deq("Q6_K", 4096, 14336, bf16), Deq("Q8_0", 4096, 4096, f16)],
}


def ggml_dequantize_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for d in DEQS[size]:
        yield sample(d.values())


def ggml_dequantize() -> Operator:
    return vllm_operator(
        "ggml_dequantize", "ggml",
        "Decode GGML block-quantized weights (GGUF) into a dense [m, n] tensor.",
        params=(
            Param("W", "Tensor"),
            Param("quant_type", "int"),
            Param("m", "int"),
            Param("n", "int"),
            Param("dtype", "ScalarType?", has_default=True, default=None),
        ),
        signature=("ggml_dequantize(W: torch.Tensor, quant_type: int, m: int, n: int, "
                   "dtype: torch.dtype | None = None) -> torch.Tensor"),
        reference=ggml_dequantize_reference,
        sampler=ggml_dequantize_sampler,
        ov_doc=("W: uint8 GGML blocks of type `quant_type` (2 Q4_0, 3 Q4_1, 6 Q5_0, 7 Q5_1, 8 Q8_0, 12 Q4_K, "
                "14 Q6_K; layouts of ggml-common.h), contiguous, read flat. Returns a new contiguous [m, n] "
                "tensor of `dtype` (float16 when None) holding the first m * n decoded values in order."),
        notes=NOTES,
    )


# --------------------------------------------------------------------------------- dense matmuls

def ggml_mul_mat_vec_a8_reference(W: torch.Tensor, X: torch.Tensor, quant_type: int, row: int) -> torch.Tensor:
    w = _decoded(W, quant_type, (row, X.shape[-1]), X)
    return (_activations(X) @ w.T).to(X.dtype)


ggml_mul_mat_a8_reference = ggml_mul_mat_vec_a8_reference


@dataclass(frozen=True)
class Mm:
    """Activations X [*lead, cols] against a weight [row, cols] of `kind`."""

    kind: str
    lead: tuple[int, ...]
    row: int
    cols: int
    dtype: torch.dtype

    def values(self) -> dict[str, object]:
        qtype = BY_NAME[self.kind]
        return {"W": _weight(qtype, (self.row, self.cols)), "X": TensorSpec((*self.lead, self.cols), self.dtype),
                "quant_type": qtype, "row": self.row}


VECS: dict[str, list[Mm]] = {
    "small": [
        Mm("Q4_0", (1,), 33, 64, f16), Mm("Q4_1", (2,), 16, 96, bf16), Mm("Q5_0", (1,), 24, 160, f16),
        Mm("Q5_1", (3,), 8, 128, f16), Mm("Q8_0", (1,), 40, 64, bf16), Mm("Q4_K", (2,), 17, 256, f16),
        Mm("Q6_K", (1,), 9, 512, f16), Mm("Q4_K", (6,), 5, 256, bf16),
    ],
    "large": [
        Mm("Q4_K", (1,), 4096, 4096, f16), Mm("Q6_K", (2,), 4096, 14336, bf16), Mm("Q8_0", (4,), 1024, 4096, f16),
        Mm("Q4_0", (1,), 14336, 4096, f16), Mm("Q5_0", (6,), 2048, 2048, bf16),
    ],
    "perf": [
        Mm("Q4_K", (1,), 14336, 4096, f16), Mm("Q6_K", (1,), 4096, 14336, bf16), Mm("Q8_0", (2,), 4096, 4096, f16),
    ],
}

MMS: dict[str, list[Mm]] = {
    "small": [
        Mm("Q4_0", (7,), 24, 64, f16), Mm("Q4_1", (9,), 16, 96, bf16), Mm("Q5_0", (2, 5), 8, 64, f16),
        Mm("Q5_1", (17,), 8, 128, f16), Mm("Q8_0", (3, 4), 12, 64, bf16), Mm("Q4_K", (11,), 9, 256, f16),
        Mm("Q6_K", (5,), 7, 512, f16), Mm("Q4_K", (2, 3), 5, 256, bf16),
    ],
    "large": [
        Mm("Q4_K", (512,), 4096, 4096, bf16), Mm("Q6_K", (256,), 4096, 4096, f16),
        Mm("Q8_0", (4, 128), 1024, 4096, f16), Mm("Q4_0", (300,), 2048, 2048, f16),
    ],
    "perf": [
        Mm("Q4_K", (2048,), 4096, 4096, bf16), Mm("Q6_K", (1024,), 14336, 4096, f16),
        Mm("Q8_0", (4096,), 4096, 4096, bf16),
    ],
}


def ggml_mul_mat_vec_a8_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for m in VECS[size]:
        yield sample(m.values())


def ggml_mul_mat_a8_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for m in MMS[size]:
        yield sample(m.values())


_MM_PARAMS = (Param("W", "Tensor"), Param("X", "Tensor"), Param("quant_type", "int"), Param("row", "int"))


def ggml_mul_mat_vec_a8() -> Operator:
    return vllm_operator(
        "ggml_mul_mat_vec_a8", "ggml",
        "GEMV of a few activation rows with a GGML block-quantized weight (vLLM's MMVQ path), "
        "activations quantized to 8 bits inside.",
        params=_MM_PARAMS,
        signature="ggml_mul_mat_vec_a8(W: torch.Tensor, X: torch.Tensor, quant_type: int, row: int) -> torch.Tensor",
        reference=ggml_mul_mat_vec_a8_reference,
        sampler=ggml_mul_mat_vec_a8_sampler,
        ov_doc=("W: uint8 [row, cols / block * bytes] GGML blocks of type `quant_type` (2 Q4_0, 3 Q4_1, 6 Q5_0, "
                "7 Q5_1, 8 Q8_0, 12 Q4_K, 14 Q6_K); X: [vecs, cols] contiguous float16/bfloat16, vecs "
                "<= 8. Returns a new [vecs, row] tensor of X's dtype: X @ dequantize(W).T. vLLM quantizes X "
                "to q8_1 (int8 per 32 values, fp16 scale) first; that rounding is allowed, not required."),
        tolerance=A8_TOLERANCE,
        notes=A8_NOTES,
    )


def ggml_mul_mat_a8() -> Operator:
    return vllm_operator(
        "ggml_mul_mat_a8", "ggml",
        "Matmul of activations with a GGML block-quantized weight (vLLM's MMQ path), activations "
        "quantized to 8 bits inside.",
        params=_MM_PARAMS,
        signature="ggml_mul_mat_a8(W: torch.Tensor, X: torch.Tensor, quant_type: int, row: int) -> torch.Tensor",
        reference=ggml_mul_mat_a8_reference,
        sampler=ggml_mul_mat_a8_sampler,
        ov_doc=("W: uint8 [row, cols / block * bytes] GGML blocks of type `quant_type` (2 Q4_0, 3 Q4_1, 6 Q5_0, "
                "7 Q5_1, 8 Q8_0, 12 Q4_K, 14 Q6_K); X: [tokens, cols] or [batch, tokens, cols], contiguous "
                "float16/bfloat16. Returns a new [..., row] tensor of X's dtype: X @ dequantize(W).T. "
                "vLLM quantizes X to q8_1 (int8 per 32 values, fp16 scale) first; that rounding is allowed, "
                "not required."),
        tolerance=A8_TOLERANCE,
        notes=A8_NOTES,
    )


# ------------------------------------------------------------------------------------ MoE GEMV

def ggml_moe_a8_vec_reference(X: torch.Tensor, W: torch.Tensor, topk_ids: torch.Tensor, top_k: int,
                              quant_type: int, row: int, tokens: int) -> torch.Tensor:
    experts, cols = W.shape[0], X.shape[1]
    w = _decoded(W, quant_type, (experts, row, cols), X)
    x = _activations(X[:tokens])
    every = torch.einsum("tc,erc->ter", x, w)  # fixed shapes: the large cases also run on meta
    slots = torch.arange(tokens * top_k, device=X.device)
    ids = topk_ids.reshape(-1)[: tokens * top_k].to(torch.int64)
    return every[slots // top_k, ids].to(X.dtype)


@dataclass(frozen=True)
class MoeVec:
    """tokens x top_k routed over `experts` weights [row, cols]; `second` is the caller's second
    call: X has tokens * top_k rows (one per routed slot), passed with top_k=1."""

    kind: str
    tokens: int
    top_k: int
    experts: int
    row: int
    cols: int
    dtype: torch.dtype
    second: bool = False

    def values(self) -> dict[str, object]:
        qtype = BY_NAME[self.kind]
        rows = self.tokens * self.top_k if self.second else self.tokens
        return {
            "X": TensorSpec((rows, self.cols), self.dtype),
            "W": _weight(qtype, (self.experts, self.row, self.cols)),
            "topk_ids": TensorSpec((self.tokens, self.top_k), i32, dist="index", low=0, high=self.experts),
            "top_k": 1 if self.second else self.top_k,
            "quant_type": qtype,
            "row": self.row,
            "tokens": rows,
        }


MOE_VECS: dict[str, list[MoeVec]] = {
    "small": [
        MoeVec("Q4_0", 2, 2, 4, 16, 64, f16), MoeVec("Q8_0", 3, 2, 8, 8, 64, bf16),
        MoeVec("Q4_K", 1, 4, 6, 8, 256, f16), MoeVec("Q6_K", 2, 2, 4, 5, 256, f16),
        MoeVec("Q5_0", 4, 1, 3, 12, 96, bf16), MoeVec("Q4_1", 2, 3, 5, 8, 64, f16, True),
        MoeVec("Q5_1", 3, 2, 4, 6, 32, bf16, True),
    ],
    "large": [
        MoeVec("Q4_K", 16, 2, 8, 1024, 4096, bf16), MoeVec("Q6_K", 8, 8, 64, 512, 2048, f16),
        MoeVec("Q8_0", 16, 2, 8, 4096, 1024, bf16, True),
    ],
    "perf": [
        MoeVec("Q4_K", 4, 2, 8, 3584, 4096, bf16), MoeVec("Q6_K", 16, 2, 8, 4096, 3584, f16, True),
        MoeVec("Q8_0", 8, 8, 64, 1408, 2048, bf16),
    ],
}


def ggml_moe_a8_vec_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for m in MOE_VECS[size]:
        yield sample(m.values())


def ggml_moe_a8_vec() -> Operator:
    return vllm_operator(
        "ggml_moe_a8_vec", "ggml",
        "Mixture-of-experts GEMV with GGML block-quantized expert weights (vLLM's MMVQ MoE path).",
        params=(
            Param("X", "Tensor"),
            Param("W", "Tensor"),
            Param("topk_ids", "Tensor"),
            Param("top_k", "int"),
            Param("quant_type", "int"),
            Param("row", "int"),
            Param("tokens", "int"),
        ),
        signature=("ggml_moe_a8_vec(X: torch.Tensor, W: torch.Tensor, topk_ids: torch.Tensor, top_k: int, "
                   "quant_type: int, row: int, tokens: int) -> torch.Tensor"),
        reference=ggml_moe_a8_vec_reference,
        sampler=ggml_moe_a8_vec_sampler,
        ov_doc=("X: [tokens, cols] contiguous float16/bfloat16; W: uint8 [experts, row, cols / block * "
                "bytes] GGML blocks of type `quant_type` (2 Q4_0, 3 Q4_1, 6 Q5_0, 7 Q5_1, 8 Q8_0, 12 Q4_K, "
                "14 Q6_K); topk_ids: int32, contiguous, read flat. Returns a new [tokens * top_k, row] tensor "
                "of X's dtype whose row z is X[z // top_k] @ dequantize(W[topk_ids.flat[z]]).T. vLLM "
                "quantizes X to q8_1 (int8 per 32 values, fp16 scale) first; that rounding is allowed, not "
                "required."),
        tolerance=A8_TOLERANCE,
        notes=A8_NOTES,
    )


# ------------------------------------------------------------------------------------ MoE MMQ

MOE_X = 4  # ggml_moe_get_block_size: the token tile of every moe.cuh kernel on CUDA


def ggml_moe_a8_reference(X: torch.Tensor, W: torch.Tensor, sorted_token_ids: torch.Tensor,
                          expert_ids: torch.Tensor, num_tokens_post_padded: torch.Tensor, quant_type: int,
                          row: int, top_k: int, tokens: int) -> torch.Tensor:
    # fixed shapes only (the large cases also run on meta): each output row finds the slot that
    # writes it; live slots are those of launched blocks starting at or before the padded total
    experts, cols = W.shape[0], X.shape[1]
    w = _decoded(W, quant_type, (experts, row, cols), X)
    x = _activations(X[:tokens])
    every = torch.einsum("tc,erc->ter", x, w)
    numel, size = tokens * top_k, sorted_token_ids.numel()
    slot = torch.arange(size, device=X.device)
    start = slot // MOE_X * MOE_X
    z = sorted_token_ids.to(torch.int64)
    live = (z < numel) & (start <= num_tokens_post_padded.to(torch.int64)[0]) & (slot < size // MOE_X * MOE_X)
    writer = torch.full((numel + 1,), size, dtype=torch.int64, device=X.device)
    writer.scatter_(0, torch.where(live, z, numel), slot)
    block_expert = torch.cat([expert_ids.to(torch.int64).repeat_interleave(MOE_X)[:size],
                              torch.zeros(1, dtype=torch.int64, device=X.device)])
    rows = torch.arange(numel, device=X.device)
    return every[rows // top_k, block_expert[writer[:numel]]].to(X.dtype)


def _routing(part: int, align: Align) -> Callable[[torch.Generator, torch.Tensor], torch.Tensor]:
    """One of moe_align_block_size's three outputs for the drawn topk_ids."""

    def draw(gen: torch.Generator, topk_ids: torch.Tensor) -> torch.Tensor:
        size = align.padded()
        out = [torch.empty(size, dtype=i32, device=topk_ids.device),
               torch.empty(-(-size // align.block_size), dtype=i32, device=topk_ids.device),
               torch.empty(1, dtype=i32, device=topk_ids.device)]
        moe_align_block_size_reference(topk_ids, align.experts, align.block_size, *out)
        return out[part]

    return draw


@dataclass(frozen=True)
class Moe:
    """tokens x top_k routed over `experts` weights [row, cols], aligned to blocks of MOE_X as vLLM's
    caller aligns them; `second` is the caller's second call (X has a row per routed slot, top_k=1)."""

    kind: str
    tokens: int
    top_k: int
    experts: int
    row: int
    cols: int
    dtype: torch.dtype
    second: bool = False

    def values(self) -> dict[str, object]:
        qtype = BY_NAME[self.kind]
        rows = self.tokens * self.top_k if self.second else self.tokens
        align = Align(self.tokens, self.top_k, self.experts, MOE_X)
        size = align.padded()
        routed = f"of topk_ids [{self.tokens}, {self.top_k}] over {self.experts} experts, block {MOE_X}"
        return {
            "topk_ids": TensorSpec((self.tokens, self.top_k), i32, dist="unique", low=0, high=self.experts,
                                   along=1),
            "X": TensorSpec((rows, self.cols), self.dtype),
            "W": _weight(qtype, (self.experts, self.row, self.cols)),
            "sorted_token_ids": Joint((size,), i32, ("topk_ids",), _routing(0, align),
                                      f"moe_align_block_size slots {routed}"),
            "expert_ids": Joint((-(-size // MOE_X),), i32, ("topk_ids",), _routing(1, align),
                                "each block's expert"),
            "num_tokens_post_padded": Joint((1,), i32, ("topk_ids",), _routing(2, align), "padded total"),
            "quant_type": qtype,
            "row": self.row,
            "top_k": 1 if self.second else self.top_k,
            "tokens": rows,
        }


# expert counts and top-k of Mixtral (8, 2), Qwen1.5-MoE (60, 4), DeepSeek-V2-Lite (64, 6), Qwen3-MoE
# (128, 8) and DeepSeek-V3 (256, 8); vLLM's caller takes this path past 64 tokens
MOES: dict[str, list[Moe]] = {
    "small": [
        Moe("Q4_0", 5, 2, 8, 16, 64, f16), Moe("Q8_0", 9, 2, 8, 8, 64, bf16),
        Moe("Q4_K", 3, 4, 60, 8, 256, f16), Moe("Q6_K", 4, 6, 64, 5, 256, bf16),
        Moe("Q5_0", 7, 1, 3, 12, 96, bf16), Moe("Q4_1", 6, 2, 8, 8, 64, f16, True),
        Moe("Q5_1", 2, 8, 128, 6, 32, bf16, True), Moe("Q4_K", 3, 8, 256, 4, 256, f16),
    ],
    "large": [
        Moe("Q4_K", 128, 2, 8, 1024, 4096, bf16), Moe("Q6_K", 96, 8, 64, 512, 2048, f16),
        Moe("Q8_0", 80, 2, 8, 4096, 1024, bf16, True),
    ],
    "perf": [
        Moe("Q4_K", 256, 2, 8, 3584, 4096, bf16), Moe("Q6_K", 256, 2, 8, 4096, 3584, f16, True),
        Moe("Q8_0", 128, 6, 64, 1408, 2048, bf16),
    ],
}


def ggml_moe_a8_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for m in MOES[size]:
        yield sample(m.values(), hide=("topk_ids",))


def ggml_moe_a8() -> Operator:
    return vllm_operator(
        "ggml_moe_a8", "ggml",
        "Mixture-of-experts matmul with GGML block-quantized expert weights, routed by "
        "moe_align_block_size (vLLM's MMQ MoE path), activations quantized to 8 bits inside.",
        params=(
            Param("X", "Tensor"),
            Param("W", "Tensor"),
            Param("sorted_token_ids", "Tensor"),
            Param("expert_ids", "Tensor"),
            Param("num_tokens_post_padded", "Tensor"),
            Param("quant_type", "int"),
            Param("row", "int"),
            Param("top_k", "int"),
            Param("tokens", "int"),
        ),
        signature=("ggml_moe_a8(X: torch.Tensor, W: torch.Tensor, sorted_token_ids: torch.Tensor, "
                   "expert_ids: torch.Tensor, num_tokens_post_padded: torch.Tensor, quant_type: int, "
                   "row: int, top_k: int, tokens: int) -> torch.Tensor"),
        reference=ggml_moe_a8_reference,
        sampler=ggml_moe_a8_sampler,
        ov_doc=("X: [tokens, cols] contiguous float16/bfloat16; W: uint8 [experts, row, cols / block * bytes] "
                "GGML blocks of type `quant_type` (2 Q4_0, 3 Q4_1, 6 Q5_0, 7 Q5_1, 8 Q8_0, 12 Q4_K, 14 Q6_K); "
                "sorted_token_ids [S], expert_ids [ceil(S / 4)], num_tokens_post_padded [1]: int32, what "
                "moe_align_block_size returns for some topk_ids of tokens * top_k entries and block size 4 "
                "(ggml_moe_get_block_size). Slot s (s < S // 4 * 4, in a block starting at or before "
                "num_tokens_post_padded[0]) holding z < tokens * top_k gives output row z = "
                "X[z // top_k] @ dequantize(W[expert_ids[s // 4]]).T; slots holding tokens * top_k are "
                "padding. Returns a new [tokens * top_k, row] tensor of X's dtype. vLLM quantizes X to q8_1 "
                "(int8 per 32 values, fp16 scale) first; that rounding is allowed, not required."),
        tolerance=A8_TOLERANCE,
        notes=A8_NOTES + (" The routing tensors are always moe_align_block_size's result for a drawn topk_ids "
                          "(distinct experts per token, no expert_map: vLLM's GGUF caller passes none), so "
                          "every output row is written once; experts_ids outside [0, 256) (skipped by vLLM) "
                          "are not drawn."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "ggml_dequantize": ggml_dequantize,
    "ggml_mul_mat_vec_a8": ggml_mul_mat_vec_a8,
    "ggml_mul_mat_a8": ggml_mul_mat_a8,
    "ggml_moe_a8_vec": ggml_moe_a8_vec,
    "ggml_moe_a8": ggml_moe_a8,
}

__all__ = ["OPERATORS", "TYPES"]
