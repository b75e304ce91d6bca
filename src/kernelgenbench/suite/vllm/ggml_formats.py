"""GGML block formats: the suite's own packer (float weight -> GGML bytes) and decoder (bytes -> values).

Layouts follow ggml-common.h as vLLM vendors it (csrc/quantization/gguf/ggml-common.h): blocks are
packed structs, little-endian, fp16 scales. The packer quantizes the way llama.cpp's reference
quantizers do in spirit (signed max-abs scales for the symmetric types, min/max for the affine
ones, 6-bit sub-block scales under an fp16 super-block scale for the K types), so every field of
every block carries information: all nibble values, the high bits of Q5/Q6, the upper two bits of
Q4_K's packed 6-bit scales, negative Q6_K scales. The decoder is written from the layouts alone, in
any working dtype; in float16 it rounds after each operation exactly as vLLM's dequantize.cuh does.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class GgmlType:
    name: str
    id: int
    block: int  # values per block
    size: int  # bytes per block


TYPES: dict[int, GgmlType] = {t.id: t for t in (
    GgmlType("Q4_0", 2, 32, 18),
    GgmlType("Q4_1", 3, 32, 20),
    GgmlType("Q5_0", 6, 32, 22),
    GgmlType("Q5_1", 7, 32, 24),
    GgmlType("Q8_0", 8, 32, 34),
    GgmlType("Q4_K", 12, 256, 144),
    GgmlType("Q6_K", 14, 256, 210),
)}
BY_NAME = {t.name: t.id for t in TYPES.values()}


def row_bytes(qtype: int, cols: int) -> int:
    t = TYPES[qtype]
    assert cols % t.block == 0, f"{t.name}: {cols} values are not whole blocks of {t.block}"
    return cols // t.block * t.size


# ------------------------------------------------------------------------------------------ packer

def _half_bytes(v: torch.Tensor) -> torch.Tensor:
    """[n] float -> [n, 2] little-endian fp16 bytes."""
    return v.to(torch.float16).reshape(-1, 1).view(torch.uint8)


def _round_away(v: torch.Tensor) -> torch.Tensor:
    return torch.sign(v) * torch.floor(v.abs() + 0.5)


def _inverse(d: torch.Tensor) -> torch.Tensor:
    return torch.where(d != 0, 1.0 / torch.where(d != 0, d, 1.0), 0.0)


def _signed_absmax(x: torch.Tensor) -> torch.Tensor:
    return x.gather(-1, x.abs().argmax(-1, keepdim=True)).squeeze(-1)


def _nibbles(lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
    return ((lo & 15) | ((hi & 15) << 4)).to(torch.uint8)


def _high_bits(q: torch.Tensor) -> torch.Tensor:
    """Bit 4 of each of 32 quants -> [n, 4] bytes of a little-endian uint32 (bit j = quant j)."""
    bits = ((q >> 4) & 1).reshape(-1, 4, 8)
    weights = (1 << torch.arange(8, device=q.device, dtype=torch.int64))
    return (bits * weights).sum(-1).to(torch.uint8)


def _pack_legacy(xb: torch.Tensor, t: GgmlType) -> torch.Tensor:
    """Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 from [n, 32] float32."""
    if t.name == "Q8_0":
        d = xb.abs().amax(-1) / 127
        q = _round_away(xb * _inverse(d)[:, None]).clamp(-127, 127).to(torch.int8)
        return torch.cat([_half_bytes(d), q.view(torch.uint8)], 1)
    bits = 4 if t.name.startswith("Q4") else 5
    top = (1 << bits) - 1
    if t.name.endswith("_0"):
        d = _signed_absmax(xb) / -(1 << (bits - 1))
        q = torch.floor(xb * _inverse(d)[:, None] + (1 << (bits - 1)) + 0.5)
        head = [_half_bytes(d)]
    else:
        lo, hi = xb.amin(-1), xb.amax(-1)
        d = (hi - lo) / top
        q = torch.floor((xb - lo[:, None]) * _inverse(d)[:, None] + 0.5)
        head = [_half_bytes(d), _half_bytes(lo)]
    q = q.clamp(0, top).to(torch.int64)
    if bits == 5:
        head.append(_high_bits(q))
    return torch.cat(head + [_nibbles(q[:, :16], q[:, 16:])], 1)


def _pack_q4_k(xb: torch.Tensor) -> torch.Tensor:
    sub = xb.reshape(-1, 8, 32)
    lo = sub.amin(-1).clamp(max=0.0)
    scale = (sub.amax(-1) - lo) / 15
    mins = -lo
    max_scale, max_min = scale.amax(-1), mins.amax(-1)
    ls = _round_away(scale * (63 * _inverse(max_scale))[:, None]).clamp(0, 63).to(torch.int64)
    lm = _round_away(mins * (63 * _inverse(max_min))[:, None]).clamp(0, 63).to(torch.int64)
    d = (max_scale / 63).to(torch.float16).to(torch.float32)
    dmin = (max_min / 63).to(torch.float16).to(torch.float32)
    step = d[:, None] * ls
    q = _round_away((sub + (dmin[:, None] * lm)[..., None]) * _inverse(step)[..., None]).clamp(0, 15)
    q = q.to(torch.int64).reshape(-1, 4, 64)
    scales = torch.cat([
        (ls[:, :4] & 63) | ((ls[:, 4:] >> 4) << 6),
        (lm[:, :4] & 63) | ((lm[:, 4:] >> 4) << 6),
        (ls[:, 4:] & 15) | ((lm[:, 4:] & 15) << 4),
    ], 1).to(torch.uint8)
    qs = _nibbles(q[..., :32], q[..., 32:]).reshape(-1, 128)
    return torch.cat([_half_bytes(d), _half_bytes(dmin), scales, qs], 1)


def _pack_q6_k(xb: torch.Tensor) -> torch.Tensor:
    sub = xb.reshape(-1, 16, 16)
    s = _signed_absmax(sub) / -32
    biggest = _signed_absmax(s)
    iscale = -128 * _inverse(biggest)
    ls = _round_away(s * iscale[:, None]).clamp(-128, 127)
    d = _inverse(iscale).to(torch.float16).to(torch.float32)
    step = d[:, None] * ls
    q = (_round_away(sub * _inverse(step)[..., None]).clamp(-32, 31) + 32).to(torch.int64)
    q = q.reshape(-1, 2, 4, 32)  # [block, half, quarter, l]
    ql = torch.cat([_nibbles(q[:, :, 0], q[:, :, 2]), _nibbles(q[:, :, 1], q[:, :, 3])], 2).reshape(-1, 128)
    qh = ((q[:, :, 0] >> 4) | ((q[:, :, 1] >> 4) << 2) | ((q[:, :, 2] >> 4) << 4) | ((q[:, :, 3] >> 4) << 6))
    scales = ls.to(torch.int8).view(torch.uint8)
    return torch.cat([ql, qh.to(torch.uint8).reshape(-1, 64), scales, _half_bytes(d)], 1)


def pack(x: torch.Tensor, qtype: int) -> torch.Tensor:
    """GGML blocks of `x` [..., cols] (cols whole blocks): uint8 [..., cols / block * size]."""
    t = TYPES[qtype]
    lead, cols = x.shape[:-1], x.shape[-1]
    xb = x.to(torch.float32).reshape(-1, t.block)
    if t.name == "Q4_K":
        blocks = _pack_q4_k(xb)
    elif t.name == "Q6_K":
        blocks = _pack_q6_k(xb)
    else:
        blocks = _pack_legacy(xb, t)
    return blocks.reshape(*lead, row_bytes(qtype, cols))


def packed_weight(qtype: int, scale: float = 1.0):
    """A maker for a `Joint` draw: a normal float weight of the packed shape's logical size, packed."""
    t = TYPES[qtype]

    def make(shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
        cols = shape[-1] // t.size * t.block
        x = torch.randn(*shape[:-1], cols, generator=gen, device=gen.device) * scale
        return pack(x, qtype)

    return make


# ----------------------------------------------------------------------------------------- decoder

def _half(blk: torch.Tensor, at: int, work: torch.dtype) -> torch.Tensor:
    return blk[:, at:at + 2].contiguous().view(torch.float16).squeeze(-1).to(work)


def _low_high(qs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = qs.to(torch.int64)
    return v & 15, v >> 4


def _fifth_bits(blk: torch.Tensor, at: int) -> torch.Tensor:
    """The 32 bits of a little-endian uint32 at byte `at`: [n, 32], bit j of the word at j."""
    b = blk[:, at:at + 4].to(torch.int64)
    shifts = torch.arange(8, device=blk.device, dtype=torch.int64)
    return ((b[:, :, None] >> shifts) & 1).reshape(-1, 32)


def _decode_legacy(blk: torch.Tensor, t: GgmlType, work: torch.dtype) -> torch.Tensor:
    d = _half(blk, 0, work)[:, None]
    if t.name == "Q8_0":
        return blk[:, 2:].contiguous().view(torch.int8).to(work) * d
    affine = t.name.endswith("_1")
    qs_at = 2 + 2 * affine + 4 * t.name.startswith("Q5")
    lo, hi = _low_high(blk[:, qs_at:qs_at + 16])
    q = torch.cat([lo, hi], 1)
    if t.name.startswith("Q5"):
        q = q | (_fifth_bits(blk, qs_at - 4) << 4)
    if affine:
        return q.to(work) * d + _half(blk, 2, work)[:, None]
    return (q - (16 if t.name.startswith("Q5") else 8)).to(work) * d


def _q4_k_scales(sc: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The eight 6-bit scales and mins packed in 12 bytes: [n, 8] each."""
    s = sc.to(torch.int64)
    scales = torch.cat([s[:, :4] & 63, (s[:, 8:] & 15) | ((s[:, :4] >> 6) << 4)], 1)
    mins = torch.cat([s[:, 4:8] & 63, (s[:, 8:] >> 4) | ((s[:, 4:8] >> 6) << 4)], 1)
    return scales, mins


def _decode_q4_k(blk: torch.Tensor, work: torch.dtype) -> torch.Tensor:
    d, dmin = _half(blk, 0, work)[:, None], _half(blk, 2, work)[:, None]
    scales, mins = _q4_k_scales(blk[:, 4:16])
    lo, hi = _low_high(blk[:, 16:144].reshape(-1, 4, 32))
    q = torch.stack([lo, hi], 2).reshape(-1, 8, 32)  # sub-block 2i: low nibbles, 2i+1: high
    step = (d * scales.to(work))[..., None]
    offset = (dmin * mins.to(work))[..., None]
    return (step * q.to(work) - offset).reshape(-1, 256)


def _decode_q6_k(blk: torch.Tensor, work: torch.dtype) -> torch.Tensor:
    ql = blk[:, :128].to(torch.int64).reshape(-1, 2, 2, 32)  # [block, half, 0: l / 1: l + 32, l]
    qh = blk[:, 128:192].to(torch.int64).reshape(-1, 2, 32)
    sc = blk[:, 192:208].contiguous().view(torch.int8).to(torch.int64)
    d = _half(blk, 208, work)[:, None]
    quarters = [(ql[:, :, 0] & 15) | (((qh >> 0) & 3) << 4), (ql[:, :, 1] & 15) | (((qh >> 2) & 3) << 4),
                (ql[:, :, 0] >> 4) | (((qh >> 4) & 3) << 4), (ql[:, :, 1] >> 4) | (((qh >> 6) & 3) << 4)]
    q = torch.stack(quarters, 2).reshape(-1, 256) - 32
    # vLLM multiplies the integer scale and quant first (int2half_rn rounds past 2048), then d
    return d * (sc.repeat_interleave(16, 1) * q).to(work)


def dequantize(w: torch.Tensor, qtype: int, count: int, work: torch.dtype) -> torch.Tensor:
    """The first `count` values stored in the bytes of `w` (read flat, as vLLM reads them), in `work`."""
    t = TYPES[qtype]
    blk = w.reshape(-1)[: count // t.block * t.size].reshape(-1, t.size)
    if t.name == "Q4_K":
        values = _decode_q4_k(blk, work)
    elif t.name == "Q6_K":
        values = _decode_q6_k(blk, work)
    else:
        values = _decode_legacy(blk, t, work)
    return values.reshape(-1)
