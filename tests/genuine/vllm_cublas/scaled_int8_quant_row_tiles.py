# op: vllm::scaled_int8_quant
# idiom: whole rows in one 2-D tile per program (rows x next_pow2(hidden), chosen by @triton.heuristics), floor-based round-half-even, host .contiguous() of the input

"""int8 quantisation of activations, one tile of whole rows per program.

Every row fits in a tile, so the dynamic statistics (max |x|, or min and max for the zero point)
are one tl.max / tl.min over the tile's second axis and the quantisation reuses the loaded values.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def round_half_even(v):
    r = tl.floor(v + 0.5)
    tie = (r - v) == 0.5
    odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
    return tl.where(tie & odd, r - 1.0, r)


@triton.heuristics({
    "BLOCK_N": lambda a: triton.next_power_of_2(a["n_cols"]),
    "BLOCK_M": lambda a: max(1, min(16, 4096 // triton.next_power_of_2(a["n_cols"]))),
})
@triton.jit
def quant_rows(x_ptr, q_ptr, scale_ptr, zp_ptr, n_rows, n_cols,
               MODE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # MODE 0: static symmetric, 1: static with zero point, 2: dynamic symmetric, 3: dynamic asymmetric
    r = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    c = tl.arange(0, BLOCK_N)
    rmask = r < n_rows
    m = rmask[:, None] & (c < n_cols)[None, :]
    offs = r.to(tl.int64)[:, None] * n_cols + c[None, :]
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    if MODE == 0:
        s = tl.load(scale_ptr)
        q = round_half_even(tl.math.div_rn(x, s))
    elif MODE == 1:
        s = tl.load(scale_ptr)
        q = round_half_even(x * tl.math.div_rn(1.0, s)) + tl.load(zp_ptr).to(tl.float32)
    elif MODE == 2:
        amax = tl.max(tl.where(m, tl.abs(x), 0.0), axis=1)
        tl.store(scale_ptr + r, tl.math.div_rn(amax, 127.0), mask=rmask)
        f = tl.where(amax > 0.0, tl.math.div_rn(tl.full(amax.shape, 127.0, tl.float32), amax), 0.0)
        q = round_half_even(x * f[:, None])
    else:
        lo = tl.min(tl.where(m, x, float("inf")), axis=1)
        hi = tl.max(tl.where(m, x, float("-inf")), axis=1)
        s = tl.math.div_rn(hi - lo, 255.0)
        zp = round_half_even(-128.0 - tl.math.div_rn(lo, s))
        tl.store(scale_ptr + r, s, mask=rmask)
        tl.store(zp_ptr + r, zp.to(tl.int32), mask=rmask)
        inv = tl.math.div_rn(tl.full(s.shape, 1.0, tl.float32), s)
        q = round_half_even(x * inv[:, None]) + zp[:, None]
    q = tl.minimum(tl.maximum(q, -128.0), 127.0)
    tl.store(q_ptr + offs, q.to(tl.int8), mask=m)


def scaled_int8_quant(input, scale=None, azp=None, symmetric=True):
    x = input if scale is not None else input.contiguous()
    n_cols = x.shape[-1]
    n_rows = x.numel() // max(n_cols, 1)
    q = torch.empty(x.shape, dtype=torch.int8, device=x.device)
    if scale is not None:
        mode, s_out, z_out = (0 if azp is None else 1), scale, azp
    else:
        mode = 2 if symmetric else 3
        s_out = torch.empty((n_rows, 1), dtype=torch.float32, device=x.device)
        z_out = None if symmetric else torch.empty((n_rows, 1), dtype=torch.int32, device=x.device)
    if n_rows and n_cols:
        grid = lambda meta: (triton.cdiv(n_rows, meta["BLOCK_M"]),)
        quant_rows[grid](x, q, s_out, z_out if z_out is not None else s_out, n_rows, n_cols, MODE=mode)
    return q, s_out, z_out
