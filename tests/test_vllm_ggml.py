"""The GGML (GGUF) records: the packer and decoder against hand-built blocks, and grids that draw
every packed type, every activation dtype and the call shapes vLLM's callers use."""

from __future__ import annotations

import struct

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import materialize
from kernelgenbench.suite.vllm import ggml
from kernelgenbench.suite.vllm.ggml_formats import BY_NAME, TYPES, dequantize, pack, row_bytes
from kernelgenbench.suite.vllm.moe import moe_align_block_size_reference

OPS = ("ggml_dequantize", "ggml_mul_mat_vec_a8", "ggml_mul_mat_a8", "ggml_moe_a8_vec", "ggml_moe_a8")


def _bytes(data: bytes) -> torch.Tensor:
    return torch.tensor(list(data), dtype=torch.uint8)


def _values(data: bytes, kind: str) -> list[float]:
    t = TYPES[BY_NAME[kind]]
    return dequantize(_bytes(data), t.id, len(data) // t.size * t.block, torch.float64).tolist()


def test_q4_0_block_by_hand():
    qs = bytes((j & 15) | (((15 - j) & 15) << 4) for j in range(16))
    got = _values(struct.pack("<e", 0.5) + qs, "Q4_0")
    assert got == [(j - 8) * 0.5 for j in range(16)] + [(15 - j - 8) * 0.5 for j in range(16)]


def test_q4_1_and_q5_1_blocks_by_hand():
    qs = bytes(j | (j << 4) for j in range(16))
    assert _values(struct.pack("<ee", 0.25, -1.0) + qs, "Q4_1") == [j * 0.25 - 1.0 for j in range(16)] * 2
    qh = struct.pack("<I", 0xA5A5_0F0F)
    got = _values(struct.pack("<ee", 2.0, 1.0) + qh + qs, "Q5_1")
    high = [(0xA5A5_0F0F >> k) & 1 for k in range(32)]
    assert got == [((j % 16) | (high[j] << 4)) * 2.0 + 1.0 for j in range(32)]


def test_q5_0_high_bits_by_hand():
    qh = struct.pack("<I", 1 << 3 | 1 << 20)
    got = _values(struct.pack("<e", 1.0) + qh + bytes(16), "Q5_0")
    assert got[3] == 0.0 and got[20] == 0.0 and got[0] == -16.0 and got[31] == -16.0


def test_q8_0_block_by_hand():
    qs = struct.pack("<32b", *range(-16, 16))
    assert _values(struct.pack("<e", -0.125) + qs, "Q8_0") == [q * -0.125 for q in range(-16, 16)]


def test_q4_k_scales_and_mins_by_hand():
    sc = [1, 2, 3, 4, 17, 33, 47, 63]
    mn = [5, 6, 7, 8, 20, 40, 50, 60]
    packed = ([sc[j] | ((sc[j + 4] >> 4) << 6) for j in range(4)] + [mn[j] | ((mn[j + 4] >> 4) << 6) for j in range(4)]
              + [(sc[j + 4] & 15) | ((mn[j + 4] & 15) << 4) for j in range(4)])
    qs = bytes((3 + il) | ((9 + il) << 4) for il in range(4) for _ in range(32))
    got = _values(struct.pack("<ee", 0.5, 0.25) + bytes(packed) + qs, "Q4_K")
    for v in range(256):
        sub, il = v // 32, v // 64
        q = 9 + il if sub % 2 else 3 + il
        assert got[v] == 0.5 * sc[sub] * q - 0.25 * mn[sub], v


def test_q6_k_block_by_hand():
    q = [(v * 7) % 64 for v in range(256)]
    ql, qh = bytearray(128), bytearray(64)
    for v, x in enumerate(q):
        half, r = divmod(v, 128)
        quarter, lane = divmod(r, 32)
        at = 64 * half + lane + 32 * (quarter % 2)
        ql[at] |= (x & 15) << (4 * (quarter >= 2))
        qh[32 * half + lane] |= (x >> 4) << (2 * quarter)
    scales = [(-1) ** s * (s * 9 % 128) for s in range(16)]
    got = _values(bytes(ql) + bytes(qh) + struct.pack("<16b", *scales) + struct.pack("<e", 0.5), "Q6_K")
    assert got == [0.5 * scales[v // 16] * (q[v] - 32) for v in range(256)]


@pytest.mark.parametrize("qtype", sorted(TYPES))
def test_packer_round_trip_and_uses_every_field(qtype):
    t = TYPES[qtype]
    x = torch.randn(8, 1024, generator=torch.Generator().manual_seed(qtype))
    w = pack(x, qtype)
    assert w.dtype == torch.uint8 and w.shape == (8, row_bytes(qtype, 1024))
    y = dequantize(w, qtype, x.numel(), torch.float64).reshape(x.shape)
    bits = {"Q4": 4, "Q5": 5, "Q6": 6, "Q8": 8}[t.name[:2]]
    assert float((y - x.double()).square().mean().sqrt()) < 1.5 * 2.0 ** -bits * 4
    blocks = w.reshape(-1, t.size)
    if t.name in ("Q4_0", "Q4_1", "Q5_0", "Q5_1"):
        qs = blocks[:, -16:]
        assert set((qs & 15).unique().tolist()) == set(range(16))
    if t.name == "Q4_K":
        assert bool(((blocks[:, 4:12] >> 6) != 0).any())  # upper bits of scales/mins >= 16 used
    if t.name == "Q6_K":
        assert bool((blocks[:, 192:208].view(torch.int8) < 0).any())


def test_float16_decode_rounds_like_vllm():
    w = pack(torch.randn(4, 256, generator=torch.Generator().manual_seed(1)), BY_NAME["Q4_K"])
    exact = dequantize(w, BY_NAME["Q4_K"], 1024, torch.float64)
    half = dequantize(w, BY_NAME["Q4_K"], 1024, torch.float16)
    assert not torch.equal(exact.to(torch.float16), half)  # rounding per operation, not once
    assert float((half.double() - exact).abs().max()) < 1e-2


def test_q8_1_activation_rounding():
    x = torch.linspace(-2.0, 2.0, 64).reshape(1, 64)
    q = ggml._q8_1(x)
    d = (torch.tensor(2.0) / 127).to(torch.float16).float()
    assert torch.allclose(q / d, (q / d).round())  # multiples of the fp16 scale
    assert float((q - x).abs().max()) <= float(d) * 0.51
    assert torch.equal(ggml._q8_1(torch.zeros(2, 32)), torch.zeros(2, 32))


def _cases(name: str, size: str):
    return [c for c in registry.get(f"vllm::{name}").cases if c.size == size]


@pytest.mark.parametrize("name", OPS)
def test_grids_draw_every_type_and_dtype(name):
    small = _cases(name, "small")
    kinds = {c.sample.values["quant_type"] for c in small}
    assert kinds == set(TYPES), name
    dtypes = {c.sample.values["dtype" if name == "ggml_dequantize" else "X"] for c in small}
    if name == "ggml_dequantize":
        assert dtypes == {torch.float16, torch.bfloat16, torch.float32, None}
    else:
        assert {s.dtype for s in dtypes} == {torch.float16, torch.bfloat16}
    for size in ("large", "perf"):
        assert _cases(name, size)


def test_grids_draw_the_callers_shapes():
    deq = [c.sample.values for c in _cases("ggml_dequantize", "small")]
    assert any(v["m"] * v["n"] == v["W"].shape[0] * v["W"].shape[1] // TYPES[v["quant_type"]].size
               * TYPES[v["quant_type"]].block and v["m"] != v["W"].shape[0] for v in deq)  # embedding path
    assert any(len(c.sample.values["X"].shape) == 3 for c in _cases("ggml_mul_mat_a8", "small"))
    assert {c.sample.values["X"].shape[0] for c in _cases("ggml_mul_mat_vec_a8", "small")} >= {1, 2, 6}
    moe = [c.sample.values for c in _cases("ggml_moe_a8_vec", "small")]
    assert any(v["top_k"] == 1 and v["topk_ids"].shape[1] > 1 for v in moe)  # the caller's second call
    assert any(v["top_k"] > 1 for v in moe)


def test_packed_weight_is_drawn_from_the_case_seed():
    case = _cases("ggml_mul_mat_a8", "small")[0]
    a = materialize(case.sample.values, 1, "cpu")["W"]
    b = materialize(case.sample.values, 2, "cpu")["W"]
    assert a.dtype == torch.uint8 and a.shape == case.sample.values["W"].shape and not torch.equal(a, b)


def test_moe_vec_reference_by_brute_force():
    qtype = BY_NAME["Q8_0"]
    x = torch.randn(3, 64, dtype=torch.float64)
    w = pack(torch.randn(4, 5, 64), qtype)
    ids = torch.tensor([[2, 0], [3, 3], [1, 2]], dtype=torch.int32)
    got = ggml.ggml_moe_a8_vec_reference(x, w, ids, 2, qtype, 5, 3)
    dense = dequantize(w, qtype, 4 * 5 * 64, torch.float64).reshape(4, 5, 64)
    want = torch.stack([dense[int(ids.flatten()[z])] @ x[z // 2] for z in range(6)])
    assert torch.allclose(got, want)


def test_moe_grid_draws_real_routing_and_padding():
    small = _cases("ggml_moe_a8", "small")
    shapes = {c.sample.values["topk_ids"].shape for c in small}
    assert {k for _, k in shapes} >= {2, 4, 6, 8}
    assert {c.sample.values["W"].shape[0] for c in small} >= {8, 60, 64, 128, 256}
    assert any(c.sample.values["top_k"] == 1 and c.sample.values["topk_ids"].shape[1] > 1 for c in small)
    assert all(c.sample.values["tokens"] > 64 for size in ("large", "perf") for c in _cases("ggml_moe_a8", size)
               if c.sample.values["top_k"] > 1)  # vLLM's caller takes this path past 64 tokens
    padding = tail = 0
    for i, case in enumerate(small):
        v = materialize(case.sample.values, i, "cpu")
        numel = v["topk_ids"].numel()
        flat = v["topk_ids"].flatten().tolist()
        slots, experts = v["sorted_token_ids"].tolist(), v["expert_ids"].tolist()
        total = int(v["num_tokens_post_padded"][0])
        assert total % ggml.MOE_X == 0 and total <= len(slots) // ggml.MOE_X * ggml.MOE_X
        assert sorted(z for z in slots if z < numel) == list(range(numel))  # every row written once
        for s, z in enumerate(slots[:total]):
            if z < numel:
                assert experts[s // ggml.MOE_X] == flat[z], case.name
        padding += sum(z == numel for z in slots[:total])
        tail += len(slots) > total
        assert v["X"].shape[0] == v["tokens"] and v["tokens"] * v["top_k"] == numel
    assert padding and tail


def _moe_brute_force(x, dense, slots, experts, total, top_k, tokens):
    """vLLM's moe.cuh launch, slot by slot: whole blocks of MOE_X, skipped past the padded total."""
    y = torch.full((tokens * top_k, dense.shape[1]), float("nan"), dtype=x.dtype)
    for s in range(len(slots) // ggml.MOE_X * ggml.MOE_X):
        z = int(slots[s])
        if s // ggml.MOE_X * ggml.MOE_X <= total and z < tokens * top_k:
            y[z] = dense[int(experts[s // ggml.MOE_X])] @ x[z // top_k]
    return y


@pytest.mark.parametrize("second", [False, True])
def test_moe_reference_by_brute_force(second):
    qtype = BY_NAME["Q4_1"]
    ids = torch.tensor([[2, 0], [3, 1], [0, 2], [2, 3], [2, 0]], dtype=torch.int32)
    experts, row, top_k = 5, 6, 2
    size = ids.numel() + experts * (ggml.MOE_X - 1)
    slots, total = torch.empty(size, dtype=torch.int32), torch.empty(1, dtype=torch.int32)
    blocks = torch.empty(-(-size // ggml.MOE_X), dtype=torch.int32)
    moe_align_block_size_reference(ids, experts, ggml.MOE_X, slots, blocks, total)
    slots[:4] = slots[:4].flip(0)  # order and padding place within a block do not matter
    w = pack(torch.randn(experts, row, 64), qtype)
    dense = dequantize(w, qtype, w.numel() // TYPES[qtype].size * 32, torch.float64).reshape(experts, row, 64)
    tokens, k = (ids.numel(), 1) if second else (ids.shape[0], top_k)
    x = torch.randn(tokens, 64, dtype=torch.float64)
    got = ggml.ggml_moe_a8_reference(x, w, slots, blocks, total, qtype, row, k, tokens)
    want = _moe_brute_force(x, dense, slots, blocks, int(total[0]), k, tokens)
    assert not want.isnan().any() and torch.allclose(got, want)
    flat = ids.flatten()
    assert torch.allclose(got, torch.stack([dense[int(flat[z])] @ x[z if second else z // top_k]
                                            for z in range(ids.numel())]))
