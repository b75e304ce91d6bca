"""Paged KV-cache layout as vLLM 0.13 writes it: `reshape_and_cache`, `reshape_and_cache_flash`,
`concat_and_cache_mla`, `swap_blocks` and `copy_blocks`.

Semantics from vLLM's csrc/cache_kernels.cu (host functions and kernels of the same names), the
Python signatures in vllm/_custom_ops.py and tests/kernels/attention/test_cache.py. These ops only
move data, so they are judged bit-exact and their host code may only allocate and view (work
"data"). The caches arrive holding random values: every position the op does not write must come
back exactly as it came, which the reference (on a copy of the caches) reproduces.

Slot mappings: vLLM skips a token whose slot is negative (the kernels test `slot < 0`; vLLM itself
passes -1). The inputs here hold distinct non-negative slots (two tokens writing one slot would
race in vLLM) and a few negative ones: distinct draws from [-pad, num_slots), so the padding slots
are -1, -2, ... Only kv_cache_dtype "auto" (the cache has the key's dtype; k_scale and v_scale are
passed and unused) is drawn: fp8 caches, where the write is a scaled cast, are a later step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from ..build import sample
from ..spec import Operator, Overload, Param, Sample, Size, TensorSpec, Tolerance
from .family import vllm_operator

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16

EXACT = Tolerance(k_rms=0.0, k_max=0.0, floor_ulps=0.0)
"""Layout ops copy values: every output element must be the very element it copies."""

KV_WRITE_NOTES = (
    "kv_cache_dtype 'auto' only (fp8 caches are a later step); negative slots are padding (vLLM passes -1, "
    "its kernels skip any slot < 0); non-negative slots are distinct (repeats race in vLLM); slot_mapping "
    "may be shorter than key (vLLM V1 pads key for CUDA graphs and uses slot_mapping.size(0) as the token "
    "count). The drawn tensors are contiguous: token-strided key/value (slices of a fused qkv) and caches "
    "that are views of a combined KV tensor (vLLM allows both, through stride(0) and the cache strides) "
    "need a layout the spec's TensorSpec cannot describe yet."
)


def _slots(tokens: int, num_slots: int, pad: int) -> TensorSpec:
    """Distinct slots in [-pad, num_slots): tokens - pad of them at least are real."""
    assert tokens > pad and tokens <= num_slots + pad
    return TensorSpec((tokens,), torch.int64, dist="unique", low=-pad, high=num_slots)


def _scale() -> TensorSpec:
    return TensorSpec((), f32, dist="uniform", low=0.5, high=2.0)


def _data(op: Operator, traffic: Callable[[Overload, dict[str, Any], list[Any]], int]) -> Operator:
    """A layout operator, with the bytes it must move: the default (every element of every cache,
    read or written once) overcounts writes into a cache few slots of which change, and put the
    timing floor above honest kernels on the H200 (a 4.5 us MLA write under an 8.9 us floor)."""
    return dataclasses.replace(op, work="data", traffic=traffic)


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _row_bytes(t: torch.Tensor, like: torch.Tensor) -> int:
    """Bytes of one token row of `t` stored in `like`'s dtype."""
    return t[0].numel() * like.element_size() if t.shape[0] else 0


def kv_write_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """The T tokens' key and value rows and the slots read; a key and a value row written per valid slot."""
    slots = values["slot_mapping"]
    n, valid = slots.shape[0], int((slots >= 0).sum())
    key, value = values["key"], values["value"]
    read = n * (_row_bytes(key, key) + _row_bytes(value, value)) + _nbytes(slots)
    return read + valid * (_row_bytes(key, values["key_cache"]) + _row_bytes(value, values["value_cache"]))


def mla_write_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """The T tokens' kv_c and k_pe rows and the slots read; one cache entry written per valid slot."""
    slots = values["slot_mapping"]
    n, valid = slots.shape[0], int((slots >= 0).sum())
    kv_c, k_pe, cache = values["kv_c"], values["k_pe"], values["kv_cache"]
    read = n * (_row_bytes(kv_c, kv_c) + _row_bytes(k_pe, k_pe)) + _nbytes(slots)
    return read + valid * (_row_bytes(kv_c, cache) + _row_bytes(k_pe, cache))


def swap_blocks_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """Each pair reads one src block and writes one dst block; the mapping is read once."""
    mapping = values["block_mapping"]
    pairs = mapping.shape[0]
    return pairs * (_row_bytes(values["src"], values["src"]) + _row_bytes(values["dst"], values["dst"])) + \
        _nbytes(mapping)


