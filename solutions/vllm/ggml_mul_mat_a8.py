"""vllm::ggml_mul_mat_a8 in Triton: a tiled matmul whose weight tiles are decoded from their GGML
blocks in-kernel; the activations stay in floating point (no int8 rounding: the float product is
what vLLM's q8_1 path approximates); float16 activations multiply in float16, others in float32,
all accumulating in float32."""

import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64
BLOCK_K = 32
# values per block and bytes per block of each GGML type id
FORMATS = {2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 12: (256, 144), 14: (256, 210)}

# GGML block decoding, one value per lane: `blk` is the block's byte offset (int64), `j` the value's
# index inside the block; every field is gathered from the uint8 weight and combined in float32.


@triton.jit
def _half(w_ptr, at, mask):
    lo = tl.load(w_ptr + at, mask=mask, other=0).to(tl.uint16)
    hi = tl.load(w_ptr + at + 1, mask=mask, other=0).to(tl.uint16)
    return (lo | (hi << 8)).to(tl.float16, bitcast=True).to(tl.float32)


@triton.jit
def _byte(w_ptr, at, mask):
    return tl.load(w_ptr + at, mask=mask, other=0).to(tl.int32)


@triton.jit
def _decode(w_ptr, blk, j, mask, QTYPE: tl.constexpr):
    if QTYPE == 8:  # Q8_0: fp16 d, int8 qs[32]
        q = tl.load(w_ptr + blk + 2 + j, mask=mask, other=0).to(tl.int8, bitcast=True).to(tl.float32)
        return q * _half(w_ptr, blk, mask)
    elif QTYPE == 12:  # Q4_K: fp16 d, fp16 dmin, 12 bytes of 6-bit scales/mins, qs[128]
        sub = j // 32
        b = _byte(w_ptr, blk + 16 + (j // 64) * 32 + j % 32, mask)
        q = tl.where(sub % 2 == 1, b >> 4, b & 15)
        lo = sub < 4
        s_a = _byte(w_ptr, blk + 4 + sub, mask)  # scales[sub]
        s_b = _byte(w_ptr, blk + 8 + sub, mask)  # scales[sub + 4]
        s_c = _byte(w_ptr, blk + 4 + tl.where(lo, sub, sub - 4), mask)  # scales[sub - 4] past 4
        sc = tl.where(lo, s_a & 63, (s_b & 15) | ((s_c >> 6) << 4))
        mn = tl.where(lo, s_b & 63, (s_b >> 4) | ((s_a >> 6) << 4))
        d = _half(w_ptr, blk, mask)
        dmin = _half(w_ptr, blk + 2, mask)
        return d * sc.to(tl.float32) * q.to(tl.float32) - dmin * mn.to(tl.float32)
    elif QTYPE == 14:  # Q6_K: ql[128], qh[64], int8 scales[16], fp16 d
        half = j // 128
        r = j % 128
        quarter = r // 32
        lane = r % 32
        b = _byte(w_ptr, blk + 64 * half + lane + 32 * (quarter % 2), mask)
        low = tl.where(quarter >= 2, b >> 4, b & 15)
        h = (_byte(w_ptr, blk + 128 + 32 * half + lane, mask) >> (2 * quarter)) & 3
        q = (low | (h << 4)) - 32
        sc = tl.load(w_ptr + blk + 192 + j // 16, mask=mask, other=0).to(tl.int8, bitcast=True)
        return _half(w_ptr, blk + 208, mask) * (sc.to(tl.float32) * q.to(tl.float32))
    else:  # Q4_0 (2), Q4_1 (3), Q5_0 (6), Q5_1 (7): fp16 d [, fp16 m] [, qh u32], qs[16]
        AFFINE: tl.constexpr = QTYPE == 3 or QTYPE == 7
        FIVE: tl.constexpr = QTYPE == 6 or QTYPE == 7
        qs_at = 2 + 2 * AFFINE + 4 * FIVE
        b = _byte(w_ptr, blk + qs_at + j % 16, mask)
        q = tl.where(j < 16, b & 15, b >> 4)
        if FIVE:
            hb = _byte(w_ptr, blk + qs_at - 4 + j // 8, mask)
            q = q | (((hb >> (j % 8)) & 1) << 4)
        d = _half(w_ptr, blk, mask)
        if AFFINE:
            return q.to(tl.float32) * d + _half(w_ptr, blk + 2, mask)
        else:
            return (q - 8 * (1 + FIVE)).to(tl.float32) * d


@triton.jit
def _mul_mat_kernel(w_ptr, x_ptr, y_ptr, tokens, row, col, row_bytes, QK: tl.constexpr, SIZE: tl.constexpr,
                    QTYPE: tl.constexpr, HALF: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr):
    toks = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, col, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        kmask = ks < col
        x = tl.load(x_ptr + toks[:, None].to(tl.int64) * col + ks[None, :],
                    mask=(toks[:, None] < tokens) & kmask[None, :], other=0.0)
        wmask = kmask[:, None] & (rows[None, :] < row)
        blk = rows[None, :].to(tl.int64) * row_bytes + (ks[:, None] // QK) * SIZE
        w = tl.where(wmask, _decode(w_ptr, blk, ks[:, None] % QK, wmask, QTYPE), 0.0)
        if HALF:
            acc = tl.dot(x.to(tl.float16), w.to(tl.float16), acc)
        else:
            acc = tl.dot(x.to(tl.float32), w, acc)
    out = y_ptr + toks[:, None].to(tl.int64) * row + rows[None, :]
    tl.store(out, acc.to(y_ptr.dtype.element_ty), mask=(toks[:, None] < tokens) & (rows[None, :] < row))


def ggml_mul_mat_a8(W: torch.Tensor, X: torch.Tensor, quant_type: int, row: int) -> torch.Tensor:
    qk, size = FORMATS[quant_type]
    col = X.shape[-1]
    x = X.contiguous()
    tokens = x.numel() // col
    y = torch.empty((*X.shape[:-1], row), dtype=X.dtype, device=X.device)
    block_m = max(16, min(BLOCK_M, triton.next_power_of_2(tokens)))
    grid = (triton.cdiv(tokens, block_m), triton.cdiv(row, BLOCK_N))
    _mul_mat_kernel[grid](W, x, y, tokens, row, col, col // qk * size, QK=qk, SIZE=size, QTYPE=quant_type,
                          HALF=X.dtype == torch.float16, BLOCK_M=block_m, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                          num_warps=4)
    return y
