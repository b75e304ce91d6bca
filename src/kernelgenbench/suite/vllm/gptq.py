"""Weight-only quantised GEMMs as vLLM 0.13 runs GPTQ and AWQ checkpoints: `gptq_gemm`,
`gptq_shuffle`, `awq_gemm`.

Sources: csrc/quantization/gptq/q_gemm.cu with qdq_{2,3,4,8}.cuh (the exllama and "alt" GEMMs, the
reconstruct kernels, the shuffle and make_sequential kernels), csrc/quantization/awq/gemm_kernels.cu,
the wrappers in vllm/_custom_ops.py (`gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx,
use_exllama, use_v2_format, bit)`, `gptq_shuffle(q_weight, q_perm, bit)`, `awq_gemm(input, qweight,
scales, qzeros, split_k_iters)`), and the callers vllm/model_executor/layers/quantization/gptq.py
and awq.py.

Layouts (the suite owns them: `pack_rows`/`unpack_rows`, `pack_cols`/`unpack_cols` below):

- GPTQ qweight [K * bit / 32, N] int32 packs K along rows, low bits first: for bit 2/4/8 word
  [k // (32/bit), n] holds row k at bit (k % (32/bit)) * bit; for bit 3 a block of 32 rows fills 3
  words as one 96-bit little-endian string (row k at bit 3 * (k % 32); rows 10 and 21 straddle two
  words). qzeros [groups, N * bit / 32] packs N the same way along columns; scales [groups, N].
- GPTQ v1 zero points (AutoGPTQ checkpoints) are stored minus one: the kernel uses stored + 1
  (`zero_offset`); v2 (GPTQModel `format="gptq_v2"`, `use_v2_format=True`) uses them as stored.
  W[k, n] = scale[g, n] * (q[k, n] - zero[g, n]).
- The exllama layout (`gptq_shuffle`): first, with a q_perm, rows are made sequential (new row k =
  old row q_perm[k], repacked as above); then each word (bit 2/4) or each 3-word block (bit 3) is
  reordered so that a half2 can be built from two fields: for bit 2/4 value p of a word moves to bit
  16 * (p % 2) + bit * (p // 2); for bit 3 value v < 30 of a block moves to word v // 10 at bit
  16 * (r % 2) + 3 * (r // 2), r = v % 10, and bit i of value 30 + h to word i at bit 16 * h + 15;
  bit 8 is left as it is. `EXLLAMA_POSITIONS` below writes these down.
- AWQ qweight [K, N / 8] packs N along columns with interleaved nibbles: nibble j of word
  [k, n // 8] holds column 8 * (n // 8) + (0, 2, 4, 6, 1, 3, 5, 7)[j]; qzeros [K / g, N / 8] the same;
  no zero offset: W = scale * (q - zero).

gptq_gemm's record feeds it what vLLM's GPTQ layer feeds it. With `use_exllama=True` the weight is
already shuffled (the layer calls gptq_shuffle once after loading), and `b_g_idx` is either empty
(no act-order: group of row k is k // group_size) or the act-order permutation q_perm =
argsort(g_idx): then C = A[:, q_perm] @ W_seq, W_seq the sequential rows in groups k // group_size.
With `use_exllama=False` (vLLM: act-order with a row-parallel split) the weight is in checkpoint
order and b_g_idx is the per-row group index, C = A @ W with W[k] from group g_idx[k].

Every int32 bit pattern is a valid packing, and every permutation is the argsort of a balanced
act-order g_idx, so the samplers draw the packed tensors directly (uniform over all 32 bits, a
uniform permutation): that is the quantised form of the weight the reference dequantises; the
packers here define the layout and the tests check them against hand-written examples and a
quantise-pack-dequantise round trip of a float weight.

References dequantise in the working dtype as vLLM's reconstruct kernels do (fp16(scale * (q - z)))
and multiply in float32 (vLLM's own small-batch kernels partly accumulate in half: the stand-in
native is the more accurate one); in float64 everything is exact, which is the truth.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import torch

from ..build import SUM_TOLERANCE, sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec
from .family import compute_dtype, vllm_operator

f16, i32 = torch.float16, torch.int32
BITS = (2, 3, 4, 8)
AWQ_ORDER = (0, 2, 4, 6, 1, 3, 5, 7)
"""Nibble j of an AWQ word holds column AWQ_ORDER[j] of its eight."""


# --------------------------------------------------------------------------------------- layouts

def block_of(bit: int) -> tuple[int, int]:
    """(values, words) of the smallest self-contained packing unit for `bit`."""
    return (32, 3) if bit == 3 else (32 // bit, 1)


def natural_positions(bit: int) -> torch.Tensor:
    """[values, bit] bit positions inside a unit of the plain GPTQ packing (low bits first)."""
    values, _ = block_of(bit)
    return torch.arange(values)[:, None] * bit + torch.arange(bit)[None, :]


def exllama_positions(bit: int) -> torch.Tensor:
    """[values, bit] bit positions inside a unit of the layout gptq_shuffle produces."""
    values, _ = block_of(bit)
    if bit == 8:
        return natural_positions(8)
    v = torch.arange(values)[:, None]
    i = torch.arange(bit)[None, :]
    if bit != 3:
        return 16 * (v % 2) + bit * (v // 2) + i
    r = v % 10
    fields = 32 * (v // 10) + 16 * (r % 2) + 3 * (r // 2) + i
    split = 32 * i + 16 * (v - 30) + 15  # values 30 and 31: one bit in each word
    return torch.where(v < 30, fields, split)


EXLLAMA_POSITIONS = {bit: exllama_positions(bit) for bit in BITS}


def _bits(words: torch.Tensor) -> torch.Tensor:
    """[..., w] int32 -> [..., 32 w] 0/1 int64, bit j of word t at 32 t + j."""
    shifts = torch.arange(32, device=words.device)
    return ((words.to(torch.int64)[..., None] >> shifts) & 1).flatten(-2)


def _words(bits: torch.Tensor) -> torch.Tensor:
    """Inverse of `_bits`: int32 words (two's complement of the unsigned value)."""
    shifts = torch.arange(32, device=bits.device)
    unsigned = (bits.unflatten(-1, (-1, 32)) << shifts).sum(-1)
    return (unsigned - ((unsigned >> 31) << 32)).to(i32)


def _unpack_units(units: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """[..., words] units -> [..., values] int64 fields read at `positions`."""
    bits = _bits(units)[..., positions.to(units.device)]  # [..., values, bit]
    return (bits << torch.arange(positions.shape[1], device=units.device)).sum(-1)


def _pack_units(values: torch.Tensor, positions: torch.Tensor, words: int) -> torch.Tensor:
    """[..., values] small non-negative ints -> [..., words] int32, inverse of `_unpack_units`."""
    bit = positions.shape[1]
    fields = (values.to(torch.int64)[..., None] >> torch.arange(bit, device=values.device)) & 1
    bits = torch.zeros(values.shape[:-1] + (32 * words,), dtype=torch.int64, device=values.device)
    bits[..., positions.flatten().to(values.device)] = fields.flatten(-2)
    return _words(bits)


def unpack_rows(qweight: torch.Tensor, bit: int, shuffled: bool = False) -> torch.Tensor:
    """GPTQ qweight [K * bit / 32, N] -> q [K, N] int64 (exllama layout when `shuffled`)."""
    values, words = block_of(bit)
    pos = EXLLAMA_POSITIONS[bit] if shuffled else natural_positions(bit)
    n = qweight.shape[1]
    units = qweight.reshape(-1, words, n).transpose(1, 2)  # [blocks, N, words]
    return _unpack_units(units, pos).transpose(1, 2).reshape(-1, n)


def pack_rows(q: torch.Tensor, bit: int, shuffled: bool = False) -> torch.Tensor:
    values, words = block_of(bit)
    pos = EXLLAMA_POSITIONS[bit] if shuffled else natural_positions(bit)
    n = q.shape[1]
    units = q.reshape(-1, values, n).transpose(1, 2)  # [blocks, N, values]
    return _pack_units(units, pos, words).transpose(1, 2).reshape(-1, n).contiguous()


def unpack_cols(qzeros: torch.Tensor, bit: int) -> torch.Tensor:
    """GPTQ qzeros [groups, N * bit / 32] -> [groups, N] int64."""
    _, words = block_of(bit)
    units = qzeros.reshape(qzeros.shape[0], -1, words)
    return _unpack_units(units, natural_positions(bit)).reshape(qzeros.shape[0], -1)


def pack_cols(z: torch.Tensor, bit: int) -> torch.Tensor:
    values, words = block_of(bit)
    units = z.reshape(z.shape[0], -1, values)
    return _pack_units(units, natural_positions(bit), words).reshape(z.shape[0], -1)


def awq_unpack(packed: torch.Tensor) -> torch.Tensor:
    """AWQ qweight/qzeros [R, N / 8] -> [R, N] int64, undoing the interleaved nibble order."""
    nib = (packed.to(torch.int64)[..., None] >> (4 * torch.arange(8, device=packed.device))) & 0xF
    cols = torch.empty_like(nib)
    cols[..., list(AWQ_ORDER)] = nib  # nibble j is column AWQ_ORDER[j]
    return cols.flatten(-2)


def awq_pack(values: torch.Tensor) -> torch.Tensor:
    cols = values.to(torch.int64).unflatten(-1, (-1, 8))[..., list(AWQ_ORDER)]
    unsigned = (cols << (4 * torch.arange(8, device=values.device))).sum(-1)
    return (unsigned - ((unsigned >> 31) << 32)).to(i32)


def exllama_shuffle(qweight: torch.Tensor, q_perm: torch.Tensor | None, bit: int) -> torch.Tensor:
    """What gptq_shuffle leaves in q_weight: rows made sequential by q_perm, then reordered."""
    q = unpack_rows(qweight, bit)
    if q_perm is not None and q_perm.numel():
        q = q[q_perm.long()]
    return pack_rows(q, bit, shuffled=True)


@dataclass(frozen=True)
class Quantized:
    """A float weight [K, N] quantised the GPTQ way: q [K, N], zero and scale [groups, N]."""

    q: torch.Tensor
    zero: torch.Tensor
    scale: torch.Tensor
    g_idx: torch.Tensor


def quantize(weight: torch.Tensor, bit: int, group_size: int, g_idx: torch.Tensor | None = None) -> Quantized:
    """Asymmetric min/max round-to-nearest per group (AutoGPTQ's quantizer without the Hessian
    updates, which change the values but not the format); group of row k is g_idx[k]
    (k // group_size without act-order; group_size -1 is one group)."""
    k, _ = weight.shape
    gs = k if group_size == -1 else group_size
    if g_idx is None:
        g_idx = torch.arange(k) // gs
    maxq = 2 ** bit - 1
    groups = k // gs
    lo = torch.stack([weight[g_idx == g].amin(0).clamp(max=0) for g in range(groups)])
    hi = torch.stack([weight[g_idx == g].amax(0).clamp(min=0) for g in range(groups)])
    scale = ((hi - lo) / maxq).clamp(min=1e-8)
    zero = torch.round(-lo / scale).clamp(0, maxq)
    q = torch.clamp(torch.round(weight / scale[g_idx]) + zero[g_idx], 0, maxq)
    return Quantized(q.to(torch.int64), zero.to(torch.int64), scale, g_idx.to(i32))


def _dequantized(q: torch.Tensor, zero: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """scale * (q - zero) rounded to `dtype` (vLLM's fp16 dequantisation), in the compute dtype."""
    work = compute_dtype(dtype)
    return (scale.to(work) * (q - zero).to(work)).to(dtype).to(work)


# ------------------------------------------------------------------------------------- gptq_gemm

def gptq_gemm_reference(a: torch.Tensor, b_q_weight: torch.Tensor, b_gptq_qzeros: torch.Tensor,
                        b_gptq_scales: torch.Tensor, b_g_idx: torch.Tensor, use_exllama: bool,
                        use_v2_format: bool, bit: int) -> torch.Tensor:
    k = a.shape[1]
    groups = b_gptq_scales.shape[0]
    q = unpack_rows(b_q_weight, bit, shuffled=use_exllama)
    zeros = unpack_cols(b_gptq_qzeros, bit) + (0 if use_v2_format else 1)
    if use_exllama:
        rows = torch.arange(k, device=a.device) // (k // groups)
        if b_g_idx.numel():
            a = a[:, b_g_idx.long()]  # the kernel reads A's columns through q_perm
    else:
        rows = b_g_idx.long()
    w = _dequantized(q, zeros[rows], b_gptq_scales[rows], b_gptq_scales.dtype)
    return (a.to(w.dtype) @ w).to(a.dtype)


@dataclass(frozen=True)
class GemmCase:
    """One gptq_gemm call: a [m, k], a k x n weight of `bit` bits in groups of `group` (-1: one
    group), the exllama layout or not, act-order or not, v1 or v2 zero points."""

    m: int
    k: int
    n: int
    bit: int
    group: int
    exllama: bool
    act_order: bool
    v2: bool = False

    def values(self) -> dict[str, object]:
        groups = 1 if self.group == -1 else self.k // self.group
        if self.exllama:
            g_idx = TensorSpec((self.k,), i32, dist="unique", low=0, high=self.k) if self.act_order \
                else TensorSpec((0,), i32)
        else:
            g_idx = TensorSpec((self.k,), i32, dist="index", low=0, high=groups)
        return {
            "a": TensorSpec((self.m, self.k), f16),
            "b_q_weight": TensorSpec((self.k * self.bit // 32, self.n), i32, dist="index", low=-2**31, high=2**31),
            "b_gptq_qzeros": TensorSpec((groups, self.n * self.bit // 32), i32, dist="index", low=-2**31,
                                        high=2**31),
            "b_gptq_scales": TensorSpec((groups, self.n), f16, dist="uniform", low=0.002, high=0.012),
            "b_g_idx": g_idx,
            "use_exllama": self.exllama,
            "use_v2_format": self.v2,
            "bit": self.bit,
        }


LLAMA3_8B_LAYERS = ((4096, 4096), (4096, 14336), (14336, 4096))
"""(K, N) of Llama-3-8B's projections: qkv/o-like square, gate/up, down."""

GEMM_CASES: dict[str, list[GemmCase]] = {
    "small": [
        GemmCase(1, 128, 64, 4, 128, True, False),
        GemmCase(5, 256, 96, 4, 64, True, True),
        GemmCase(3, 256, 64, 4, -1, True, False, v2=True),
        GemmCase(9, 128, 32, 4, 32, True, True, v2=True),
        GemmCase(60, 128, 64, 4, 64, True, True),  # past vLLM's 50-row switch to reconstruct + GEMM
        GemmCase(2, 192, 64, 8, 64, True, True),
        GemmCase(7, 128, 40, 8, 128, True, False, v2=True),
        GemmCase(17, 256, 32, 4, 128, False, True),
        GemmCase(4, 128, 64, 8, 64, False, True, v2=True),
        GemmCase(6, 128, 32, 2, 64, True, False),
        GemmCase(1, 128, 48, 2, 128, False, True, v2=True),
        GemmCase(3, 96, 32, 3, -1, True, True),
        GemmCase(7, 256, 64, 3, 128, False, True),
        GemmCase(2, 128, 32, 3, 64, True, False, v2=True),
    ],
    "large": [
        GemmCase(64, 2048, 1024, 4, 128, True, True),
        GemmCase(7, 4096, 512, 8, 128, False, True),
    ],
    "perf": [GemmCase(m, k, n, 4, 128, True, False) for k, n in LLAMA3_8B_LAYERS for m in (1, 16, 256)],
}


def gptq_gemm_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for case in GEMM_CASES[size]:
        yield sample(case.values())


def gptq_gemm() -> Operator:
    return vllm_operator(
        "gptq_gemm", "gptq",
        "C = A @ W for a GPTQ 2/3/4/8-bit weight, dequantised from its packed form (exllama shuffled "
        "layout with optional act-order permutation, or checkpoint layout with a per-row group index).",
        params=(
            Param("a", "Tensor"),
            Param("b_q_weight", "Tensor"),
            Param("b_gptq_qzeros", "Tensor"),
            Param("b_gptq_scales", "Tensor"),
            Param("b_g_idx", "Tensor"),
            Param("use_exllama", "bool"),
            Param("use_v2_format", "bool"),
            Param("bit", "int"),
        ),
        signature=("gptq_gemm(a: torch.Tensor, b_q_weight: torch.Tensor, b_gptq_qzeros: torch.Tensor, "
                   "b_gptq_scales: torch.Tensor, b_g_idx: torch.Tensor, use_exllama: bool, "
                   "use_v2_format: bool, bit: int) -> torch.Tensor"),
        reference=gptq_gemm_reference,
        sampler=gptq_gemm_sampler,
        tolerance=SUM_TOLERANCE,
        ov_doc=("a [M, K] float16 contiguous; bit in {2, 3, 4, 8}; b_q_weight [K * bit / 32, N] int32; "
                "b_gptq_qzeros [G, N * bit / 32] int32; b_gptq_scales [G, N] float16; returns C [M, N] "
                "float16 = A @ W. Packing (low bits first): for bit 2/4/8 word [k // (32/bit), n] holds "
                "row k at bit bit * (k % (32/bit)); for bit 3 each 32 rows fill 3 words as one 96-bit "
                "string, row k at bit 3 * (k % 32). qzeros pack N the same way along columns. "
                "W[k, n] = scale[g, n] * (q[k, n] - (zero[g, n] + (0 if use_v2_format else 1))). "
                "use_exllama=True: b_q_weight is in the layout gptq_shuffle leaves (see gptq_shuffle), "
                "row k of that layout is in group k // (K / G), and b_g_idx is empty (A as is) or an "
                "int32 permutation q_perm [K] of act-order, when C[m] = sum_k A[m, q_perm[k]] W[k]. "
                "use_exllama=False: b_q_weight in the plain packing and b_g_idx [K] int32 gives each "
                "row's group: W[k] uses group b_g_idx[k]."),
        notes=("csrc/quantization/gptq/q_gemm.cu, qdq_*.cuh; vllm/_custom_ops.py gptq_gemm; inputs as "
               "vllm/model_executor/layers/quantization/gptq.py prepares them (shuffled once after "
               "loading; g_idx replaced by argsort(g_idx) with act-order, by an empty tensor without). "
               "Packed weights and zeros are drawn uniformly over all 32-bit patterns and the act-order "
               "permutation uniformly: each is a valid quantised checkpoint. With use_exllama=False the "
               "group index is drawn per row at random in [0, G) (act-order's balanced g_idx is one such "
               "map; vLLM's kernels read any). Not drawn: bfloat16 (GPTQ's layer takes float16 only), "
               "non-contiguous a (the kernels assume packed rows), M = 0 (vLLM launches an empty grid "
               "on the non-exllama path), use_exllama=False with an empty g_idx (vLLM never passes it; "
               "the kernel would read a null pointer)."),
    )


# ---------------------------------------------------------------------------------- gptq_shuffle

def gptq_shuffle_reference(q_weight: torch.Tensor, q_perm: torch.Tensor, bit: int) -> None:
    q_weight.copy_(exllama_shuffle(q_weight, q_perm, bit))


# (K, N, bit, with q_perm)
SHUFFLE_CASES: dict[str, list[tuple[int, int, int, bool]]] = {
    "small": [(64, 33, 4, False), (128, 64, 4, True), (96, 20, 4, True), (64, 16, 8, False), (128, 40, 8, True),
              (64, 17, 2, False), (128, 32, 2, True), (96, 9, 3, False), (128, 34, 3, True), (32, 2, 3, True)],
    "large": [(4096, 1024, 4, True), (2048, 512, 3, True)],
    "perf": [(4096, 4096, 4, False), (4096, 14336, 4, True), (14336, 4096, 4, True)],
}


def gptq_shuffle_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for k, n, bit, perm in SHUFFLE_CASES[size]:
        yield sample({
            "q_weight": TensorSpec((k * bit // 32, n), i32, dist="index", low=-2**31, high=2**31),
            "q_perm": TensorSpec((k,), i32, dist="unique", low=0, high=k) if perm else TensorSpec((0,), i32),
            "bit": bit,
        })


def gptq_shuffle() -> Operator:
    op = vllm_operator(
        "gptq_shuffle", "gptq",
        "Reorder a GPTQ packed weight in place into the exllama layout gptq_gemm(use_exllama=True) reads: "
        "rows made sequential by the act-order permutation, then the fields of each word interleaved.",
        params=(Param("q_weight", "Tensor!", writes=True), Param("q_perm", "Tensor"), Param("bit", "int")),
        signature="gptq_shuffle(q_weight: torch.Tensor, q_perm: torch.Tensor, bit: int) -> None",
        reference=gptq_shuffle_reference,
        sampler=gptq_shuffle_sampler,
        ov_doc=("q_weight [K * bit / 32, N] int32 (bit in {2, 3, 4, 8}) in the plain GPTQ packing (see "
                "gptq_gemm); q_perm [K] int32 permutation, or empty. Writes q_weight in place, returns "
                "None. Step 1, only with a non-empty q_perm: unpack the K x N values, take row q_perm[k] as "
                "new row k, repack. Step 2: bit 2/4: in each word, value p (bits bit*p..) moves to bit "
                "16 * (p % 2) + bit * (p // 2); bit 3: in each block of 3 words (32 values, value v at bit "
                "3v of the 96-bit string), value v < 30 moves to word v // 10 at bit 16 * (r % 2) + "
                "3 * (r // 2), r = v % 10, and bit i of value 30 + h to bit 16 * h + 15 of word i; bit 8: "
                "unchanged. Judged bit for bit."),
        notes=("csrc/quantization/gptq/q_gemm.cu shuffle_exllama_weight, make_sequential_*bit_kernel, "
               "shuffle_*bit_*; qdq_2/3/4/8.cuh. Not drawn: N odd with q_perm (vLLM's make_sequential for "
               "bit 2/4/8 moves column pairs as 64-bit words and leaves a last odd column uninitialised), "
               "K not a multiple of 32 (GPTQ group sizes are), q_perm that is not a permutation."),
    )
    return replace(op, work="data")


# -------------------------------------------------------------------------------------- awq_gemm

def awq_gemm_reference(input: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor,
                       split_k_iters: int) -> torch.Tensor:
    k = input.shape[1]
    rows = torch.arange(k, device=input.device) // (k // scales.shape[0])
    w = _dequantized(awq_unpack(qweight), awq_unpack(qzeros)[rows], scales[rows], scales.dtype)
    return (input.to(w.dtype) @ w).to(input.dtype)


# (M, K, N, group size (-1: one group), split_k_iters)
AWQ_CASES: dict[str, list[tuple[int, int, int, int, int]]] = {
    "small": [(1, 128, 64, 64, 8), (5, 256, 128, 128, 8), (17, 64, 128, -1, 8), (3, 128, 192, 64, 1),
              (33, 256, 256, 128, 4), (2, 96, 64, 32, 8)],
    "large": [(64, 4096, 1024, 128, 8)],
    "perf": [(m, k, n, 128, 8) for k, n in LLAMA3_8B_LAYERS for m in (1, 16, 256)],
}


def awq_gemm_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for m, k, n, group, split in AWQ_CASES[size]:
        groups = 1 if group == -1 else k // group
        yield sample({
            "input": TensorSpec((m, k), f16),
            "qweight": TensorSpec((k, n // 8), i32, dist="index", low=-2**31, high=2**31),
            "scales": TensorSpec((groups, n), f16, dist="uniform", low=0.002, high=0.012),
            "qzeros": TensorSpec((groups, n // 8), i32, dist="index", low=-2**31, high=2**31),
            "split_k_iters": split,
        })


def awq_gemm() -> Operator:
    return vllm_operator(
        "awq_gemm", "gptq",
        "C = input @ W for an AWQ 4-bit weight packed along N in AWQ's interleaved nibble order, with "
        "per-group scales and zero points.",
        params=(
            Param("input", "Tensor"),
            Param("qweight", "Tensor"),
            Param("scales", "Tensor"),
            Param("qzeros", "Tensor"),
            Param("split_k_iters", "int"),
        ),
        signature=("awq_gemm(input: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, "
                   "qzeros: torch.Tensor, split_k_iters: int) -> torch.Tensor"),
        reference=awq_gemm_reference,
        sampler=awq_gemm_sampler,
        tolerance=SUM_TOLERANCE,
        ov_doc=("input [M, K] float16 contiguous; qweight [K, N / 8] int32; scales [G, N] float16; qzeros "
                "[G, N / 8] int32; group size K / G. Nibble j (bits 4j..4j+3) of word [r, c] holds column "
                "8c + (0, 2, 4, 6, 1, 3, 5, 7)[j] (qweight and qzeros alike). W[k, n] = scales[g, n] * "
                "(q[k, n] - zero[g, n]) with g = k // (K / G) (no zero offset). Returns C [M, N] float16 = "
                "input @ W. split_k_iters is how vLLM's kernel splits K (it passes 8); it does not change "
                "the result."),
        notes=("csrc/quantization/awq/gemm_kernels.cu, dequantize.cuh; vllm/_custom_ops.py awq_gemm; "
               "vllm/model_executor/layers/quantization/awq.py (calls it below 256 tokens with "
               "split_k_iters = 8; the perf tier also times 256). Packed weights and zeros are drawn over "
               "all 32-bit patterns (each a valid checkpoint). Not drawn: bfloat16 (AWQ's layer takes "
               "float16), N not a multiple of 64 or of the group size, group sizes not a multiple of 32 "
               "(vLLM raises), non-contiguous input, M = 0 (an empty grid)."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "gptq_gemm": gptq_gemm,
    "gptq_shuffle": gptq_shuffle,
    "awq_gemm": awq_gemm,
}
