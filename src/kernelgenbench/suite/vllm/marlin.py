"""Marlin weight layouts as vLLM 0.13 prepares them, and the Marlin GEMM that reads them:
`gptq_marlin_moe_repack`, `awq_marlin_moe_repack`, `marlin_int4_fp8_preprocess`, `gptq_marlin_gemm`.

- The repacks (csrc/quantization/gptq_marlin/gptq_marlin_repack.cu and awq_marlin_repack.cu, one
  launch per expert from vllm/_custom_ops.py's gptq_marlin_moe_repack / awq_marlin_moe_repack;
  schemas in csrc/torch_bindings.cpp) turn packed quantised codes into the tile order Marlin's
  tensor-core kernels read. A GPTQ checkpoint packs `pack = 32 / num_bits` codes of consecutive k
  into one int32 (code k of column n in word [k // pack, n], bits (k % pack) * num_bits); AWQ packs
  consecutive n (code n of row k in word [k, n // pack], at the interleaved slot AWQ_SLOT[n % pack]).
  Both become the same Marlin words: the code matrix W [size_k, size_n] is cut into tiles of
  16 x 64 (k x n) with 8-bit activations (is_a_8bit) 32 x 32; tile (kt, nt) fills the `tile_words`
  = tile_k * tile_n / pack words at flat offset (kt * n_tiles + nt) * tile_words of the output
  [size_k / 16, size_n * 16 / pack], each word holding the codes one tensor-core thread needs,
  in the slot order of FasterTransformer's interleaved conversion (see `marlin_tile_source`).
  With act-order (GPTQ only, perm [size_k] non-empty) tile row k reads W[perm[k]].
- marlin_int4_fp8_preprocess (csrc/quantization/gptq_marlin/marlin_int4_fp8_preprocess.cu) rewrites
  every 4-bit code of a packed int32 tensor for Marlin's int4 x fp8 path: without zero points
  q -> q - 8 if q >= 8 else 15 - q; with AWQ zero points (qzeros [size_k / group, size_n / 8], the
  zero of a code in the same slot of its group's word) q -> q - z if q >= z else 15 - q. In place
  (returning qweight) or into a new tensor.

- gptq_marlin_gemm (csrc/quantization/gptq_marlin/gptq_marlin.cu and marlin_template.h; the
  scale layout of marlin_permute_scales in vllm/model_executor/layers/quantization/utils/
  marlin_utils.py): out = a @ W for a [m, k] fp16/bf16 and W dequantised from Marlin words:
  W[k, n] = (code - bias) * scale[k // group, n], bias 8 for uint4b8 and 128 for uint8b128 (GPTQ's
  symmetric types, named by vLLM's ScalarType id, `b_q_type`). The scales arrive permuted as
  marlin_permute_scales leaves them: in chunks of 64 along the flat [groups, n] tensor, position
  l holds the chunk's element (l % 8) * 8 + l // 8 when there are several groups; with one group
  (channelwise) in chunks of 32, position l = 8i + j holds element 2i + (j % 2) + 8 (j // 2).
  Marlin dequantises in the activation dtype (the weight rounded once to it) and accumulates in
  float32; the truth is the float64 product.

Packed words are random int32 here: every int32 is the packing of some codes, and a checkpoint's
packer (tests/test_vllm_marlin.py packs quantised float weights with `gptq_pack` / `awq_pack`) gives
words of the same kind. The outputs are integers, judged bit-exact.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import MATMUL_TOLERANCE, sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec
from .family import compute_dtype, vllm_operator

i32 = torch.int32
INT32_LOW, INT32_HIGH = -(2 ** 31), 2 ** 31

AWQ_SLOT = {4: (0, 4, 1, 5, 2, 6, 3, 7), 8: (0, 2, 1, 3)}
"""AWQ's interleave: code n % pack of a word sits in slot AWQ_SLOT[n % pack] (AWQ packs columns
(0, 2, 4, 6, 1, 3, 5, 7) into slots 0..7; the repack kernel's `undo_pack` is this table)."""


# ---------------------------------------------------------------------------------------------
# Packers (checkpoint formats), used by the tests to make words from quantised float weights


def gptq_pack(codes: torch.Tensor, num_bits: int) -> torch.Tensor:
    """codes [..., k, n] in [0, 2^bits) -> GPTQ words [..., k / pack, n] (consecutive k in a word)."""
    pack = 32 // num_bits
    c = codes.to(torch.int64).unflatten(-2, (-1, pack))  # [..., k / pack, pack, n]
    shifts = (torch.arange(pack) * num_bits).view(pack, 1)
    return _to_i32((c << shifts).sum(-2))


