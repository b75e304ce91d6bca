"""The vLLM GPTQ/AWQ records: the grids draw what matters (every bit width, both gptq_gemm paths,
act-order and not, v1 and v2 zero points, group sizes 128/64/32/one group, Llama-3-8B perf layers),
and the packers and references match vLLM's layouts, checked against hand-written words, an
independent emulation of the exllama shuffle kernels and a quantise-pack-dequantise round trip."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.vllm.gptq import (
    AWQ_ORDER,
    BITS,
    awq_gemm_reference,
    awq_pack,
    awq_unpack,
    exllama_shuffle,
    gptq_gemm_reference,
    gptq_shuffle_reference,
    pack_cols,
    pack_rows,
    quantize,
    unpack_cols,
    unpack_rows,
)

LLAMA = {(4096, 4096), (4096, 14336), (14336, 4096)}


def _values(op: str, size: str) -> list[dict]:
    return [c.sample.values for c in registry.get(op).select_cases(sizes=(size,))]


def test_registered_with_every_tier() -> None:
    for name, work, writes in (("gptq_gemm", "compute", ()), ("gptq_shuffle", "data", ("q_weight",)),
                               ("awq_gemm", "compute", ())):
        op = registry.get(f"vllm::{name}")
        (ov,) = op.overloads
        assert op.source == "vllm" and op.family == "gptq" and op.work == work and ov.writes == writes
        for size in ("small", "large", "perf"):
            assert op.select_cases(sizes=(size,)), (name, size)


def test_gptq_gemm_grid_draws_the_semantics() -> None:
    small = _values("vllm::gptq_gemm", "small")
    assert {v["bit"] for v in small} == set(BITS)
    assert {(v["use_exllama"], v["use_v2_format"]) for v in small} == {(True, True), (True, False), (False, True),
                                                                        (False, False)}
    exllama = [v for v in small if v["use_exllama"]]
    assert {v["b_g_idx"].shape[0] > 0 for v in exllama} == {True, False}, "act-order and not"
    assert all(v["b_g_idx"].dist == "unique" for v in exllama if v["b_g_idx"].shape[0])
    assert all(v["b_g_idx"].dist == "index" and v["b_g_idx"].shape[0] == v["a"].shape[1]
               for v in small if not v["use_exllama"])
    sizes = {v["a"].shape[1] // v["b_gptq_scales"].shape[0] for v in small}
    assert {32, 64, 128} <= sizes and any(v["b_gptq_scales"].shape[0] == 1 for v in small)
    assert {b for v in exllama for b in [v["bit"]]} == set(BITS)
    assert any(v["a"].shape[0] > 50 for v in exllama), "past vLLM's switch to reconstruct + GEMM"
    for v in small + _values("vllm::gptq_gemm", "large") + _values("vllm::gptq_gemm", "perf"):
        m, k = v["a"].shape
        bit = v["bit"]
        n = v["b_q_weight"].shape[1]
        assert v["a"].dtype == torch.float16 and v["a"].layout == "contiguous" and m > 0
        assert k % 32 == 0 and v["b_q_weight"].shape[0] == k * bit // 32
        assert v["b_gptq_qzeros"].shape[1] * 32 == n * bit and k % v["b_gptq_scales"].shape[0] == 0
        assert v["b_q_weight"].low == -2**31 and v["b_q_weight"].high == 2**31, "every bit pattern"
    perf = _values("vllm::gptq_gemm", "perf")
    assert {(v["a"].shape[1], v["b_q_weight"].shape[1]) for v in perf} == LLAMA
    assert {v["a"].shape[0] for v in perf} == {1, 16, 256}


def test_shuffle_and_awq_grids() -> None:
    small = _values("vllm::gptq_shuffle", "small")
    assert {v["bit"] for v in small} == set(BITS)
    assert {(v["bit"], v["q_perm"].shape[0] > 0) for v in small} == {(b, p) for b in BITS for p in (True, False)}
    for v in small:
        n = v["q_weight"].shape[1]
        if v["q_perm"].shape[0] and v["bit"] != 3:
            assert n % 2 == 0, "vLLM moves column pairs when it makes rows sequential"
    assert any(v["q_weight"].shape[1] % 2 for v in small), "odd widths without q_perm"
    awq = _values("vllm::awq_gemm", "small") + _values("vllm::awq_gemm", "perf")
    assert {v["split_k_iters"] for v in awq} >= {1, 4, 8}
    for v in awq:
        k, n = v["input"].shape[1], v["qweight"].shape[1] * 8
        group = k // v["scales"].shape[0]
        assert n % 64 == 0 and group % 32 == 0 and n % group == 0, "what vLLM's kernel accepts"
    assert {v["input"].shape[1] // v["scales"].shape[0] for v in awq} >= {32, 64, 128}


def test_hand_written_words() -> None:
    nibbles = torch.tensor([[0x76543210]], dtype=torch.int32)
    assert unpack_rows(nibbles, 4).flatten().tolist() == list(range(8)), "row k at bit 4k"
    assert unpack_cols(nibbles, 4).flatten().tolist() == list(range(8))
    # the exllama order of qdq_4.cuh: 77775555 33331111 66664444 22220000
    assert exllama_shuffle(nibbles, None, 4).item() == 0x75316420
    # AWQ: nibble j holds column (0, 2, 4, 6, 1, 3, 5, 7)[j]
    assert awq_unpack(nibbles).flatten().tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    assert awq_pack(torch.arange(8)[None]).item() == 0x75316420
    assert list(AWQ_ORDER) == [0, 2, 4, 6, 1, 3, 5, 7]
    # bit 8 needs no shuffle; bit 3: row 10 straddles words 0 and 1
    eights = torch.tensor([[0x44332211]], dtype=torch.int32)
    assert exllama_shuffle(eights, None, 8).item() == 0x44332211
    three = torch.zeros(32, 1, dtype=torch.int64)
    three[10] = 0b101
    words = pack_rows(three, 3).flatten().tolist()
    assert words == [1 << 30, 1, 0]


def _emulate_shuffle(word_rows: list[list[int]], bit: int) -> list[list[int]]:
    """qdq_2/3/4.cuh's shuffle, step by step on Python ints (one column, unsigned words)."""
    out = []
    if bit in (2, 4):
        for (w,) in word_rows:
            qb = 0
            for i in range(16 // bit):
                lo, hi = w & (2**bit - 1), (w >> bit) & (2**bit - 1)
                w >>= 2 * bit
                qb |= (hi << (i * bit + 16)) | (lo << (i * bit))
            out.append([qb])
        return out
    for qa, qb, qc in zip(*[iter(w for (w,) in word_rows)] * 3):
        qd = qc >> 26
        qc = ((qc << 4) | (qb >> 28)) & 0xFFFFFFFF
        qb = ((qb << 2) | (qa >> 30)) & 0xFFFFFFFF
        zs = []
        for q in (qa, qb, qc):
            z = 0
            for i in range(5):
                z |= ((q & 7) << (3 * i)) | (((q >> 3) & 7) << (3 * i + 16))
                q >>= 6
            zs.append(z)
        for j in range(3):
            zs[j] |= ((qd >> j) & 1) << 15 | ((qd >> (j + 3)) & 1) << 31
        out += [[z] for z in zs]
    return out


@pytest.mark.parametrize("bit", [2, 3, 4])
def test_shuffle_matches_an_emulation_of_the_kernels(bit: int) -> None:
    gen = torch.Generator().manual_seed(bit)
    q = torch.randint(-2**31, 2**31, (3 * 4, 1), generator=gen).to(torch.int32)
    unsigned = [[int(w) & 0xFFFFFFFF] for w in q.flatten().tolist()]
    got = [[int(w) & 0xFFFFFFFF] for w in exllama_shuffle(q, None, bit).flatten().tolist()]
    assert got == _emulate_shuffle(unsigned, bit)


@pytest.mark.parametrize("bit", BITS)
def test_pack_round_trips_and_make_sequential(bit: int) -> None:
    gen = torch.Generator().manual_seed(bit)
    k, n = 64 if bit != 3 else 96, 32
    q = torch.randint(0, 2**bit, (k, n), generator=gen)
    for shuffled in (False, True):
        packed = pack_rows(q, bit, shuffled)
        assert packed.dtype == torch.int32 and packed.shape == (k * bit // 32, n)
        assert torch.equal(unpack_rows(packed, bit, shuffled), q)
    z = torch.randint(0, 2**bit, (2, n), generator=gen)
    assert torch.equal(unpack_cols(pack_cols(z, bit), bit), z)
    perm = torch.randperm(k, generator=gen).to(torch.int32)
    w = pack_rows(q, bit)
    gptq_shuffle_reference(w, perm, bit)
    assert torch.equal(unpack_rows(w, bit, shuffled=True), q[perm.long()]), "new row k = old row q_perm[k]"


@pytest.mark.parametrize("bit,group,v2", [(4, 32, False), (4, -1, True), (8, 64, False), (3, 32, True),
                                          (2, 64, False)])
def test_gptq_reference_is_the_matmul_of_the_quantised_weight(bit: int, group: int, v2: bool) -> None:
    gen = torch.Generator().manual_seed(bit + group)
    k, n, m = 128, 32, 3
    weight = torch.randn(k, n, generator=gen, dtype=torch.float64) * 0.02
    a = torch.randn(m, k, generator=gen, dtype=torch.float64)
    perm = torch.randperm(k, generator=gen)
    gs = k if group == -1 else group
    g_idx = torch.empty(k, dtype=torch.int64)
    g_idx[perm] = torch.arange(k) // gs  # a balanced act-order group map
    qz = quantize(weight, bit, group, g_idx)
    assert qz.q.max() < 2**bit and qz.zero.max() < 2**bit
    dense = qz.scale[g_idx] * (qz.q - qz.zero[g_idx])
    assert (dense - weight).abs().max() <= qz.scale.max() / 2 + 1e-12, "round to nearest"
    stored = qz.zero if v2 else qz.zero - 1  # v1 checkpoints store zero - 1
    assert stored.min() >= 0, "every group straddles 0, so no zero point is 0 (a v1 -1 would wrap)"
    q, scale, w = qz.q, qz.scale, dense
    want = a @ w
    qzeros = pack_cols(stored, bit)
    plain = pack_rows(q, bit)
    got = gptq_gemm_reference(a, plain, qzeros, scale, g_idx.to(torch.int32), False, v2, bit)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    q_perm = torch.argsort(g_idx).to(torch.int32)  # what vLLM's layer hands the exllama path
    shuffled = plain.clone()
    gptq_shuffle_reference(shuffled, q_perm, bit)
    got = gptq_gemm_reference(a, shuffled, qzeros, scale, q_perm, True, v2, bit)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_gptq_zero_offset_and_exllama_without_act_order() -> None:
    k, n = 64, 8
    q = torch.full((k, n), 9)
    zeros = torch.full((1, n), 4)
    scales = torch.full((1, n), 0.5, dtype=torch.float64)
    a = torch.ones(1, k, dtype=torch.float64)
    plain = pack_rows(q, 4)
    empty = torch.empty(0, dtype=torch.int32)
    shuffled = plain.clone()
    gptq_shuffle_reference(shuffled, empty, 4)
    v1 = gptq_gemm_reference(a, shuffled, pack_cols(zeros, 4), scales, empty, True, False, 4)
    v2 = gptq_gemm_reference(a, shuffled, pack_cols(zeros, 4), scales, empty, True, True, 4)
    assert torch.equal(v1, torch.full((1, n), 64 * 0.5 * (9 - 5), dtype=torch.float64)), "v1: stored zero + 1"
    assert torch.equal(v2, torch.full((1, n), 64 * 0.5 * (9 - 4), dtype=torch.float64))


def test_awq_reference_by_brute_force() -> None:
    gen = torch.Generator().manual_seed(7)
    m, k, n, gs = 2, 64, 64, 32
    q = torch.randint(0, 16, (k, n), generator=gen)
    z = torch.randint(0, 16, (k // gs, n), generator=gen)
    s = torch.rand(k // gs, n, generator=gen, dtype=torch.float64)
    x = torch.randn(m, k, generator=gen, dtype=torch.float64)
    got = awq_gemm_reference(x, awq_pack(q), s, awq_pack(z), 8)
    want = torch.zeros(m, n, dtype=torch.float64)
    for kk in range(k):
        want += x[:, kk:kk + 1] * (s[kk // gs] * (q[kk] - z[kk // gs]))[None, :]
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_working_dtype_rounds_the_dequantised_weight_to_fp16() -> None:
    a = torch.ones(1, 128, dtype=torch.float16)
    q = torch.ones(128, 64, dtype=torch.int64)
    scales = torch.full((1, 64), 1.0 + 2**-10, dtype=torch.float16)
    zeros = torch.zeros(1, 64, dtype=torch.int64)
    out = awq_gemm_reference(a, awq_pack(q), scales, awq_pack(zeros), 8)
    assert out.dtype == torch.float16 and float(out[0, 0]) == 128 * (1.0 + 2**-10)
