"""MLA cache block copies and row gathers as vLLM does them: `copy_blocks_mla` and `shuffle_rows`.

Semantics from vLLM's csrc/cache_kernels.cu (`copy_blocks_mla` and its kernel), csrc/cache.h and
csrc/torch_bindings.cpp (the `_C_cache_ops` schema), csrc/moe/moe_permute_unpermute_op.cu
(`shuffle_rows` and `shuffleInputRowsKernel`), csrc/moe/torch_bindings.cpp (the `_moe_C` schema),
vllm/_custom_ops.py (the Python signatures; `shuffle_rows` allocates its output there) and
tests/kernels/test_shuffle_rows.py. Both ops only move data, so they are judged bit-exact and their
host code may only allocate and view (work "data"). The caches arrive holding random values: every
block the op does not write must come back exactly as it came.

cp_gather_cache and gather_and_maybe_dequant_cache (block_table / cu_seq_lens gathers) are not
here yet: their cu_seq_lens (non-decreasing offsets) and token_to_seq (each token's sequence) are
structured index tensors that no TensorSpec distribution draws.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from ..build import sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec
from .cache import EXACT, _data, _nbytes
from .family import vllm_operator

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16


# ---------------------------------------------------------------------------------------------
# copy_blocks_mla


@dataclass(frozen=True)
class MlaCopy:
    """`pairs` (src, dst) block pairs over `layers` MLA caches [num_blocks, block_size, entry]."""

    pairs: int
    num_blocks: int
    block_size: int
    entry: int
    dtype: torch.dtype
    layers: int


# DeepSeek-V3: kv_lora_rank 512 + rope 64 = 576 per token, block size 64 in vLLM's MLA backends,
# 61 layers (fewer here, to bound the perf tier's memory). The small tier adds odd entry sizes,
# block sizes 1..16 and one to three layers.
MLA_COPY_CASES: dict[str, list[MlaCopy]] = {
    "small": [
        MlaCopy(2, 6, 4, 40, f32, 2),
        MlaCopy(1, 3, 4, 576, bf16, 1),
        MlaCopy(3, 7, 8, 24, f16, 3),
        MlaCopy(4, 9, 2, 36, bf16, 2),
        MlaCopy(1, 2, 16, 72, f32, 1),
        MlaCopy(2, 5, 1, 100, f16, 2),
    ],
    "large": [
        MlaCopy(64, 256, 64, 576, bf16, 2),
        MlaCopy(100, 300, 16, 576, f16, 2),
        MlaCopy(33, 80, 32, 160, f32, 3),
    ],
    "perf": [
        MlaCopy(512, 2048, 64, 576, bf16, 8),
        MlaCopy(32, 2048, 64, 576, bf16, 8),
        MlaCopy(256, 1024, 16, 576, f16, 16),
    ],
}


def copy_blocks_mla_reference(kv_caches: list[torch.Tensor], block_mapping: torch.Tensor) -> None:
    src, dst = block_mapping[:, 0], block_mapping[:, 1]
    for cache in kv_caches:
        cache[dst] = cache[src]


def copy_blocks_mla_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in MLA_COPY_CASES[size]:
        assert 2 * c.pairs <= c.num_blocks, c
        yield sample({
            "kv_caches": [TensorSpec((c.num_blocks, c.block_size, c.entry), c.dtype) for _ in range(c.layers)],
            "block_mapping": TensorSpec((c.pairs, 2), torch.int64, dist="unique", low=0, high=c.num_blocks),
        })


def copy_blocks_mla_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """Each pair reads one block and writes one block in every layer; the mapping is read once."""
    mapping = values["block_mapping"]
    pairs = mapping.shape[0]
    blocks = sum(2 * pairs * c[0].numel() * c.element_size() for c in values["kv_caches"])
    return blocks + _nbytes(mapping)


def copy_blocks_mla() -> Operator:
    return _data(vllm_operator(
        "copy_blocks_mla", "cache",
        "Copy cache blocks within every layer's joint MLA KV cache (copy-on-write of shared blocks).",
        params=(
            Param("kv_caches", "Tensor(a!)[]", writes=True),
            Param("block_mapping", "Tensor"),
        ),
        signature="copy_blocks_mla(kv_caches: list[torch.Tensor], block_mapping: torch.Tensor) -> None",
        reference=copy_blocks_mla_reference,
        sampler=copy_blocks_mla_sampler,
        tolerance=EXACT,
        notes=("All 2n block numbers of block_mapping are distinct: vLLM copies the pairs in parallel, so a "
               "block that is both a source and a destination, or a repeated destination, races. (vLLM's "
               "copy-on-write can fork one source to several destinations; not drawn.) Caches are contiguous, "
               "one shape and dtype for every layer: vLLM copies kv_caches[0].stride(0) elements per block of "
               "every layer, so a cache padded past its entries (stride(0) > block_size * entry) has its padding "
               "copied too; padded caches are not drawn. An empty kv_caches list (vLLM returns at once) is not "
               "drawn."),
        ov_doc=("kv_caches: one contiguous tensor per layer [num_blocks, block_size, entry] (MLA: entry = "
                "kv_lora_rank + rope dim), same shape and dtype; block_mapping int64 [n, 2] of (src, dst) block "
                "pairs on the caches' device, all 2n distinct. For every layer l and pair i: "
                "kv_caches[l][dst_i] = kv_caches[l][src_i]; every other block is left as it is. Writes the caches "
                "in place; returns None."),
    ), copy_blocks_mla_traffic)


# ---------------------------------------------------------------------------------------------
# shuffle_rows


@dataclass(frozen=True)
class Shuffle:
    """input [m, k], dst2src_map [n]; `permutation` draws n == m distinct sources."""

    m: int
    n: int
    k: int
    dtype: torch.dtype
    permutation: bool = False

    def values(self) -> dict[str, object]:
        if self.permutation:
            assert self.n == self.m
            index = TensorSpec((self.n,), torch.int32, dist="unique", low=0, high=self.m)
        else:
            index = TensorSpec((self.n,), torch.int32, dist="index", low=0, high=self.m)
        return {"input_tensor": TensorSpec((self.m, self.k), self.dtype), "dst2src_map": index}


# vLLM's host code wants k divisible by 16. MoE permutes tokens x top-k rows of the hidden size:
# DeepSeek-V3 (7168, top-8), Mixtral 8x7B (4096, top-2), Llama-4-style (5120, top-1 permutation).
SHUFFLE_CASES: dict[str, list[Shuffle]] = {
    "small": [
        Shuffle(5, 9, 16, f32),
        Shuffle(7, 7, 48, f16, permutation=True),
        Shuffle(3, 12, 32, bf16),
        Shuffle(10, 4, 64, f32),
        Shuffle(1, 5, 16, f16),
        Shuffle(9, 18, 128, bf16),
        Shuffle(6, 6, 16, f32, permutation=True),
    ],
    "large": [
        Shuffle(1024, 2048, 2048, bf16),
        Shuffle(777, 1554, 1024, f16),
        Shuffle(512, 512, 2048, f32, permutation=True),
    ],
    "perf": [
        Shuffle(4096, 32768, 7168, bf16),
        Shuffle(8192, 16384, 4096, bf16),
        Shuffle(256, 2048, 7168, bf16),
        Shuffle(8192, 8192, 5120, f16, permutation=True),
    ],
}


def shuffle_rows_reference(input_tensor: torch.Tensor, dst2src_map: torch.Tensor) -> torch.Tensor:
    return input_tensor[dst2src_map.long()]


def shuffle_rows_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in SHUFFLE_CASES[size]:
        assert c.k % 16 == 0, c
        yield sample(c.values())


def shuffle_rows_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """Reads the map and each row it picks once (a row picked for several top-k slots comes from
    the cache after its first read), writes every output row."""
    rows, picks = values["input_tensor"], values["dst2src_map"]
    unique = int(torch.unique(picks).numel())
    return sum(_nbytes(t) for t in outputs) + unique * rows[0].numel() * rows.element_size() + _nbytes(picks)


def shuffle_rows() -> Operator:
    return _data(vllm_operator(
        "shuffle_rows", "cache",
        "Gather rows by a destination-to-source map (MoE token permutation, rows repeated for top-k).",
        params=(
            Param("input_tensor", "Tensor"),
            Param("dst2src_map", "Tensor"),
        ),
        signature="shuffle_rows(input_tensor: torch.Tensor, dst2src_map: torch.Tensor) -> torch.Tensor",
        reference=shuffle_rows_reference,
        sampler=shuffle_rows_sampler,
        tolerance=EXACT,
        notes=("Sources are in [0, m) (vLLM 0.13's kernel reads out of bounds otherwise; later versions write "
               "zeros), repeats allowed. k is a multiple of 16 (vLLM's host check). An empty dst2src_map is not "
               "drawn (vLLM would launch a grid of zero blocks). input is contiguous (vLLM indexes rows as "
               "row * k). The op family is MoE; it sits with the cache gathers as a row gather."),
        ov_doc=("input_tensor [m, k] contiguous float32/float16/bfloat16, k % 16 == 0; dst2src_map int32 [n] "
                "with every value in [0, m). Returns a new contiguous tensor out [n, k] of input's dtype with "
                "out[i] = input_tensor[dst2src_map[i]]."),
    ), shuffle_rows_traffic)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "copy_blocks_mla": copy_blocks_mla,
    "shuffle_rows": shuffle_rows,
}