def copy_blocks_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """Each pair reads one block and writes one block of every key and value cache."""
    mapping = values["block_mapping"]
    caches = [*values["key_caches"], *values["value_caches"]]
    return sum(2 * mapping.shape[0] * _row_bytes(c, c) for c in caches) + _nbytes(mapping)


def _slot_index(slot_mapping: torch.Tensor, block_size: int, num_blocks: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(block, offset in the block) of every token; a padding token's block is `num_blocks`, a
    scratch block past the cache (no data-dependent shapes, so the cases check on meta tensors)."""
    blocks = torch.where(slot_mapping < 0, num_blocks, slot_mapping.div(block_size, rounding_mode="floor"))
    return blocks, slot_mapping.remainder(block_size)


def _scatter(cache: torch.Tensor, write: Callable[[torch.Tensor], None]) -> None:
    """`write` into the cache with one scratch block appended, then keep the real blocks."""
    extended = torch.cat([cache, cache[:1]])
    write(extended)
    cache.copy_(extended[:-1])


# ---------------------------------------------------------------------------------------------
# reshape_and_cache and reshape_and_cache_flash


@dataclass(frozen=True)
class KvWrite:
    """One call: `key_tokens` rows of key/value (>= `tokens`, the slot_mapping length)."""

    key_tokens: int
    tokens: int
    heads: int
    head_size: int
    block_size: int
    num_blocks: int
    dtype: torch.dtype
    pad: int

    def kv(self) -> TensorSpec:
        return TensorSpec((self.key_tokens, self.heads, self.head_size), self.dtype)

    def common(self, key_cache: tuple[int, ...], value_cache: tuple[int, ...]) -> dict[str, object]:
        return {
            "key": self.kv(),
            "value": self.kv(),
            "key_cache": TensorSpec(key_cache, self.dtype),
            "value_cache": TensorSpec(value_cache, self.dtype),
            "slot_mapping": _slots(self.tokens, self.num_blocks * self.block_size, self.pad),
            "kv_cache_dtype": "auto",
            "k_scale": _scale(),
            "v_scale": _scale(),
        }

    def paged(self) -> dict[str, object]:
        x = 16 // self.dtype.itemsize
        nb, h, d, bs = self.num_blocks, self.heads, self.head_size, self.block_size
        return self.common((nb, h, d // x, bs, x), (nb, h, d, bs))

    def flash(self) -> dict[str, object]:
        shape = (self.num_blocks, self.block_size, self.heads, self.head_size)
        return self.common(shape, shape)


# Llama-3-8B/70B and Mixtral 8x7B have 8 KV heads of 128; the small tier adds odd head counts and
# sizes, block sizes 8/16/32, one block, and key longer than slot_mapping.
KV_CASES: dict[str, list[KvWrite]] = {
    "small": [
        KvWrite(5, 5, 2, 16, 16, 2, f32, 2),
        KvWrite(7, 7, 1, 64, 16, 3, f16, 3),
        KvWrite(9, 6, 3, 32, 8, 4, bf16, 2),
        KvWrite(13, 13, 2, 80, 16, 2, f32, 4),
        KvWrite(4, 4, 2, 128, 16, 1, f16, 1),
        KvWrite(11, 8, 2, 96, 32, 1, bf16, 3),
        KvWrite(3, 3, 5, 8, 4, 2, f32, 1),
        KvWrite(16, 16, 1, 64, 16, 1, bf16, 2),
    ],
    "large": [
        KvWrite(2048, 2048, 8, 128, 16, 256, bf16, 64),
        KvWrite(4096, 3000, 8, 128, 16, 256, f16, 100),
        KvWrite(1024, 1024, 8, 64, 32, 64, f32, 10),
        KvWrite(777, 777, 5, 96, 16, 64, bf16, 7),
    ],
    "perf": [
        KvWrite(16384, 16384, 8, 128, 16, 2048, bf16, 128),
        KvWrite(16384, 16384, 8, 128, 16, 2048, f16, 128),
        KvWrite(256, 256, 8, 128, 16, 2048, bf16, 8),
        KvWrite(8192, 8192, 4, 64, 16, 1024, bf16, 64),
    ],
}

# vLLM 0.13's reshape_and_cache runs one thread per x-chunk (16 bytes) of a token's row, with at
# most 512 of them and no loop, so a row of more than 8 KiB would be left partly unwritten.
PAGED_ROW_BYTES = 512 * 16


def reshape_and_cache_reference(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor,
                                value_cache: torch.Tensor, slot_mapping: torch.Tensor, kv_cache_dtype: str,
                                k_scale: torch.Tensor, v_scale: torch.Tensor) -> None:
    n = slot_mapping.shape[0]
    _, heads, head_size = key.shape
    x = key_cache.shape[4]
    blocks, offsets = _slot_index(slot_mapping, key_cache.shape[3], key_cache.shape[0])
    k = key[:n].reshape(n, heads, head_size // x, x).to(key_cache.dtype)
    _scatter(key_cache, lambda c: c.__setitem__((blocks, slice(None), slice(None), offsets), k))
    v = value[:n].to(value_cache.dtype)
    _scatter(value_cache, lambda c: c.__setitem__((blocks, slice(None), slice(None), offsets), v))


def reshape_and_cache_flash_reference(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor,
                                      value_cache: torch.Tensor, slot_mapping: torch.Tensor, kv_cache_dtype: str,
                                      k_scale: torch.Tensor, v_scale: torch.Tensor) -> None:
    n = slot_mapping.shape[0]
    blocks, offsets = _slot_index(slot_mapping, key_cache.shape[1], key_cache.shape[0])
    for rows, cache in ((key[:n], key_cache), (value[:n], value_cache)):
        _scatter(cache, lambda c, r=rows.to(cache.dtype): c.index_put_((blocks, offsets), r))


def reshape_and_cache_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in KV_CASES[size]:
        assert c.heads * c.head_size * c.dtype.itemsize <= PAGED_ROW_BYTES, c
        yield sample(c.paged())


def reshape_and_cache_flash_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in KV_CASES[size]:
        yield sample(c.flash())


KV_PARAMS = (
    Param("key", "Tensor"),
    Param("value", "Tensor"),
    Param("key_cache", "Tensor!", writes=True),
    Param("value_cache", "Tensor!", writes=True),
    Param("slot_mapping", "Tensor"),
    Param("kv_cache_dtype", "str"),
    Param("k_scale", "Tensor"),
    Param("v_scale", "Tensor"),
)


def _kv_signature(name: str) -> str:
    return (f"{name}(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor, "
            "slot_mapping: torch.Tensor, kv_cache_dtype: str, k_scale: torch.Tensor, v_scale: torch.Tensor) -> None")


def reshape_and_cache() -> Operator:
    return _data(vllm_operator(
        "reshape_and_cache", "cache",
        "Write each token's key and value into the paged-attention KV cache at its slot.",
        params=KV_PARAMS,
        signature=_kv_signature("reshape_and_cache"),
        reference=reshape_and_cache_reference,
        sampler=reshape_and_cache_sampler,
        tolerance=EXACT,
        notes=KV_WRITE_NOTES + (" A token's row is at most 8 KiB (heads * head_size * element size): vLLM 0.13's "
                                "kernel leaves longer rows partly unwritten."),
        ov_doc=("key, value [T', heads, head_size]; key_cache [num_blocks, heads, head_size/x, block_size, x] "
                "(x = 16 bytes / element size), value_cache [num_blocks, heads, head_size, block_size], both of "
                "key's dtype; slot_mapping int64 [T] with T <= T'; kv_cache_dtype 'auto'; k_scale, v_scale float32 "
                "scalars (unused for 'auto'). For each t < T with s = slot_mapping[t] >= 0, b = s // block_size, "
                "o = s % block_size: key_cache[b, h, d // x, o, d % x] = key[t, h, d] and value_cache[b, h, d, o] "
                "= value[t, h, d]. Tokens with a negative slot, and every other cache position, are left as they "
                "are. Writes the caches in place; returns None."),
    ), kv_write_traffic)


def reshape_and_cache_flash() -> Operator:
    return _data(vllm_operator(
        "reshape_and_cache_flash", "cache",
        "Write each token's key and value into the flash-attention KV cache at its slot.",
        params=KV_PARAMS,
        signature=_kv_signature("reshape_and_cache_flash"),
        reference=reshape_and_cache_flash_reference,
        sampler=reshape_and_cache_flash_sampler,
        tolerance=EXACT,
        notes=KV_WRITE_NOTES,
        ov_doc=("key, value [T', heads, head_size] (any stride(0), heads and head_size packed); key_cache and "
                "value_cache [num_blocks, block_size, heads, head_size] of key's dtype, possibly views (vLLM reads "
                "the block, slot and head strides of key_cache and uses them for both; head_size is contiguous); "
                "slot_mapping int64 [T] with T <= T'; kv_cache_dtype 'auto'; k_scale, v_scale float32 scalars "
                "(unused for 'auto'). For each t < T with s = slot_mapping[t] >= 0: key_cache[s // block_size, "
                "s % block_size] = key[t] and likewise value. Tokens with a negative slot, and every other cache "
                "position, are left as they are. Writes the caches in place; returns None."),
    ), kv_write_traffic)


# ---------------------------------------------------------------------------------------------
# concat_and_cache_mla


@dataclass(frozen=True)
class MlaWrite:
    key_tokens: int
    tokens: int
    kv_lora_rank: int
    pe_dim: int
    block_size: int
    num_blocks: int
    dtype: torch.dtype
    pad: int

    def values(self) -> dict[str, object]:
        return {
            "kv_c": TensorSpec((self.key_tokens, self.kv_lora_rank), self.dtype),
            "k_pe": TensorSpec((self.key_tokens, self.pe_dim), self.dtype),
            "kv_cache": TensorSpec((self.num_blocks, self.block_size, self.kv_lora_rank + self.pe_dim), self.dtype),
            "slot_mapping": _slots(self.tokens, self.num_blocks * self.block_size, self.pad),
            "kv_cache_dtype": "auto",
            "scale": _scale(),
        }


# DeepSeek-V2/V3: kv_lora_rank 512, rope dim 64, block size 64 in vLLM's MLA backends (16 elsewhere).
MLA_CASES: dict[str, list[MlaWrite]] = {
    "small": [
        MlaWrite(5, 5, 32, 16, 16, 2, f32, 2),
        MlaWrite(7, 7, 64, 32, 16, 1, f16, 3),
        MlaWrite(9, 6, 48, 16, 8, 3, bf16, 2),
        MlaWrite(12, 12, 512, 64, 16, 1, bf16, 4),
        MlaWrite(3, 3, 16, 8, 4, 2, f32, 1),
        MlaWrite(10, 10, 128, 64, 64, 1, f16, 2),
    ],
    "large": [
        MlaWrite(2048, 2048, 512, 64, 64, 64, bf16, 64),
        MlaWrite(4096, 3000, 512, 64, 16, 256, f16, 100),
        MlaWrite(777, 777, 256, 32, 16, 64, f32, 7),
    ],
    "perf": [
        MlaWrite(16384, 16384, 512, 64, 64, 512, bf16, 128),
        MlaWrite(16384, 16384, 512, 64, 64, 512, f16, 128),
        MlaWrite(256, 256, 512, 64, 64, 512, bf16, 8),
    ],
}


def concat_and_cache_mla_reference(kv_c: torch.Tensor, k_pe: torch.Tensor, kv_cache: torch.Tensor,
                                   slot_mapping: torch.Tensor, kv_cache_dtype: str, scale: torch.Tensor) -> None:
    n = slot_mapping.shape[0]
    blocks, offsets = _slot_index(slot_mapping, kv_cache.shape[1], kv_cache.shape[0])
    rows = torch.cat([kv_c[:n], k_pe[:n]], dim=1).to(kv_cache.dtype)
    _scatter(kv_cache, lambda c: c.index_put_((blocks, offsets), rows))


def concat_and_cache_mla_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in MLA_CASES[size]:
        yield sample(c.values())


def concat_and_cache_mla() -> Operator:
    return _data(vllm_operator(
        "concat_and_cache_mla", "cache",
        "Write each token's compressed KV and rope key, side by side, into the MLA cache at its slot.",
        params=(
            Param("kv_c", "Tensor"),
            Param("k_pe", "Tensor"),
            Param("kv_cache", "Tensor!", writes=True),
            Param("slot_mapping", "Tensor"),
            Param("kv_cache_dtype", "str"),
            Param("scale", "Tensor"),
        ),
        signature=("concat_and_cache_mla(kv_c: torch.Tensor, k_pe: torch.Tensor, kv_cache: torch.Tensor, "
                   "slot_mapping: torch.Tensor, kv_cache_dtype: str, scale: torch.Tensor) -> None"),
        reference=concat_and_cache_mla_reference,
        sampler=concat_and_cache_mla_sampler,
        tolerance=EXACT,
        notes=KV_WRITE_NOTES.replace("key/value (slices of a fused qkv)", "kv_c/k_pe (slices of one projection)")
        .replace("caches that are views of a combined KV tensor", "padded cache blocks"),
        ov_doc=("kv_c [T', kv_lora_rank], k_pe [T', pe_dim] (any stride(0)); kv_cache [num_blocks, block_size, "
                "kv_lora_rank + pe_dim] of kv_c's dtype (vLLM reads its block and entry strides; the last dim is "
                "contiguous); slot_mapping int64 [T], T <= T'; kv_cache_dtype 'auto'; scale a float32 scalar "
                "(unused for 'auto'). For each t < T with s = slot_mapping[t] >= 0: kv_cache[s // block_size, "
                "s % block_size] = concat(kv_c[t], k_pe[t]). Tokens with a negative slot, and every other cache "
                "position, are left as they are. Writes kv_cache in place; returns None."),
    ), mla_write_traffic)


# ---------------------------------------------------------------------------------------------
# swap_blocks and copy_blocks


@dataclass(frozen=True)
class BlockMove:
    """`pairs` (src, dst) block pairs over caches of `block_shape`; swap_blocks' src has `src_blocks`."""

    pairs: int
    num_blocks: int
    src_blocks: int
    block_shape: tuple[int, ...]
    dtype: torch.dtype
    layers: int = 1


SWAP_CASES: dict[str, list[BlockMove]] = {
    "small": [
        BlockMove(3, 8, 5, (16, 2, 16), f32),
        BlockMove(1, 4, 4, (16, 1, 64), f16),
        BlockMove(5, 6, 9, (2, 8, 4, 16), bf16),
        BlockMove(4, 4, 4, (8, 3, 32), f32),
        BlockMove(2, 10, 3, (2, 2, 16, 8), f16),
        BlockMove(6, 7, 7, (16, 2, 8), bf16),
    ],
    "large": [
        BlockMove(256, 1024, 512, (16, 8, 128), bf16),
        BlockMove(100, 512, 600, (8, 16, 16, 8), f16),
        BlockMove(333, 400, 400, (16, 5, 96), f32),
    ],
    "perf": [
        BlockMove(1024, 4096, 4096, (16, 8, 128), bf16),
        BlockMove(64, 4096, 4096, (16, 8, 128), bf16),
        BlockMove(512, 2048, 2048, (8, 16, 16, 8), f16),
    ],
}


def swap_blocks_reference(src: torch.Tensor, dst: torch.Tensor, block_mapping: torch.Tensor) -> None:
    dst[block_mapping[:, 1]] = src[block_mapping[:, 0]].to(dst.dtype)


def swap_blocks_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in SWAP_CASES[size]:
        yield sample({
            "src": TensorSpec((c.src_blocks, *c.block_shape), c.dtype),
            "dst": TensorSpec((c.num_blocks, *c.block_shape), c.dtype),
            "block_mapping": TensorSpec((c.pairs, 2), torch.int64, dist="unique", low=0,
                                        high=min(c.src_blocks, c.num_blocks), along=0),
        })


def swap_blocks() -> Operator:
    return _data(vllm_operator(
        "swap_blocks", "cache",
        "Copy whole cache blocks from src to dst: dst[block_mapping[i, 1]] = src[block_mapping[i, 0]].",
        params=(
            Param("src", "Tensor"),
            Param("dst", "Tensor!", writes=True),
            Param("block_mapping", "Tensor"),
        ),
        signature="swap_blocks(src: torch.Tensor, dst: torch.Tensor, block_mapping: torch.Tensor) -> None",
        reference=swap_blocks_reference,
        sampler=swap_blocks_sampler,
        tolerance=EXACT,
        notes=("vLLM 0.13's signature (later versions add block_size_in_bytes before block_mapping). vLLM "
               "requires block_mapping on the CPU and copies between a GPU and a CPU cache; here src, dst and "
               "block_mapping are all on the case's device, so the copy is a kernel. dst blocks are distinct "
               "(repeats would race); src blocks are distinct too. Caches are contiguous (vLLM copies "
               "stride(0) elements per block)."),
        ov_doc=("src [src_blocks, ...] and dst [num_blocks, ...] contiguous, same dtype and block shape; "
                "block_mapping int64 [n, 2] of (src block, dst block) pairs, dst blocks distinct. For each i: "
                "dst[block_mapping[i, 1]] = src[block_mapping[i, 0]]; every other dst block is left as it is. "
                "Writes dst in place; returns None."),
    ), swap_blocks_traffic)


COPY_CASES: dict[str, list[BlockMove]] = {
    "small": [
        BlockMove(2, 6, 6, (2, 16, 16), f32, 1),
        BlockMove(3, 6, 6, (1, 32, 16), f16, 2),
        BlockMove(1, 3, 3, (3, 32, 8), bf16, 3),
        BlockMove(4, 9, 9, (2, 8, 4), f32, 2),
        BlockMove(2, 5, 5, (2, 16, 16), bf16, 1),
        BlockMove(2, 4, 4, (1, 128, 16), f16, 1),
    ],
    "large": [
        BlockMove(256, 1024, 1024, (8, 128, 16), bf16, 4),
        BlockMove(100, 600, 600, (5, 96, 16), f32, 3),
    ],
    # 32 layers of 2048 blocks (4.3 GB a set): with 4096 the timing layer's input sets, their
    # pristine copies and the float64 truth of every written cache outgrew the H200 (139 GiB)
    "perf": [
        BlockMove(512, 2048, 2048, (8, 128, 16), bf16, 32),
        BlockMove(64, 2048, 2048, (8, 128, 16), bf16, 32),
        BlockMove(512, 2048, 2048, (8, 128, 16), f16, 16),
    ],
}


def _paged_shapes(c: BlockMove) -> tuple[tuple[int, ...], tuple[int, ...]]:
    heads, head_size, block_size = c.block_shape
    x = 16 // c.dtype.itemsize
    return ((c.num_blocks, heads, head_size // x, block_size, x), (c.num_blocks, heads, head_size, block_size))


def copy_blocks_reference(key_caches: list[torch.Tensor], value_caches: list[torch.Tensor],
                          block_mapping: torch.Tensor) -> None:
    src, dst = block_mapping[:, 0], block_mapping[:, 1]
    for cache in (*key_caches, *value_caches):
        cache[dst] = cache[src]


def copy_blocks_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in COPY_CASES[size]:
        k_shape, v_shape = _paged_shapes(c)
        yield sample({
            "key_caches": [TensorSpec(k_shape, c.dtype) for _ in range(c.layers)],
            "value_caches": [TensorSpec(v_shape, c.dtype) for _ in range(c.layers)],
            "block_mapping": TensorSpec((c.pairs, 2), torch.int64, dist="unique", low=0, high=c.num_blocks),
        })


def copy_blocks() -> Operator:
    return _data(vllm_operator(
        "copy_blocks", "cache",
        "Copy cache blocks within every layer's key and value cache (copy-on-write of shared blocks).",
        params=(
            Param("key_caches", "Tensor(a!)[]", writes=True),
            Param("value_caches", "Tensor(b!)[]", writes=True),
            Param("block_mapping", "Tensor"),
        ),
        signature=("copy_blocks(key_caches: list[torch.Tensor], value_caches: list[torch.Tensor], "
                   "block_mapping: torch.Tensor) -> None"),
        reference=copy_blocks_reference,
        sampler=copy_blocks_sampler,
        tolerance=EXACT,
        notes=("All 2n block numbers of block_mapping are distinct: vLLM copies the pairs in parallel, so a "
               "block that is both a source and a destination, or a repeated destination, races. (vLLM's "
               "copy-on-write can fork one source to several destinations; not drawn.) Caches are contiguous "
               "paged-attention caches of one shape per list, one dtype."),
        ov_doc=("key_caches: one contiguous tensor per layer [num_blocks, ...], value_caches likewise (same "
                "count, dtype and block count; vLLM copies key_caches[0][0].numel() elements per block of both); "
                "block_mapping int64 [n, 2] of (src, dst) block pairs on the caches' device, all 2n distinct. "
                "For every layer l and pair i: key_caches[l][dst_i] = key_caches[l][src_i] and the same for "
                "value_caches; every other block is left as it is. Writes the caches in place; returns None."),
    ), copy_blocks_traffic)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "reshape_and_cache": reshape_and_cache,
    "reshape_and_cache_flash": reshape_and_cache_flash,
    "swap_blocks": swap_blocks,
    "copy_blocks": copy_blocks,
    "concat_and_cache_mla": concat_and_cache_mla,
}