def awq_pack(codes: torch.Tensor, num_bits: int) -> torch.Tensor:
    """codes [..., k, n] -> AWQ words [..., k, n / pack] (consecutive n, interleaved slots)."""
    pack = 32 // num_bits
    c = codes.to(torch.int64).unflatten(-1, (-1, pack))  # [..., k, n / pack, pack]
    shifts = torch.tensor(AWQ_SLOT[num_bits]) * num_bits
    return _to_i32((c << shifts).sum(-1))


def _to_i32(words: torch.Tensor) -> torch.Tensor:
    """Unsigned 32-bit values held in int64 -> the int32 with the same bits."""
    return torch.where(words >= INT32_HIGH, words - 2 ** 32, words).to(i32)


def gptq_codes(words: torch.Tensor, num_bits: int) -> torch.Tensor:
    """GPTQ words [..., k / pack, n] -> codes [..., k, n] (int64)."""
    pack = 32 // num_bits
    shifts = (torch.arange(pack, device=words.device) * num_bits).view(pack, 1)
    c = (words.to(torch.int64).unsqueeze(-2) >> shifts) & ((1 << num_bits) - 1)
    return c.flatten(-3, -2)


def awq_codes(words: torch.Tensor, num_bits: int) -> torch.Tensor:
    """AWQ words [..., k, n / pack] -> codes [..., k, n] (int64)."""
    shifts = torch.tensor(AWQ_SLOT[num_bits], device=words.device) * num_bits
    c = (words.to(torch.int64).unsqueeze(-1) >> shifts) & ((1 << num_bits) - 1)
    return c.flatten(-2, -1)


# ---------------------------------------------------------------------------------------------
# The Marlin tile order


def marlin_tile_shape(is_a_8bit: bool) -> tuple[int, int]:
    """(tile_k, tile_n) of one repack tile."""
    return (32, 32) if is_a_8bit else (16, 64)


