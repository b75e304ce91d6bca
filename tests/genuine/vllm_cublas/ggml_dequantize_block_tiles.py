# op: vllm::ggml_dequantize
# idiom: 2-D tile of whole blocks per program (header once per row), fp16 fields rebuilt from byte pairs, one kernel per format family

"""GGUF dequantisation with a program per run of whole blocks: rows are blocks, columns their values."""

import torch
import triton
import triton.language as tl

ROWS = 16
LAYOUT = {2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 12: (256, 144), 14: (256, 210)}


@triton.jit
def fp16_at(src, off, ok):
    lo = tl.load(src + off, mask=ok, other=0).to(tl.uint16)
    pair = lo | (tl.load(src + off + 1, mask=ok, other=0).to(tl.uint16) << 8)
    return pair.to(tl.float16, bitcast=True).to(tl.float32)


@triton.jit
def small_blocks(src, dst, nblk, T: tl.constexpr, NBYTES: tl.constexpr, ROWS: tl.constexpr):
    b = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    live = b < nblk
    base = b.to(tl.int64) * NBYTES
    v = tl.arange(0, 32)
    ok = live[:, None]
    scale = fp16_at(src, base, live)[:, None]
    if T == 8:
        q = tl.load(src + base[:, None] + 2 + v[None, :], mask=ok, other=0).to(tl.int8, bitcast=True)
        out = q.to(tl.float32) * scale
    else:
        two = T == 3 or T == 7
        five = T == 6 or T == 7
        start = 2 + 2 * two + 4 * five
        byte = tl.load(src + base[:, None] + start + (v[None, :] % 16), mask=ok, other=0).to(tl.int32)
        nib = (byte >> (4 * (v[None, :] // 16))) & 15
        if five:
            hb = tl.load(src + base[:, None] + start - 4 + v[None, :] // 8, mask=ok, other=0).to(tl.int32)
            nib += ((hb >> (v[None, :] % 8)) & 1) * 16
        if two:
            out = nib.to(tl.float32) * scale + fp16_at(src, base + 2, live)[:, None]
        else:
            out = (nib - (16 if five else 8)).to(tl.float32) * scale
    tl.store(dst + b.to(tl.int64)[:, None] * 32 + v[None, :], out.to(dst.dtype.element_ty), mask=ok)


@triton.jit
def super_blocks(src, dst, nblk, T: tl.constexpr, NBYTES: tl.constexpr, ROWS: tl.constexpr):
    b = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    live = b < nblk
    ok = live[:, None]
    head = b.to(tl.int64) * NBYTES
    base = head[:, None]
    v = tl.arange(0, 256)[None, :]
    if T == 12:
        g = v // 32
        byte = tl.load(src + base + 16 + (v // 64) * 32 + v % 32, mask=ok, other=0).to(tl.int32)
        q = (byte >> (4 * (g % 2))) & 15
        a = tl.load(src + base + 4 + g, mask=ok, other=0).to(tl.int32)
        c = tl.load(src + base + 8 + g, mask=ok, other=0).to(tl.int32)
        e = tl.load(src + base + 4 + g % 4, mask=ok, other=0).to(tl.int32)
        sc = tl.where(g < 4, a & 63, (c & 15) | ((e >> 6) << 4))
        mn = tl.where(g < 4, c & 63, (c >> 4) | ((a >> 6) << 4))
        d = fp16_at(src, head, live)[:, None]
        dm = fp16_at(src, head + 2, live)[:, None]
        out = d * sc.to(tl.float32) * q.to(tl.float32) - dm * mn.to(tl.float32)
    else:
        h = v // 128
        quad = (v % 128) // 32
        lane = v % 32
        lo = tl.load(src + base + 64 * h + 32 * (quad % 2) + lane, mask=ok, other=0).to(tl.int32)
        hi = tl.load(src + base + 128 + 32 * h + lane, mask=ok, other=0).to(tl.int32)
        q = (((lo >> (4 * (quad // 2))) & 15) | (((hi >> (2 * quad)) & 3) << 4)) - 32
        s = tl.load(src + base + 192 + v // 16, mask=ok, other=0).to(tl.int8, bitcast=True).to(tl.float32)
        out = fp16_at(src, head + 208, live)[:, None] * s * q.to(tl.float32)
    tl.store(dst + b.to(tl.int64)[:, None] * 256 + v, out.to(dst.dtype.element_ty), mask=ok)


def ggml_dequantize(W, quant_type, m, n, dtype=None):
    per, nbytes = LAYOUT[quant_type]
    out = torch.empty((m, n), dtype=dtype or torch.float16, device=W.device)
    nblk = m * n // per
    if nblk:
        kernel = super_blocks if per == 256 else small_blocks
        kernel[(triton.cdiv(nblk, ROWS),)](W, out, nblk, T=quant_type, NBYTES=nbytes, ROWS=ROWS)
    return out
