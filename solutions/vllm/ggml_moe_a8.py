"""vllm::ggml_moe_a8 in Triton: one program per routed block of MOE_X sorted slots (one expert each) and
tile of output rows; the expert's weight tile is decoded from its GGML blocks in-kernel and multiplied
with the block's gathered float32 activation rows (no int8 rounding of the activations: the float product
is what vLLM's q8_1 path approximates). Padding slots and blocks past the padded total do no work."""

import torch
import triton
import triton.language as tl

BLOCK_M = 16  # tl.dot needs 16 rows; a routed block fills MOE_X of them
BLOCK_N = 64
BLOCK_K = 64
MOE_X = 4  # vLLM's ggml_moe_get_block_size: slots per routed block, one expert each
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
def _moe_kernel(w_ptr, x_ptr, sorted_ptr, experts_ptr, total_ptr, y_ptr, top_k, numel, row, col, row_bytes,
                expert_bytes, QK: tl.constexpr, SIZE: tl.constexpr, QTYPE: tl.constexpr, MOE_X: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    block = tl.program_id(1)
    start = block * MOE_X
    live = start <= tl.load(total_ptr)
    m = tl.arange(0, BLOCK_M)
    z = tl.load(sorted_ptr + start + m, mask=(m < MOE_X) & live, other=numel)
    routed = z < numel
    token = tl.where(routed, z // top_k, 0).to(tl.int64)
    w_base = w_ptr + tl.load(experts_ptr + block).to(tl.int64) * expert_bytes
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, tl.where(live, col, 0), BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        kmask = cols < col
        x = tl.load(x_ptr + token[:, None] * col + cols[None, :], mask=routed[:, None] & kmask[None, :], other=0.0)
        wmask = (rows[:, None] < row) & kmask[None, :]
        blk = rows[:, None].to(tl.int64) * row_bytes + (cols[None, :] // QK) * SIZE
        w = tl.where(wmask, _decode(w_base, blk, cols[None, :] % QK, wmask, QTYPE), 0.0)
        acc += tl.dot(x.to(tl.float32), tl.trans(w))
    out = y_ptr + z[:, None].to(tl.int64) * row + rows[None, :]
    tl.store(out, acc.to(y_ptr.dtype.element_ty), mask=routed[:, None] & (rows[None, :] < row))


def ggml_moe_a8(X: torch.Tensor, W: torch.Tensor, sorted_token_ids: torch.Tensor, expert_ids: torch.Tensor,
                num_tokens_post_padded: torch.Tensor, quant_type: int, row: int, top_k: int,
                tokens: int) -> torch.Tensor:
    qk, size = FORMATS[quant_type]
    col = X.shape[1]
    y = torch.empty((tokens * top_k, row), dtype=X.dtype, device=X.device)
    blocks = sorted_token_ids.numel() // MOE_X  # vLLM launches whole blocks only
    if blocks and y.numel():
        row_bytes = col // qk * size
        grid = (triton.cdiv(row, BLOCK_N), blocks)
        _moe_kernel[grid](W, X.contiguous(), sorted_token_ids, expert_ids, num_tokens_post_padded, y, top_k,
                          tokens * top_k, row, col, row_bytes, row * row_bytes, QK=qk, SIZE=size, QTYPE=quant_type,
                          MOE_X=MOE_X, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return y