def marlin_tile_source(num_bits: int, is_a_8bit: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """For every (word, slot) of one tile, the (k, n) in the tile its code comes from: two int64
    tensors [tile_words, pack].

    Four warps of 32 threads each make the words of one tile. Thread th of warp w owns column
    c = w * 16 + th // 4 (16-bit activations; with 8-bit ones (w // 2) * 16 + th // 4 + (w % 2) * 8)
    and gathers 8 codes v[0..7]: v[i] and v[4 + i] at rows (th % 4) * 2 + (0, 1, 8, 9)[i] of
    columns c and c + 8 (with 8-bit activations rows (th % 4) * 4 + i and that + 16, column c).
    4-bit: one word th * 4 + w holds v[order[0..7]] in its 8 nibbles, order (0, 2, 4, 6, 1, 3, 5, 7)
    (8-bit activations (0, 4, 1, 5, 2, 6, 3, 7)). 8-bit: two words th * 8 + w * 2 + h (h = 0, 1)
    hold v[4h + order[0..3]] in their bytes, order (0, 2, 1, 3) (8-bit activations (0, 1, 2, 3)).
    """
    ks, ns = _tile_source_table(num_bits, is_a_8bit)
    return torch.tensor(ks, dtype=torch.int64), torch.tensor(ns, dtype=torch.int64)


@functools.cache
def _tile_source_table(num_bits: int, is_a_8bit: bool) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """`marlin_tile_source` as nested tuples, built once: built per call, element by element, it cost
    2,048 tensor writes per expert, and the stand-in baseline of the MoE repacks timed that host loop."""
    pack = 32 // num_bits
    ks = [[0] * pack for _ in range(4 * 32 * 8 // pack)]
    ns = [[0] * pack for _ in range(4 * 32 * 8 // pack)]
    for warp in range(4):
        for th in range(32):
            if is_a_8bit:
                col = (warp // 2) * 16 + th // 4 + (warp % 2) * 8
                rows = [(th % 4) * 4 + i for i in range(4)]
                v = [(r, col) for r in rows] + [(r + 16, col) for r in rows]
            else:
                col = warp * 16 + th // 4
                rows = [(th % 4) * 2 + off for off in (0, 1, 8, 9)]
                v = [(r, col) for r in rows] + [(r, col + 8) for r in rows]
            if num_bits == 4:
                order = (0, 4, 1, 5, 2, 6, 3, 7) if is_a_8bit else (0, 2, 4, 6, 1, 3, 5, 7)
                words = [(th * 4 + warp, [v[j] for j in order])]
            else:
                order = (0, 1, 2, 3) if is_a_8bit else (0, 2, 1, 3)
                words = [(th * 8 + warp * 2 + h, [v[4 * h + j] for j in order]) for h in (0, 1)]
            for word, slots in words:
                for slot, (k, n) in enumerate(slots):
                    ks[word][slot], ns[word][slot] = k, n
    return tuple(tuple(r) for r in ks), tuple(tuple(r) for r in ns)


def marlin_pack(codes: torch.Tensor, num_bits: int, is_a_8bit: bool = False) -> torch.Tensor:
    """codes [k, n] (rows already in act order) -> Marlin words [k / 16, n * 16 / pack] int32."""
    size_k, size_n = codes.shape
    pack = 32 // num_bits
    tile_k, tile_n = marlin_tile_shape(is_a_8bit)
    ks, ns = marlin_tile_source(num_bits, is_a_8bit)
    ks, ns = ks.to(codes.device), ns.to(codes.device)
    k_tiles, n_tiles = size_k // tile_k, size_n // tile_n
    kt = torch.arange(k_tiles, device=codes.device).view(-1, 1, 1, 1)
    nt = torch.arange(n_tiles, device=codes.device).view(1, -1, 1, 1)
    gathered = codes.to(torch.int64)[kt * tile_k + ks, nt * tile_n + ns]  # [kt, nt, words, pack]
    shifts = torch.arange(pack, device=codes.device) * num_bits
    words = _to_i32((gathered << shifts).sum(-1))
    return words.reshape(size_k // 16, size_n * 16 // pack)


def marlin_unpack(words: torch.Tensor, size_k: int, size_n: int, num_bits: int,
                  is_a_8bit: bool = False,
                  source: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
    """Marlin words [k / 16, n * 16 / pack] -> codes [k, n] (int64): the inverse of `marlin_pack`.
    `source` replaces the (k, n) table of `marlin_tile_source` for layouts with other thread maps
    (the 2:4-sparse Marlin)."""
    pack = 32 // num_bits
    tile_k, tile_n = marlin_tile_shape(is_a_8bit)
    ks, ns = source if source is not None else marlin_tile_source(num_bits, is_a_8bit)
    ks, ns = ks.to(words.device), ns.to(words.device)
    k_tiles, n_tiles = size_k // tile_k, size_n // tile_n
    shifts = torch.arange(pack, device=words.device) * num_bits
    flat = words.to(torch.int64).reshape(k_tiles, n_tiles, -1, 1)
    c = (flat >> shifts) & ((1 << num_bits) - 1)
    kt = torch.arange(k_tiles, device=words.device).view(-1, 1, 1, 1)
    nt = torch.arange(n_tiles, device=words.device).view(1, -1, 1, 1)
    codes = torch.empty(size_k, size_n, dtype=torch.int64, device=words.device)
    codes[(kt * tile_k + ks).expand_as(c), (nt * tile_n + ns).expand_as(c)] = c
    return codes


# ---------------------------------------------------------------------------------------------
# gptq_marlin_moe_repack, awq_marlin_moe_repack


def gptq_marlin_moe_repack_reference(b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int,
                                     num_bits: int, is_a_8bit: bool = False) -> torch.Tensor:
    out = []
    for e in range(b_q_weight.shape[0]):
        codes = gptq_codes(b_q_weight[e], num_bits)
        if perm.shape[-1] != 0:
            codes = codes[perm[e].long()]
        out.append(marlin_pack(codes, num_bits, is_a_8bit))
    return torch.stack(out).reshape(b_q_weight.shape[0], size_k // 16, size_n * num_bits // 2)


def awq_marlin_moe_repack_reference(b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int,
                                    num_bits: int, is_a_8bit: bool = False) -> torch.Tensor:
    out = [marlin_pack(awq_codes(b_q_weight[e], num_bits), num_bits, is_a_8bit) for e in range(b_q_weight.shape[0])]
    return torch.stack(out).reshape(b_q_weight.shape[0], size_k // 16, size_n * num_bits // 2)


@dataclass(frozen=True)
class Repack:
    """One MoE repack: `experts` weights of [size_k, size_n] codes of `bits` bits."""

    experts: int
    size_k: int
    size_n: int
    bits: int = 4
    a8: bool = False
    act_order: bool = False


# Mixtral 8x7B (hidden 4096, intermediate 14336: w13 [4096, 28672], w2 [14336, 4096]), Qwen3-30B-A3B
# (128 experts, hidden 2048, intermediate 768), DeepSeek-V3 (hidden 7168, intermediate 2048)
REPACKS: dict[str, list[Repack]] = {
    "small": [
        Repack(1, 16, 64),
        Repack(2, 32, 128, act_order=True),
        Repack(3, 48, 64, bits=8),
        Repack(2, 32, 64, bits=8, act_order=True),
        Repack(2, 64, 128, a8=True),
        Repack(1, 32, 192, bits=8, a8=True),
        Repack(2, 80, 192),
    ],
    "large": [
        Repack(8, 1024, 2048, act_order=True),
        Repack(16, 2048, 1536, a8=True),
        Repack(4, 768, 2048, bits=8),
    ],
    "perf": [
        Repack(8, 4096, 28672),
        Repack(8, 14336, 4096, act_order=True),
        Repack(128, 2048, 1536),
        Repack(32, 7168, 4096, bits=8),
    ],
}

REPACK_NOTES = (
    "size_k a multiple of 16 (of 32 with is_a_8bit: vLLM's tiles are then 32 deep and a last half tile is "
    "left unwritten) and size_n of 64; num_bits 4 or 8; contiguous int32 weights (vLLM checks). Not drawn: "
    "act-order with is_a_8bit (vLLM has no such kernel)."
)


def _repack_sampler(awq: bool) -> Callable[[Overload, Size], Iterator[Sample]]:
    grids = _awq_repacks() if awq else REPACKS

    def draw(ov: Overload, size: Size) -> Iterator[Sample]:
        for c in grids[size]:
            pack = 32 // c.bits
            assert c.size_k % (32 if c.a8 else 16) == 0 and c.size_n % 64 == 0 and not (c.a8 and c.act_order), c
            shape = (c.experts, c.size_k, c.size_n // pack) if awq else (c.experts, c.size_k // pack, c.size_n)
            perm = (TensorSpec((c.experts, c.size_k), i32, dist="unique", low=0, high=c.size_k, along=1)
                    if c.act_order else TensorSpec((c.experts, 0), i32))
            yield sample({
                "b_q_weight": TensorSpec(shape, i32, dist="uniform", low=INT32_LOW, high=INT32_HIGH),
                "perm": perm, "size_k": c.size_k, "size_n": c.size_n, "num_bits": c.bits, "is_a_8bit": c.a8,
            })
    return draw


def _awq_repacks() -> dict[str, list[Repack]]:
    return {size: [dataclasses.replace(c, act_order=False) for c in cases] for size, cases in REPACKS.items()}


REPACK_PARAMS = (
    Param("b_q_weight", "Tensor"),
    Param("perm", "Tensor"),
    Param("size_k", "int"),
    Param("size_n", "int"),
    Param("num_bits", "int"),
    Param("is_a_8bit", "bool", has_default=True, default=False),
)
REPACK_SIGNATURE = ("(b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int, num_bits: int, "
                    "is_a_8bit: bool = False) -> torch.Tensor")
MARLIN_DOC = (
    "Returns a new int32 tensor [E, size_k / 16, size_n * num_bits / 2]; expert e's slice, read flat, is "
    "the Marlin order of its code matrix W [size_k, size_n]: tiles of 16 x 64 (k x n; 32 x 32 with "
    "is_a_8bit), tile (kt, nt) at flat word offset (kt * n_tiles + nt) * tile_words, tile_words = "
    "tile_k * tile_n * num_bits / 32. In a tile, thread th (0..31) of warp w (0..3) owns column "
    "c = 16w + th // 4 and takes v[i], v[4 + i] (i < 4) from rows 2(th % 4) + (0, 1, 8, 9)[i] of columns c "
    "and c + 8; with is_a_8bit c = 16(w // 2) + th // 4 + 8(w % 2) and rows 4(th % 4) + i and that + 16, "
    "both of column c. 4-bit: word 4th + w holds v[0, 2, 4, 6, 1, 3, 5, 7] (is_a_8bit: v[0, 4, 1, 5, 2, 6, "
    "3, 7]) in nibbles 0..7; 8-bit: words 8th + 2w + h (h = 0, 1) hold v[4h + (0, 2, 1, 3)] (is_a_8bit: "
    "v[4h + (0, 1, 2, 3)]) in bytes 0..3. Codes are unsigned num_bits-bit fields, moved unchanged."
)


def _repack_operator(op: Operator) -> Operator:
    return dataclasses.replace(op, work="data")  # a permutation of bits: the move itself is the kernel


def gptq_marlin_moe_repack() -> Operator:
    return _repack_operator(vllm_operator(
        "gptq_marlin_moe_repack", "marlin",
        "Repack the GPTQ-packed weights of every expert into Marlin's tensor-core tile order (optionally "
        "applying the act-order row permutation).",
        params=REPACK_PARAMS,
        signature=f"gptq_marlin_moe_repack{REPACK_SIGNATURE}",
        reference=gptq_marlin_moe_repack_reference,
        sampler=_repack_sampler(False),
        ov_doc=("b_q_weight [E, size_k * num_bits / 32, size_n] int32, GPTQ-packed: code (k, n) of expert e is "
                "bits [(k % pack) * num_bits, +num_bits) of b_q_weight[e, k // pack, n], pack = 32 / num_bits. "
                "perm int32 [E, size_k] (act order: W's row k is the checkpoint's row perm[e, k]) or [E, 0] "
                f"(no reordering). num_bits 4 or 8. {MARLIN_DOC}"),
        notes="csrc/quantization/gptq_marlin/gptq_marlin_repack.cu, vllm/_custom_ops.py. " + REPACK_NOTES,
    ))


def awq_marlin_moe_repack() -> Operator:
    op = vllm_operator(
        "awq_marlin_moe_repack", "marlin",
        "Repack the AWQ-packed weights of every expert into Marlin's tensor-core tile order.",
        params=REPACK_PARAMS,
        signature=f"awq_marlin_moe_repack{REPACK_SIGNATURE}",
        reference=awq_marlin_moe_repack_reference,
        sampler=_repack_sampler(True),
        ov_doc=("b_q_weight [E, size_k, size_n * num_bits / 32] int32, AWQ-packed along n with interleaved "
                "slots: code (k, n) of expert e is field slot(n % pack) of b_q_weight[e, k, n // pack], "
                "pack = 32 / num_bits, slot = (0, 4, 1, 5, 2, 6, 3, 7) for 4 bits and (0, 2, 1, 3) for 8 "
                "(field s = bits [s * num_bits, +num_bits)). perm [E, 0] int32 is unused. num_bits 4 or 8. "
                f"{MARLIN_DOC}"),
        notes="csrc/quantization/gptq_marlin/awq_marlin_repack.cu, vllm/_custom_ops.py. " + REPACK_NOTES,
    )
    return _repack_operator(op)


# ---------------------------------------------------------------------------------------------
# marlin_int4_fp8_preprocess


def marlin_int4_fp8_preprocess_reference(qweight: torch.Tensor, qzeros_or_none: torch.Tensor | None = None,
                                         inplace: bool = False) -> torch.Tensor:
    shifts = torch.arange(8, device=qweight.device) * 4
    q = (qweight.to(torch.int64).unsqueeze(-1) >> shifts) & 0xF
    if qzeros_or_none is None:
        z = torch.full_like(q, 8)
    else:
        group = qweight.shape[0] // qzeros_or_none.shape[0]
        z = (qzeros_or_none.to(torch.int64).repeat_interleave(group, 0).unsqueeze(-1) >> shifts) & 0xF
    new = torch.where(q >= z, q - z, 15 - q)
    out = _to_i32((new << shifts).sum(-1))
    if inplace:
        qweight.copy_(out)
        return qweight
    return out


@dataclass(frozen=True)
class Preprocess:
    """qweight [rows, cols] int32; with `group`, AWQ zeros of one row per `group` rows."""

    rows: int
    cols: int
    group: int | None = None
    inplace: bool = False


PREPROCESS: dict[str, list[Preprocess]] = {
    "small": [
        Preprocess(4, 8), Preprocess(2, 80, inplace=True), Preprocess(16, 64),
        Preprocess(32, 8, group=32), Preprocess(64, 24, group=8, inplace=True),
        Preprocess(96, 16, group=96), Preprocess(128, 40, group=64),
    ],
    "large": [Preprocess(512, 4096), Preprocess(4096, 1792, group=128, inplace=True)],
    # GPTQ [k / 8, n] and AWQ [k, n / 8] weights of Llama-3-8B's MLP and Llama-3-70B's up projection
    "perf": [Preprocess(4096 // 8, 14336, inplace=True), Preprocess(14336, 4096 // 8, group=128),
             Preprocess(8192, 28672 // 8, group=128, inplace=True)],
}


def preprocess_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in PREPROCESS[size]:
        assert c.rows * c.cols % 32 == 0, c
        zeros = None
        if c.group is not None:
            assert c.rows % 32 == 0 and c.rows % c.group == 0 and c.group % 8 == 0, c
            zeros = TensorSpec((c.rows // c.group, c.cols), i32, dist="uniform", low=INT32_LOW, high=INT32_HIGH)
        yield sample({
            "qweight": TensorSpec((c.rows, c.cols), i32, dist="uniform", low=INT32_LOW, high=INT32_HIGH),
            "qzeros_or_none": zeros,
            "inplace": c.inplace,
        })


def marlin_int4_fp8_preprocess() -> Operator:
    return vllm_operator(
        "marlin_int4_fp8_preprocess", "marlin",
        "Rewrite packed int4 weight codes (minus their zero point, a negative difference folded to "
        "15 - q) for Marlin's int4 x fp8 kernels, in place or into a new tensor.",
        params=(
            Param("qweight", "Tensor!", writes=True),
            Param("qzeros_or_none", "Tensor?", has_default=True, default=None),
            Param("inplace", "bool", has_default=True, default=False),
        ),
        signature=("marlin_int4_fp8_preprocess(qweight: torch.Tensor, qzeros_or_none: torch.Tensor | None = None, "
                   "inplace: bool = False) -> torch.Tensor"),
        reference=marlin_int4_fp8_preprocess_reference,
        sampler=preprocess_sampler,
        ov_doc=("qweight int32 [rows, cols], contiguous, each word 8 unsigned 4-bit codes (nibble i = bits "
                "[4i, 4i + 4)). Without qzeros_or_none (GPTQ, rows * cols a multiple of 32), every code q "
                "becomes q - 8 if q >= 8 else 15 - q. With qzeros_or_none int32 [rows / group, cols] (AWQ: "
                "qweight is [size_k, size_n / 8], size_k a multiple of 32, group = rows / qzeros rows a "
                "multiple of 8), nibble i of qweight[k, j] uses z = nibble i of qzeros[k // group, j]: "
                "q - z if q >= z else 15 - q. Returns the rewritten words: with inplace=True written into "
                "qweight, which is returned; otherwise a new tensor, qweight unchanged."),
        notes=("csrc/quantization/gptq_marlin/marlin_int4_fp8_preprocess.cu. Not drawn: non-contiguous qweight "
               "(vLLM indexes the raw buffer), sizes vLLM rejects (rows * cols not a multiple of 32; with "
               "zeros, rows not a multiple of 32 or a group not a multiple of 8)."),
    )


# ---------------------------------------------------------------------------------------------
# gptq_marlin_gemm


def scalar_type_id(mantissa: int, signed: bool, bias: int, exponent: int = 0, finite_only: bool = False,
                   nan_repr: int = 1) -> int:
    """vLLM's ScalarType.id: exponent (8 bits), mantissa (8), signed (1), bias (32), finite-only (1)
    and NaN representation (8) packed from bit 0 up (vllm/scalar_type.py)."""
    return (exponent | mantissa << 8 | int(signed) << 16 | (bias & 0xFFFFFFFF) << 17 | int(finite_only) << 49
            | nan_repr << 50)


UINT4B8 = scalar_type_id(4, False, 8)
UINT8B128 = scalar_type_id(8, False, 128)
WEIGHT_TYPES = {UINT4B8: (4, 8), UINT8B128: (8, 128)}
"""b_q_type id -> (bits, bias) of the drawn weight types: scalar_types.uint4b8 and uint8b128."""


def scale_source(size_n: int, groups: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """For every flat position of Marlin's permuted scales [groups, n], the flat position in the
    plain [groups, n] scales it holds. Built on the scales' device: as the timed baseline where vLLM
    is absent, a reference doing host work per call is timed at the host's speed (on the H200 it ran
    3.4x slower beside three other timing workers)."""
    pos = torch.arange(groups * size_n, device=device)
    if groups > 1:
        lane, base = pos % 64, pos - pos % 64
        return base + (lane % 8) * 8 + lane // 8
    lane, base = pos % 32, pos - pos % 32
    i, j = lane // 8, lane % 8
    return base + 2 * i + j % 2 + 8 * (j // 2)


def marlin_permute_scales(scales: torch.Tensor) -> torch.Tensor:
    """Plain scales [groups, n] -> Marlin's order (as vLLM's marlin_permute_scales)."""
    groups, size_n = scales.shape
    return scales.reshape(-1)[scale_source(size_n, groups, scales.device)].reshape(groups, size_n)


def marlin_unpermute_scales(scales: torch.Tensor) -> torch.Tensor:
    groups, size_n = scales.shape
    plain = torch.empty_like(scales).reshape(-1)
    plain[scale_source(size_n, groups, scales.device)] = scales.reshape(-1)
    return plain.reshape(groups, size_n)


def gptq_marlin_gemm_reference(a: torch.Tensor, c: torch.Tensor | None, b_q_weight: torch.Tensor,
                               b_bias: torch.Tensor | None, b_scales: torch.Tensor, a_scales: torch.Tensor | None,
                               global_scale: torch.Tensor | None, b_zeros: torch.Tensor | None,
                               g_idx: torch.Tensor | None, perm: torch.Tensor | None, workspace: torch.Tensor,
                               b_q_type: int, size_m: int, size_n: int, size_k: int, is_k_full: bool = True,
                               use_atomic_add: bool = False, use_fp32_reduce: bool = False,
                               is_zp_float: bool = False) -> torch.Tensor:
    bits, bias = WEIGHT_TYPES[b_q_type]
    codes = marlin_unpack(b_q_weight, size_k, size_n, bits)
    scales = marlin_unpermute_scales(b_scales)
    scales = scales.repeat_interleave(size_k // scales.shape[0], 0)
    weight = (codes - bias).to(a.dtype) * scales  # one rounding to the activation dtype, as Marlin
    acc = compute_dtype(a.dtype)
    return (a.to(acc) @ weight.to(acc)).to(a.dtype)


@dataclass(frozen=True)
class Gemm:
    m: int
    k: int
    n: int
    bits: int
    group: int  # -1: one scale per column
    dtype: torch.dtype


f16, bf16 = torch.float16, torch.bfloat16
GEMMS: dict[str, list[Gemm]] = {
    "small": [
        Gemm(1, 128, 64, 4, -1, f16),
        Gemm(3, 256, 128, 4, 32, bf16),
        Gemm(5, 128, 192, 8, 64, f16),
        Gemm(16, 256, 64, 8, -1, bf16),
        Gemm(2, 384, 128, 4, 128, f16),
        Gemm(33, 128, 128, 4, 128, bf16),
    ],
    "large": [Gemm(64, 4096, 4096, 4, 128, f16), Gemm(100, 2048, 1024, 8, -1, bf16)],
    # Llama-3-8B projections (GPTQ int4, group 128): decode, small batch, prefill
    "perf": [Gemm(1, 4096, 14336, 4, 128, bf16), Gemm(16, 4096, 4096, 4, 128, f16),
             Gemm(256, 14336, 4096, 4, 128, bf16), Gemm(64, 4096, 28672, 8, -1, bf16)],
}
SMS = 132
"""The workspace vLLM allocates (marlin_make_workspace_new): 4 int32 locks per SM of the H200."""


def gemm_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in GEMMS[size]:
        groups = 1 if c.group == -1 else c.k // c.group
        assert c.k % 128 == 0 and c.n % 64 == 0 and c.k % groups == 0, c
        yield sample({
            "a": TensorSpec((c.m, c.k), c.dtype),
            "c": None,
            "b_q_weight": TensorSpec((c.k // 16, c.n * c.bits // 2), i32, dist="uniform", low=INT32_LOW,
                                     high=INT32_HIGH),
            "b_bias": None,
            "b_scales": TensorSpec((groups, c.n), c.dtype, dist="uniform", low=0.002, high=0.02),
            "a_scales": None, "global_scale": None, "b_zeros": None, "g_idx": None, "perm": None,
            "workspace": TensorSpec((SMS * 4,), i32, dist="index", low=0, high=1),
            "b_q_type": UINT4B8 if c.bits == 4 else UINT8B128,
            "size_m": c.m, "size_n": c.n, "size_k": c.k,
        }, hide=("c", "b_bias", "a_scales", "global_scale", "b_zeros", "g_idx", "perm"))


def gptq_marlin_gemm() -> Operator:
    return vllm_operator(
        "gptq_marlin_gemm", "marlin",
        "Weight-only quantised GEMM out = a @ W, W dequantised from Marlin-ordered GPTQ codes and "
        "permuted group scales.",
        params=(
            Param("a", "Tensor"), Param("c", "Tensor?"), Param("b_q_weight", "Tensor"), Param("b_bias", "Tensor?"),
            Param("b_scales", "Tensor"), Param("a_scales", "Tensor?"), Param("global_scale", "Tensor?"),
            Param("b_zeros", "Tensor?"), Param("g_idx", "Tensor?"), Param("perm", "Tensor?"),
            Param("workspace", "Tensor", scratch=True), Param("b_q_type", "int"), Param("size_m", "int"),
            Param("size_n", "int"), Param("size_k", "int"),
            Param("is_k_full", "bool", has_default=True, default=True),
            Param("use_atomic_add", "bool", has_default=True, default=False),
            Param("use_fp32_reduce", "bool", has_default=True, default=False),
            Param("is_zp_float", "bool", has_default=True, default=False),
        ),
        signature=("gptq_marlin_gemm(a: torch.Tensor, c: torch.Tensor | None, b_q_weight: torch.Tensor, "
                   "b_bias: torch.Tensor | None, b_scales: torch.Tensor, a_scales: torch.Tensor | None, "
                   "global_scale: torch.Tensor | None, b_zeros: torch.Tensor | None, g_idx: torch.Tensor | None, "
                   "perm: torch.Tensor | None, workspace: torch.Tensor, b_q_type: int, size_m: int, size_n: int, "
                   "size_k: int, is_k_full: bool = True, use_atomic_add: bool = False, "
                   "use_fp32_reduce: bool = False, is_zp_float: bool = False) -> torch.Tensor"),
        reference=gptq_marlin_gemm_reference,
        sampler=gemm_sampler,
        tolerance=MATMUL_TOLERANCE,
        ov_doc=("a [size_m, size_k] float16/bfloat16 contiguous. b_q_weight int32 [size_k / 16, size_n * bits / 2] "
                "in Marlin order (as gptq_marlin_moe_repack makes one expert's, 16-bit activations) of the "
                "codes of W [size_k, size_n]. b_q_type is vLLM's ScalarType id: uint4b8 "
                f"({UINT4B8}: 4-bit codes, bias 8) or uint8b128 ({UINT8B128}: 8-bit, bias 128). b_scales "
                "[groups, size_n] in a's dtype, group = size_k / groups, in Marlin's order: with groups > 1, "
                "flat position p of b_scales holds plain element p - p % 64 + (p % 8) * 8 + (p % 64) // 8; "
                "with one group, position p = 32c + 8i + j holds plain element 32c + 2i + (j % 2) + 8 (j // 2). "
                "W[k, n] = (code - bias) * scale[k // group, n]. Returns a new [size_m, size_n] tensor of a's "
                "dtype = a @ W (float32 accumulation). workspace int32 [4 * SMs] is vLLM's lock buffer: "
                "scratch, may be used or ignored. c, b_bias, a_scales, global_scale, b_zeros, g_idx, perm are "
                "None; is_k_full True; use_atomic_add, use_fp32_reduce, is_zp_float False."),
        notes=("csrc/quantization/gptq_marlin/gptq_marlin.cu, marlin_template.h; scales as "
               "marlin_utils.marlin_permute_scales; b_q_type ids as vllm/scalar_type.py. Drawn: GPTQ's symmetric "
               "types without act order (uint4b8, uint8b128), channelwise and grouped scales (32, 64, 128), "
               "size_k a multiple of 128 and size_n of 64 (vLLM's minimum thread tiles). Not drawn yet: zero "
               "points (uint4 with b_zeros, AWQ), act order (g_idx, perm, is_k_full), fp8/fp4 weights with "
               "global_scale, 8-bit activations (a_scales), b_bias, an out tensor c, the atomic-add and fp32 "
               "reduce modes (which change nothing but rounding)."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "gptq_marlin_moe_repack": gptq_marlin_moe_repack,
    "awq_marlin_moe_repack": awq_marlin_moe_repack,
    "marlin_int4_fp8_preprocess": marlin_int4_fp8_preprocess,
    "gptq_marlin_gemm": gptq_marlin_gemm,
}
