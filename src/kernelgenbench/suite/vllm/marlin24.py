"""The 2:4-sparse Marlin GEMM as vLLM 0.13 runs it: `gptq_marlin_24_gemm`.

Sources: csrc/quantization/marlin/sparse/marlin_24_cuda_kernel.cu (host checks, the tile shapes);
the layout of its inputs is the one vLLM's packer makes for it and tests it with
(vllm/model_executor/layers/quantization/utils/marlin_utils_test_24.py: marlin_24_quantize,
tests/kernels/quantization/test_marlin_gemm.py::test_gptq_marlin_24_gemm):

- The dense code matrix W [size_k, size_n] has at most two non-zero weights (codes other than the
  bias) in every aligned group of 4 consecutive k of a column. It is compressed along k to the two
  kept codes per group, Wc [size_k / 2, size_n] (compressed row 2g + h is kept entry h of group g),
  with two 2-bit metadata indices per group: the positions (0..3, the first below the second) in
  the group of the two kept codes.
- b_q_weight [size_k / 32, size_n * 16 / pack] holds Wc in tiles of 16 (compressed k) x 64 (n):
  tile (kt, nt) at flat word offset (kt * n_tiles + nt) * tile_words. In a tile, thread t (0..31)
  and j < 4 take v[4b + r] (b < 2, r < 4), the code at row 2(t % 4) + (0, 1, 8, 9)[r] of column
  8(t // 4) + 4b + j. 4-bit: word 4t + j holds v[0, 2, 4, 6, 1, 3, 5, 7] in nibbles 0..7; 8-bit:
  word 8t + 2j + b holds v[4b + (0, 2, 1, 3)] in bytes 0..3 (`marlin24_tile_source`).
- The metadata: one 16-bit word per (column n, 16 dense k starting at 16c) holds 4 nibbles (group
  4c + i in nibble i: low 2 bits the first index, high 2 bits the second), stored at the flat
  position CUTLASS's ColumnMajorInterleaved<2> reordering gives it (`meta_position`), in a
  b_meta int16 tensor [size_k / 32, 2 size_n]. Only the six nibbles with first < second
  (0x4, 0x8, 0x9, 0xC, 0xD, 0xE) are valid for the tensor cores' sparse mma.
- Scales b_scales [groups, size_n] (fp16): channelwise (one group) in plain order; grouped (group
  128 of dense k, the only one the kernel takes) permuted in chunks of 8 along the flat tensor,
  position 8i + s holding element 8i + (0, 4, 1, 5, 2, 6, 3, 7)[s].
- out = a @ (W - bias) * scale, fp16, float32 accumulation in the kernel; the truth is float64.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import MATMUL_TOLERANCE, sample
from ..spec import Joint, Operator, Overload, Param, Sample, Size, TensorSpec
from .family import compute_dtype, vllm_operator
from .marlin import INT32_HIGH, INT32_LOW, UINT4B8, UINT8B128, WEIGHT_TYPES, marlin_unpack

i16, i32, f16 = torch.int16, torch.int32, torch.float16

VALID_NIBBLES = (0x4, 0x8, 0x9, 0xC, 0xD, 0xE)
"""The metadata nibbles of a valid 2:4 group: first index | second index << 2, first < second."""

GROUP_ORDER = (0, 4, 1, 5, 2, 6, 3, 7)
"""Grouped scales: position s of each 8 holds element GROUP_ORDER[s] of those 8."""


def marlin24_tile_source(num_bits: int) -> tuple[torch.Tensor, torch.Tensor]:
    """For every (word, slot) of one 16 x 64 tile of compressed codes, the (k, n) in the tile its
    code comes from: two int64 tensors [tile_words, pack]."""
    pack = 32 // num_bits
    ks = torch.zeros(16 * 64 // pack, pack, dtype=torch.int64)
    ns = torch.zeros_like(ks)
    for t in range(32):
        rows = (2 * (t % 4), 2 * (t % 4) + 1, 2 * (t % 4) + 8, 2 * (t % 4) + 9)
        for j in range(4):
            # the 8 codes of (thread, j) before interleaving: b-major, then r
            v = [(rows[r], 8 * (t // 4) + 4 * b + j) for b in (0, 1) for r in range(4)]
            if num_bits == 4:
                words = [(4 * t + j, [v[s] for s in (0, 2, 4, 6, 1, 3, 5, 7)])]
            else:
                words = [(8 * t + 2 * j + b, [v[4 * b + s] for s in (0, 2, 1, 3)]) for b in (0, 1)]
            for word, slots in words:
                for slot, (k, n) in enumerate(slots):
                    ks[word, slot], ns[word, slot] = k, n
    return ks, ns


def meta_position(size_k: int, size_n: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """Flat position in b_meta of the metadata word of (column n, dense k 16c..16c+15): int64
    [size_n, size_k / 16].

    CUTLASS's reordering: rows n are regrouped in 64s (within one, bit 0 of n moves to bit 1 of
    the reordered row, bit 1 to bit 5, bit 2 to bit 0 and bits 3..5 to bits 2..4), then every 2 x 2
    block of (reordered row, column) is transposed and the result stored column-major with
    columns interleaved in pairs."""
    n = torch.arange(size_n, device=device).view(-1, 1)
    c = torch.arange(size_k // 16, device=device).view(1, -1)
    row = (n // 64) * 64 + (n % 2) * 2 + ((n // 2) % 2) * 32 + (n // 4) % 2 + ((n // 8) % 8) * 4
    return (c // 2) * 2 * size_n + (row - row % 2 + c % 2) * 2 + row % 2


def meta_indices(b_meta: torch.Tensor, size_k: int, size_n: int) -> torch.Tensor:
    """b_meta -> for every compressed code (j, n), its position 0..3 in its group of 4 dense k:
    int64 [size_k / 2, size_n]."""
    words = b_meta.reshape(-1).to(torch.int64)[meta_position(size_k, size_n, b_meta.device)] & 0xFFFF
    j = torch.arange(size_k // 2, device=b_meta.device)
    fields = words.t()[j // 8] >> (2 * (j % 8)).view(-1, 1)  # compressed row j = 8c + 2i + h
    return fields & 3


def unpermute_scales_24(b_scales: torch.Tensor) -> torch.Tensor:
    groups, size_n = b_scales.shape
    if groups == 1:
        return b_scales
    pos = torch.arange(groups * size_n, device=b_scales.device)
    lane = pos % 8
    src = pos - lane + torch.tensor(GROUP_ORDER, device=b_scales.device)[lane]
    plain = torch.empty_like(b_scales).reshape(-1)
    plain[src] = b_scales.reshape(-1)
    return plain.reshape(groups, size_n)


def dense_codes_24(b_q_weight: torch.Tensor, b_meta: torch.Tensor, size_k: int, size_n: int,
                   num_bits: int, bias: int) -> torch.Tensor:
    """The dense W - bias [size_k, size_n] (int64; 0 where the 2:4 pattern drops a weight)."""
    kept = marlin_unpack(b_q_weight, size_k // 2, size_n, num_bits,
                         source=marlin24_tile_source(num_bits)) - bias
    j = torch.arange(size_k // 2, device=kept.device).view(-1, 1)
    rows = (j // 2) * 4 + meta_indices(b_meta, size_k, size_n)
    dense = torch.zeros(size_k, size_n, dtype=torch.int64, device=kept.device)
    dense.scatter_(0, rows, kept)
    return dense


def gptq_marlin_24_gemm_reference(a: torch.Tensor, b_q_weight: torch.Tensor, b_meta: torch.Tensor,
                                  b_scales: torch.Tensor, workspace: torch.Tensor, b_q_type: int, size_m: int,
                                  size_n: int, size_k: int) -> torch.Tensor:
    bits, bias = WEIGHT_TYPES[b_q_type]
    codes = dense_codes_24(b_q_weight, b_meta, size_k, size_n, bits, bias)
    scales = unpermute_scales_24(b_scales)
    scales = scales.repeat_interleave(size_k // scales.shape[0], 0)
    weight = codes.to(a.dtype) * scales  # one rounding to the activation dtype, as Marlin's dequantisation
    acc = compute_dtype(a.dtype)
    return (a.to(acc) @ weight.to(acc)).to(a.dtype)


def valid_meta(shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    """int16 metadata words whose four nibbles are each a valid 2:4 pattern, uniformly."""
    picks = torch.randint(0, len(VALID_NIBBLES), (*shape, 4), generator=gen, device=gen.device)
    nibbles = torch.tensor(VALID_NIBBLES, device=gen.device)[picks]
    words = (nibbles << torch.tensor([0, 4, 8, 12], device=gen.device)).sum(-1)
    return torch.where(words >= 2 ** 15, words - 2 ** 16, words).to(i16)


@dataclass(frozen=True)
class Gemm24:
    m: int
    k: int
    n: int
    bits: int
    group: int  # 128, or -1: one scale per column


GEMMS: dict[str, list[Gemm24]] = {
    "small": [
        Gemm24(1, 128, 128, 4, -1),
        Gemm24(3, 256, 128, 4, 128),
        Gemm24(5, 256, 128, 8, 128),
        Gemm24(16, 128, 256, 8, -1),
        Gemm24(2, 384, 128, 4, 128),
        Gemm24(17, 128, 256, 4, 128),
    ],
    "large": [Gemm24(64, 2048, 2048, 4, 128), Gemm24(33, 1024, 1536, 8, -1)],
    # Llama-3-8B projections of a 2:4-pruned GPTQ checkpoint: decode, small batch, prefill
    "perf": [Gemm24(1, 4096, 14336, 4, 128), Gemm24(16, 4096, 4096, 4, 128), Gemm24(128, 14336, 4096, 4, 128),
             Gemm24(64, 4096, 28672, 8, -1)],
}


def gemm24_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in GEMMS[size]:
        groups = 1 if c.group == -1 else c.k // c.group
        assert c.k % 128 == 0 and c.n % (128 if c.m <= 16 else 256) == 0 and c.group in (-1, 128), c
        meta_shape = (c.k // 32, 2 * c.n)
        yield sample({
            "a": TensorSpec((c.m, c.k), f16),
            "b_q_weight": TensorSpec((c.k // 32, c.n * c.bits // 2), i32, dist="uniform", low=INT32_LOW,
                                     high=INT32_HIGH),
            "b_meta": Joint(meta_shape, i16, (), lambda gen, s=meta_shape: valid_meta(s, gen),
                            "valid 2:4 metadata"),
            "b_scales": TensorSpec((groups, c.n), f16, dist="uniform", low=0.002, high=0.02),
            "workspace": TensorSpec((c.n // 128 * 64,), i32, dist="index", low=0, high=1),
            "b_q_type": UINT4B8 if c.bits == 4 else UINT8B128,
            "size_m": c.m, "size_n": c.n, "size_k": c.k,
        })


def gptq_marlin_24_gemm() -> Operator:
    return vllm_operator(
        "gptq_marlin_24_gemm", "marlin",
        "2:4-sparse weight-only quantised GEMM out = a @ W: W decompressed from Marlin-ordered kept codes "
        "and 2-bit position metadata, dequantised with (permuted) group or channel scales.",
        params=(
            Param("a", "Tensor"), Param("b_q_weight", "Tensor"), Param("b_meta", "Tensor"),
            Param("b_scales", "Tensor"), Param("workspace", "Tensor", scratch=True), Param("b_q_type", "int"),
            Param("size_m", "int"), Param("size_n", "int"), Param("size_k", "int"),
        ),
        signature=("gptq_marlin_24_gemm(a: torch.Tensor, b_q_weight: torch.Tensor, b_meta: torch.Tensor, "
                   "b_scales: torch.Tensor, workspace: torch.Tensor, b_q_type: int, size_m: int, size_n: int, "
                   "size_k: int) -> torch.Tensor"),
        reference=gptq_marlin_24_gemm_reference,
        sampler=gemm24_sampler,
        tolerance=MATMUL_TOLERANCE,
        ov_doc=(
            "a [size_m, size_k] float16 contiguous. b_q_type is vLLM's ScalarType id: uint4b8 "
            f"({UINT4B8}: 4-bit codes, bias 8) or uint8b128 ({UINT8B128}: 8-bit, bias 128); pack = 32 / bits. "
            "The dense code matrix W [size_k, size_n] keeps two codes per aligned group of 4 k of a column "
            "(the other two weights are 0). Kept codes Wc [size_k / 2, size_n] (row 2g + h: kept entry h of "
            "group g) sit in b_q_weight int32 [size_k / 32, size_n * 16 / pack] in tiles of 16 x 64 (Wc row x "
            "column), tile (kt, nt) at flat word offset (kt * size_n / 64 + nt) * 1024 / pack. In a tile, for "
            "t < 32, j < 4: let v[4b + r] (b < 2, r < 4) be the code at row 2(t % 4) + (0, 1, 8, 9)[r], "
            "column 8(t // 4) + 4b + j; 4-bit: word 4t + j holds v[0, 2, 4, 6, 1, 3, 5, 7] in nibbles 0..7; "
            "8-bit: word 8t + 2j + b holds v[4b + (0, 2, 1, 3)] in bytes 0..3. "
            "b_meta int16 [size_k / 32, 2 size_n]: the 16-bit word of (column n, dense k 16c..16c+15) "
            "holds, in bits 4i..4i+3, the group g = 4c + i: bits 0-1 the position (0..3) in the group of "
            "kept entry 0, bits 2-3 that of entry 1 (always first < second: nibbles 0x4, 0x8, 0x9, 0xC, "
            "0xD, 0xE). It is at flat position (c // 2) * 2 size_n + 2 (R - R % 2 + c % 2) + R % 2 of b_meta, "
            "R = 64 (n // 64) + 2 (n % 2) + 32 ((n // 2) % 2) + (n // 4) % 2 + 4 ((n // 8) % 8) (CUTLASS's "
            "interleaved metadata order). b_scales float16 [groups, size_n]: one group (plain order) or "
            "groups = size_k / 128, then permuted in chunks of 8 along the flat tensor: position 8i + s "
            "holds plain element 8i + (0, 4, 1, 5, 2, 6, 3, 7)[s]. W[k, n] = (code - bias) * "
            "scale[k // (size_k / groups), n] where kept, else 0. Returns a new float16 [size_m, size_n] "
            "= a @ W (float32 accumulation). workspace int32 [size_n / 128 * 64] is vLLM's lock buffer: "
            "scratch, may be used or ignored."),
        notes=("csrc/quantization/marlin/sparse/marlin_24_cuda_kernel.cu; layouts as vLLM's marlin_24_quantize "
               "(marlin_utils_test_24.py: CUTLASS metadata reordering, get_weight_perm_24, "
               "marlin_permute_scales_24). Drawn: uint4b8 and uint8b128, group 128 and channelwise, size_k a "
               "multiple of 128, size_n of 128 (of 256 when size_m > 16: vLLM's thread tiles), random kept "
               "codes and uniformly drawn valid metadata. Not drawn: size_m = 0 (vLLM raises), other "
               "group sizes and dtypes (vLLM accepts only these), invalid metadata nibbles (undefined on "
               "the tensor cores)."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "gptq_marlin_24_gemm": gptq_marlin_24_gemm,
}
