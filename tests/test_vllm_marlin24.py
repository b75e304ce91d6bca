"""The 2:4-sparse Marlin record: the grid draws both weight types, grouped and channelwise scales,
batches below and above 16 and only valid metadata; the reference inverts a step-by-step
transcription of vLLM's packer (marlin_24_quantize: CUTLASS compression and metadata reordering,
the 2:4 Marlin tile permutation, the scale permutation), whose output vLLM's tests check against
the CUDA kernel."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.vllm.marlin import UINT4B8, UINT8B128, WEIGHT_TYPES
from kernelgenbench.suite.vllm.marlin24 import (
    VALID_NIBBLES,
    dense_codes_24,
    gptq_marlin_24_gemm_reference,
    meta_position,
)

OP = "vllm::gptq_marlin_24_gemm"


def _values(size: str) -> list[dict]:
    return [c.sample.values for c in registry.get(OP).select_cases(sizes=(size,))]


def _nibbles(meta: torch.Tensor) -> torch.Tensor:
    w = meta.to(torch.int64) & 0xFFFF
    return torch.stack([(w >> (4 * i)) & 0xF for i in range(4)])


# ------------------------------------------------------------------ vLLM's packer, step by step


def _encode_group(mask: list[bool]) -> tuple[int, int]:
    """CUTLASS's 2:4 encoding of one group's non-zero flags (the Espresso-minimised bits)."""
    m0, m1, _, m3 = mask
    bit0 = (not m0) and m1
    bit1 = (not m0) and (not m1)
    bit2 = (m0 and m1) or ((not m0) and (not m1)) or m3
    bit3 = ((not m0) and m1) or (not m1)
    return int(bit0) | int(bit1) << 1, int(bit2) | int(bit3) << 1


def _reordered_offset(row: int, col: int, rows: int) -> int:
    """Where CUTLASS's ColumnMajorInterleaved<2> puts metadata element (row, col) (int16 meta)."""
    r = row // 64 * 64 + (row % 2) * 2 + (row % 8) // 4 + ((row % 32) % 4) // 2 * 32 + ((row % 64) // 8) * 4
    c = col
    if r % 2 == 0 and c % 2 == 1:
        r, c = r + 1, c - 1
    elif r % 2 == 1 and c % 2 == 0:
        r, c = r - 1, c + 1
    return (c // 2) * rows * 2 + r * 2 + c % 2


def _weight_perm_24(bits: int) -> list[int]:
    perm = []
    for i in range(32):
        one = []
        col = i // 4
        for block in (0, 1):
            for row in (2 * (i % 4), 2 * (i % 4) + 1, 2 * (i % 4 + 4), 2 * (i % 4 + 4) + 1):
                one.append(16 * row + (col // 2) * 256 + 8 * (col % 2) + 4 * block)
        for j in range(4):
            perm += [p + j for p in one]
    inter = (0, 2, 4, 6, 1, 3, 5, 7) if bits == 4 else (0, 2, 1, 3)
    return [perm[g + inter[s]] for g in range(0, len(perm), len(inter)) for s in range(len(inter))]


def _vllm_pack(q: torch.Tensor, bits: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Dense 2:4 codes q [K, N] -> (b_q_weight, b_meta) as marlin_24_quantize makes them."""
    size_k, size_n = q.shape
    zp = 1 << (bits - 1)
    t = (q - zp).t()  # [N, K]
    sparse = torch.zeros(size_n, size_k // 2, dtype=torch.int64)
    meta = [[0] * (size_k // 16) for _ in range(size_n)]
    for n in range(size_n):
        for g in range(size_k // 4):
            grp = t[n, 4 * g:4 * g + 4].tolist()
            i0, i1 = _encode_group([v != 0 for v in grp])
            sparse[n, 2 * g], sparse[n, 2 * g + 1] = grp[i0], grp[i1]
            meta[n][g // 4] |= (i0 | i1 << 2) << (4 * (g % 4))
    flat = [0] * (size_n * size_k // 16)
    for n in range(size_n):
        for c in range(size_k // 16):
            flat[_reordered_offset(n, c, size_n)] = meta[n][c]
    b_meta = torch.tensor([v - 65536 if v >= 32768 else v for v in flat], dtype=torch.int16)
    b_meta = b_meta.reshape(size_k // 32, 2 * size_n)
    comp = sparse.t() + zp  # [K / 2, N]
    kc = size_k // 2
    tiles = comp.reshape(kc // 16, 16, size_n // 16, 16).permute(0, 2, 1, 3).reshape(kc // 16, size_n * 16)
    perm = torch.tensor(_weight_perm_24(bits))
    tiles = tiles.reshape(-1, perm.numel())[:, perm].reshape(tiles.shape)
    pack = 32 // bits
    words = sum(tiles[:, i::pack] << (bits * i) for i in range(pack))
    words = torch.where(words >= 2 ** 31, words - 2 ** 32, words).to(torch.int32)
    return words, b_meta


def _sparse_codes(size_k: int, size_n: int, bits: int, gen: torch.Generator) -> torch.Tensor:
    """Random codes with exactly two non-bias codes in every group of 4 along k."""
    zp = 1 << (bits - 1)
    off = torch.randint(1, zp, (size_k, size_n), generator=gen) * (torch.randint(0, 2, (size_k, size_n),
                                                                                 generator=gen) * 2 - 1)
    keep = torch.rand(size_k // 4, 4, size_n, generator=gen).argsort(1).argsort(1) < 2
    return zp + off * keep.reshape(size_k, size_n)


def _permute_scales(s: torch.Tensor) -> torch.Tensor:
    if s.shape[0] == 1:
        return s
    order = [8 * i + j for i in range(8) for j in (0, 4, 1, 5, 2, 6, 3, 7)]
    return s.reshape(-1, 64)[:, order].reshape(s.shape)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("size_k, size_n", [(128, 128), (256, 256), (384, 128)])
def test_reference_inverts_the_packer(bits: int, size_k: int, size_n: int) -> None:
    gen = torch.Generator().manual_seed(size_k + size_n + bits)
    q = _sparse_codes(size_k, size_n, bits, gen)
    words, meta = _vllm_pack(q, bits)
    assert torch.equal(dense_codes_24(words, meta, size_k, size_n, bits, 1 << (bits - 1)), q - (1 << (bits - 1)))
    # the metadata is valid and the weights fill b_q_weight's declared shape
    assert set(_nibbles(meta).unique().tolist()) <= set(VALID_NIBBLES)
    assert words.shape == (size_k // 32, size_n * bits // 2)
    for groups in (1, size_k // 128):
        s = torch.rand(groups, size_n, generator=gen, dtype=torch.float64) * 0.01 + 0.001
        w_ref = (q - (1 << (bits - 1))).double() * s.repeat_interleave(size_k // groups, 0)
        a = torch.randn(3, size_k, generator=gen, dtype=torch.float64)
        q_type = UINT4B8 if bits == 4 else UINT8B128
        out = gptq_marlin_24_gemm_reference(a, words, meta, _permute_scales(s), torch.zeros(64, dtype=torch.int32),
                                            q_type, 3, size_n, size_k)
        torch.testing.assert_close(out, a @ w_ref)


def test_meta_position_is_the_cutlass_reordering() -> None:
    size_k, size_n = 96, 192
    pos = meta_position(size_k, size_n)
    want = torch.tensor([[_reordered_offset(n, c, size_n) for c in range(size_k // 16)] for n in range(size_n)])
    assert torch.equal(pos, want)
    assert sorted(pos.reshape(-1).tolist()) == list(range(size_n * size_k // 16))


def test_grid_draws_the_semantics() -> None:
    small = _values("small")
    kinds = {(v["b_q_type"], v["b_scales"].shape[0] > 1) for v in small}
    assert kinds == {(t, g) for t in WEIGHT_TYPES for g in (False, True)}
    assert {v["size_m"] > 16 for v in small} == {False, True}
    assert any(v["b_scales"].shape[0] > 2 for v in small)
    for v in small + _values("large") + _values("perf"):
        m, n, k = v["size_m"], v["size_n"], v["size_k"]
        assert k % 128 == 0 and n % (128 if m <= 16 else 256) == 0
        assert v["b_scales"].shape[0] in (1, k // 128)


def test_drawn_metadata_is_valid_and_varied() -> None:
    for v in _values("small")[:3]:
        drawn = materialize(v, seed=7, device="cpu")
        nib = _nibbles(drawn["b_meta"])
        assert drawn["b_meta"].shape == (v["size_k"] // 32, 2 * v["size_n"])
        assert set(nib.unique().tolist()) == set(VALID_NIBBLES)
