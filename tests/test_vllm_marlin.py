"""The vLLM Marlin records: the grids draw what matters (4- and 8-bit codes, act order, 8-bit
activation tiles, several experts, AWQ zero points, in place and not, grouped and channelwise
scales), and the references agree with a line-by-line transcription of vLLM's CUDA kernels (one
simulated thread at a time) on small random inputs and on words packed from quantised float
weights; the GEMM's reference is the product with the dequantised weights."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.vllm.marlin import (
    UINT4B8,
    UINT8B128,
    WEIGHT_TYPES,
    awq_codes,
    awq_marlin_moe_repack_reference,
    awq_pack,
    gptq_codes,
    gptq_marlin_gemm_reference,
    gptq_marlin_moe_repack_reference,
    gptq_pack,
    marlin_int4_fp8_preprocess_reference,
    marlin_pack,
    marlin_permute_scales,
    marlin_unpack,
    marlin_unpermute_scales,
)

REPACKS = ("vllm::gptq_marlin_moe_repack", "vllm::awq_marlin_moe_repack")


def _values(op: str, size: str) -> list[dict]:
    return [c.sample.values for c in registry.get(op).select_cases(sizes=(size,))]


def _u32(x: int) -> int:
    return x & 0xFFFFFFFF


def _kernel_repack(words: list[list[int]], perm: list[int] | None, size_k: int, size_n: int, bits: int,
                   a8: bool, awq: bool) -> list[int]:
    """vLLM's gptq/awq_marlin_repack_kernel, thread by thread (the shared-memory staging elided:
    `src(k, n)` is what a thread reads there)."""
    pack = 32 // bits
    mask = (1 << bits) - 1
    tile_n, tile_k = (32, 32) if a8 else (64, 16)
    k_tiles, n_tiles = size_k // tile_k, size_n // tile_n
    undo = [0, 4, 1, 5, 2, 6, 3, 7] if bits == 4 else [0, 2, 1, 3]
    out = [0] * (size_k * size_n // pack)

    def code(k: int, n: int) -> int:
        if awq:  # the kernel reads the word of n and shifts by undo_pack of n's position
            return (_u32(words[k][n // pack]) >> (undo[n % pack] * bits)) & mask
        k = perm[k] if perm else k
        return (_u32(words[k // pack][n]) >> ((k % pack) * bits)) & mask

    for kt in range(k_tiles):
        for nt in range(n_tiles):
            k0, n0 = kt * tile_k, nt * tile_n
            offset = (kt * n_tiles + nt) * tile_k * tile_n // pack
            for warp in range(4):
                for th in range(32):
                    tc_col, tc_row = th // 4, (th % 4) * (4 if a8 else 2)
                    cur_n = (warp // (2 if a8 else 1)) * 16 + tc_col
                    vals = [0] * 8
                    for i in range(4):
                        if a8:
                            col = cur_n + (warp % 2) * 8
                            vals[i] = code(k0 + tc_row + i, n0 + col)
                            vals[4 + i] = code(k0 + tc_row + i + 16, n0 + col)
                        else:
                            row = tc_row + (0, 1, 8, 9)[i]
                            vals[i] = code(k0 + row, n0 + cur_n)
                            vals[4 + i] = code(k0 + row, n0 + cur_n + 8)
                    if bits == 4:
                        idx = (0, 4, 1, 5, 2, 6, 3, 7) if a8 else (0, 2, 4, 6, 1, 3, 5, 7)
                        out[offset + th * 4 + warp] = sum(vals[idx[i]] << (4 * i) for i in range(8))
                    else:
                        idx = (0, 1, 2, 3) if a8 else (0, 2, 1, 3)
                        out[offset + th * 8 + warp * 2] = sum(vals[idx[i]] << (8 * i) for i in range(4))
                        out[offset + th * 8 + warp * 2 + 1] = sum(vals[4 + idx[i]] << (8 * i) for i in range(4))
    return out


def _as_u32(t: torch.Tensor) -> list[int]:
    return [_u32(x) for x in t.flatten().tolist()]


CONFIGS = [(16, 64, 4, False), (32, 128, 4, False), (48, 64, 8, False), (32, 64, 4, True), (64, 64, 8, True),
           (32, 192, 8, False)]


@pytest.mark.parametrize(("size_k", "size_n", "bits", "a8"), CONFIGS)
def test_gptq_reference_is_vllms_kernel(size_k: int, size_n: int, bits: int, a8: bool) -> None:
    gen = torch.Generator().manual_seed(size_k * size_n + bits)
    w = torch.randint(-2 ** 31, 2 ** 31, (2, size_k * bits // 32, size_n), generator=gen).to(torch.int32)
    # act order (not with 8-bit activations): a random permutation for one expert, the identity for the other
    perms = [None, None] if a8 else [torch.randperm(size_k, generator=gen).tolist(), list(range(size_k))]
    perm = torch.empty(2, 0, dtype=torch.int32) if a8 else torch.tensor(perms, dtype=torch.int32)
    got = gptq_marlin_moe_repack_reference(w, perm, size_k, size_n, bits, a8)
    assert got.shape == (2, size_k // 16, size_n * bits // 2) and got.dtype == torch.int32
    for e in range(2):
        assert _as_u32(got[e]) == _kernel_repack(w[e].tolist(), perms[e], size_k, size_n, bits, a8, False)


@pytest.mark.parametrize(("size_k", "size_n", "bits", "a8"), CONFIGS)
def test_awq_reference_is_vllms_kernel(size_k: int, size_n: int, bits: int, a8: bool) -> None:
    gen = torch.Generator().manual_seed(size_k + size_n * bits)
    w = torch.randint(-2 ** 31, 2 ** 31, (2, size_k, size_n * bits // 32), generator=gen).to(torch.int32)
    got = awq_marlin_moe_repack_reference(w, torch.empty(2, 0, dtype=torch.int32), size_k, size_n, bits, a8)
    for e in range(2):
        assert _as_u32(got[e]) == _kernel_repack(w[e].tolist(), None, size_k, size_n, bits, a8, True)


@pytest.mark.parametrize("bits", [4, 8])
def test_packers_from_quantised_float_weights(bits: int) -> None:
    """Float weights quantised to codes, packed as GPTQ and as AWQ checkpoints store them: both
    repack to the same Marlin words, which unpack to the codes (act order: the permuted rows)."""
    gen = torch.Generator().manual_seed(bits)
    weight = torch.randn(64, 128, generator=gen, dtype=torch.float64)
    scale = weight.abs().amax(0, keepdim=True) / (2 ** (bits - 1) - 1)
    codes = (torch.round(weight / scale) + 2 ** (bits - 1)).clamp(0, 2 ** bits - 1).long()
    g, a = gptq_pack(codes, bits), awq_pack(codes, bits)
    assert torch.equal(gptq_codes(g, bits), codes) and torch.equal(awq_codes(a, bits), codes)
    none = torch.empty(1, 0, dtype=torch.int32)
    for a8 in (False, True):
        mg = gptq_marlin_moe_repack_reference(g[None], none, 64, 128, bits, a8)
        assert torch.equal(mg, awq_marlin_moe_repack_reference(a[None], none, 64, 128, bits, a8))
        assert torch.equal(marlin_unpack(mg[0], 64, 128, bits, a8), codes)
    perm = torch.randperm(64, generator=gen).to(torch.int32)
    mp = gptq_marlin_moe_repack_reference(g[None], perm[None], 64, 128, bits)
    assert torch.equal(mp[0], marlin_pack(codes[perm.long()], bits))


def test_gptq_4bit_first_word_by_hand() -> None:
    """The first Marlin word of a 4-bit tile holds codes (k, n) = (0,0) (8,0) (0,8) (8,8) (1,0) (9,0)
    (1,8) (9,8), nibble 0 first."""
    codes = torch.arange(16 * 64).reshape(16, 64) % 16
    word = _u32(int(marlin_pack(codes, 4)[0, 0]))
    want = [codes[0, 0], codes[8, 0], codes[0, 8], codes[8, 8], codes[1, 0], codes[9, 0], codes[1, 8], codes[9, 8]]
    assert [(word >> (4 * i)) & 15 for i in range(8)] == [int(x) for x in want]


def test_repack_grids_draw_the_semantics() -> None:
    for op in REPACKS:
        record = registry.get(op)
        assert record.work == "data" and record.family == "marlin"
        small = _values(op, "small")
        every = small + _values(op, "large") + _values(op, "perf")
        assert {v["num_bits"] for v in small} == {4, 8}
        assert {v["is_a_8bit"] for v in small} == {False, True}
        assert any(v["b_q_weight"].shape[0] > 1 for v in small), "several experts"
        assert any(v["size_n"] // 64 > 1 and v["size_k"] // 16 > 1 for v in small), "several tiles both ways"
        for v in every:
            k, n, bits = v["size_k"], v["size_n"], v["num_bits"]
            assert k % (32 if v["is_a_8bit"] else 16) == 0 and n % 64 == 0
            assert v["b_q_weight"].dtype == torch.int32 and v["b_q_weight"].low == -2 ** 31
            packed = (v["b_q_weight"].shape[0], k * bits // 32, n) if op.startswith("vllm::gptq") else \
                (v["b_q_weight"].shape[0], k, n * bits // 32)
            assert v["b_q_weight"].shape == packed
            if v["perm"].shape[-1]:
                assert not v["is_a_8bit"] and v["perm"].dist == "unique" and v["perm"].shape[-1] == k
    gptq = _values(REPACKS[0], "small")
    assert {v["perm"].shape[-1] > 0 for v in gptq} == {True, False}
    assert {(v["num_bits"], v["perm"].shape[-1] > 0) for v in gptq} >= {(4, True), (8, True)}
    assert all(v["perm"].shape[-1] == 0 for v in _values(REPACKS[1], "small"))


def _kernel_preprocess(words: list[list[int]], zeros: list[list[int]] | None) -> list[list[int]]:
    group = len(words) // len(zeros) if zeros else 0
    out = []
    for k, row in enumerate(words):
        new_row = []
        for j, word in enumerate(row):
            val, zero, new = _u32(word), _u32(zeros[k // group][j]) if zeros else 0, 0
            for i in range(8):
                q, z = val & 15, (zero & 15) if zeros else 8
                new |= (q - z if q >= z else 15 - q) << (4 * i)
                val, zero = val >> 4, zero >> 4
            new_row.append(new)
        out.append(new_row)
    return out


@pytest.mark.parametrize(("rows", "cols", "group"), [(4, 8, None), (32, 8, 32), (64, 24, 8), (64, 16, 64)])
def test_preprocess_reference_is_vllms_kernel(rows: int, cols: int, group: int | None) -> None:
    gen = torch.Generator().manual_seed(rows + cols)
    q = torch.randint(-2 ** 31, 2 ** 31, (rows, cols), generator=gen).to(torch.int32)
    z = None if group is None else torch.randint(-2 ** 31, 2 ** 31, (rows // group, cols), generator=gen)
    z = None if z is None else z.to(torch.int32)
    kept = q.clone()
    got = marlin_int4_fp8_preprocess_reference(q, z, False)
    assert torch.equal(q, kept) and got.dtype == torch.int32
    want = _kernel_preprocess(q.tolist(), None if z is None else z.tolist())
    assert [[_u32(x) for x in r] for r in got.tolist()] == want
    same = marlin_int4_fp8_preprocess_reference(q, z, True)
    assert same is q and torch.equal(q, got)


def test_preprocess_by_hand() -> None:
    """Nibbles 0..7 = 0, 7, 8, 15, 3, 9, 1, 12 -> 15, 8, 0, 7, 12, 1, 14, 4 without zeros."""
    nibbles, want = [0, 7, 8, 15, 3, 9, 1, 12], [15, 8, 0, 7, 12, 1, 14, 4]
    word = sum(v << (4 * i) for i, v in enumerate(nibbles))
    q = torch.tensor([[word - 2 ** 32 if word >= 2 ** 31 else word] * 32], dtype=torch.int32)
    got = _u32(int(marlin_int4_fp8_preprocess_reference(q)[0, 0]))
    assert [(got >> (4 * i)) & 15 for i in range(8)] == want


def test_preprocess_grid_draws_the_semantics() -> None:
    op = registry.get("vllm::marlin_int4_fp8_preprocess")
    assert op.overloads[0].writes == ("qweight",)
    small = _values("vllm::marlin_int4_fp8_preprocess", "small")
    assert {v["inplace"] for v in small} == {True, False}
    assert {v["qzeros_or_none"] is None for v in small} == {True, False}
    groups = {v["qweight"].shape[0] // v["qzeros_or_none"].shape[0] for v in small if v["qzeros_or_none"]}
    assert {8, 32, 64} <= groups and any(v["qzeros_or_none"].shape[0] == 1 for v in small if v["qzeros_or_none"])
    for v in small + _values("vllm::marlin_int4_fp8_preprocess", "large"):
        rows, cols = v["qweight"].shape
        assert rows * cols % 32 == 0
        if v["qzeros_or_none"] is not None:
            assert rows % 32 == 0 and v["qzeros_or_none"].shape[1] == cols


def test_scalar_type_ids_are_vllms() -> None:
    """ScalarType.uint(4, 8) and uint(8, 128): mantissa << 8 | bias << 17 | IEEE_754 NaN repr (1) << 50."""
    assert UINT4B8 == 1125899907892224 and UINT8B128 == 1125899923621888
    assert WEIGHT_TYPES == {UINT4B8: (4, 8), UINT8B128: (8, 128)}


def test_scale_permutation_is_vllms() -> None:
    """marlin_permute_scales: s.reshape(-1, 64)[:, [i + 8j for i in 0..7 for j in 0..7]] with several
    groups; s.reshape(-1, 32)[:, [2i + j for i in 0..3 for j in (0, 1, 8, 9, 16, 17, 24, 25)]] with one."""
    grouped = [i + 8 * j for i in range(8) for j in range(8)]
    single = [2 * i + j for i in range(4) for j in (0, 1, 8, 9, 16, 17, 24, 25)]
    s = torch.arange(3 * 128, dtype=torch.float64).reshape(3, 128)
    assert torch.equal(marlin_permute_scales(s), s.reshape(-1, 64)[:, grouped].reshape(3, 128))
    one = torch.arange(192, dtype=torch.float64).reshape(1, 192)
    assert torch.equal(marlin_permute_scales(one), one.reshape(-1, 32)[:, single].reshape(1, 192))
    for t in (s, one):
        assert torch.equal(marlin_unpermute_scales(marlin_permute_scales(t)), t)


@pytest.mark.parametrize(("bits", "groups"), [(4, 1), (4, 4), (8, 2), (8, 1)])
def test_gemm_reference_is_the_dequantised_product(bits: int, groups: int) -> None:
    """Codes quantised from float weights, packed GPTQ-style, repacked to Marlin and the scales
    permuted as vLLM does: the reference gives a @ ((codes - bias) * scale)."""
    gen = torch.Generator().manual_seed(bits * groups)
    k, n, m = 128, 128, 3
    weight = torch.randn(k, n, generator=gen, dtype=torch.float64)
    half = 2 ** (bits - 1)
    scale = weight.reshape(groups, -1, n).abs().amax(1) / (half - 1)
    codes = (torch.round(weight / scale.repeat_interleave(k // groups, 0)) + half).clamp(0, 2 * half - 1).long()
    words = gptq_marlin_moe_repack_reference(gptq_pack(codes, bits)[None], torch.empty(1, 0, dtype=torch.int32),
                                             k, n, bits)[0]
    a = torch.randn(m, k, generator=gen, dtype=torch.float64)
    tid = UINT4B8 if bits == 4 else UINT8B128
    got = gptq_marlin_gemm_reference(a, None, words, None, marlin_permute_scales(scale), None, None, None, None,
                                     None, torch.zeros(8, dtype=torch.int32), tid, m, n, k)
    want = a @ ((codes - half).double() * scale.repeat_interleave(k // groups, 0))
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(got, a @ weight, rtol=0.0, atol=0.6 * float(scale.max()) * float(a.abs().sum(1).max()))


def test_gemm_grid_draws_the_semantics() -> None:
    op = registry.get("vllm::gptq_marlin_gemm")
    assert op.overloads[0].param("workspace").scratch and op.tolerance.abs_scale
    small = _values("vllm::gptq_marlin_gemm", "small")
    assert {v["b_q_type"] for v in small} == {UINT4B8, UINT8B128}
    assert {v["a"].dtype for v in small} == {torch.float16, torch.bfloat16}
    groups = {v["size_k"] // v["b_scales"].shape[0] for v in small if v["b_scales"].shape[0] > 1}
    assert {32, 64, 128} <= groups and any(v["b_scales"].shape[0] == 1 for v in small)
    assert any(v["size_m"] == 1 for v in small) and any(v["size_m"] > 16 for v in small)
    for v in small + _values("vllm::gptq_marlin_gemm", "large") + _values("vllm::gptq_marlin_gemm", "perf"):
        bits = WEIGHT_TYPES[v["b_q_type"]][0]
        assert v["size_k"] % 128 == 0 and v["size_n"] % 64 == 0
        assert v["b_q_weight"].shape == (v["size_k"] // 16, v["size_n"] * bits // 2)
        assert v["a"].shape == (v["size_m"], v["size_k"]) and v["b_scales"].dtype == v["a"].dtype
