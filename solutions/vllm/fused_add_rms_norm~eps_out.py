"""vllm::fused_add_rms_norm~eps_out in Triton: residual <- input + residual; input <- RMSNorm(residual),
epsilon outside the root.

One tile of rows per program. Like vLLM, the sum is rounded to the tensor dtype before it is
stored and normalised; statistics run in float32. Both tensors are addressed through their own
strides (rank up to 4), so a row-sliced input needs no copy.
"""

import torch
import triton
import triton.language as tl

MAX_ONE_PASS = 8192


@triton.jit
def _row_offsets(rows, n1, n2, s0, s1, s2):
    r = rows.to(tl.int64)
    i2 = r % n2
    rest = r // n2
    return (rest // n1) * s0 + (rest % n1) * s1 + i2 * s2


@triton.jit
def _fused_tile(x_ptr, res_ptr, w_ptr, n_rows, n1, n2,
                xs0, xs1, xs2, xs_col, rs0, rs1, rs2, rs_col, hidden, eps,
                BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_N)
    col_ok = cols < hidden
    mask = (rows < n_rows)[:, None] & col_ok[None, :]
    c64 = cols[None, :].to(tl.int64)
    x_at = x_ptr + _row_offsets(rows, n1, n2, xs0, xs1, xs2)[:, None] + c64 * xs_col
    r_at = res_ptr + _row_offsets(rows, n1, n2, rs0, rs1, rs2)[:, None] + c64 * rs_col
    x = tl.load(x_at, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_at, mask=mask, other=0.0).to(tl.float32)
    z = (x + r).to(res_ptr.dtype.element_ty)
    tl.store(r_at, z, mask=mask)
    zf = z.to(tl.float32)
    inv = 1.0 / (tl.sqrt(tl.sum(zf * zf, axis=1) / hidden) + eps)
    w = tl.load(w_ptr + cols, mask=col_ok, other=0.0).to(tl.float32)
    normed = (zf * inv[:, None]).to(x_ptr.dtype.element_ty).to(tl.float32)
    tl.store(x_at, (normed * w[None, :]).to(x_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _fused_long(x_ptr, res_ptr, w_ptr, n1, n2,
                xs0, xs1, xs2, xs_col, rs0, rs1, rs2, rs_col, hidden, eps,
                BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + _row_offsets(row, n1, n2, xs0, xs1, xs2)
    r_row = res_ptr + _row_offsets(row, n1, n2, rs0, rs1, rs2)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, hidden, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        ok = cols < hidden
        c64 = cols.to(tl.int64)
        x = tl.load(x_row + c64 * xs_col, mask=ok, other=0.0).to(tl.float32)
        r = tl.load(r_row + c64 * rs_col, mask=ok, other=0.0).to(tl.float32)
        z = (x + r).to(res_ptr.dtype.element_ty)
        tl.store(r_row + c64 * rs_col, z, mask=ok)
        zf = z.to(tl.float32)
        acc += zf * zf
    inv = 1.0 / (tl.sqrt(tl.sum(acc, axis=0) / hidden) + eps)
    for start in range(0, hidden, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        ok = cols < hidden
        c64 = cols.to(tl.int64)
        zf = tl.load(r_row + c64 * rs_col, mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        normed = (zf * inv).to(x_ptr.dtype.element_ty).to(tl.float32)
        tl.store(x_row + c64 * xs_col, (normed * w).to(x_ptr.dtype.element_ty), mask=ok)


def _geometry(t: torch.Tensor):
    """(n1, n2, s0, s1, s2, s_col): the row dims padded to three, for rank 1 to 4."""
    pad = 4 - t.dim()
    shape = [1] * pad + list(t.shape)
    stride = [0] * pad + list(t.stride())
    return shape[1], shape[2], stride[0], stride[1], stride[2], stride[3]


def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                       epsilon: float) -> None:
    hidden = input.shape[-1]
    if input.numel() == 0:
        return
    n_rows = input.numel() // hidden
    n1, n2, xs0, xs1, xs2, xs_col = _geometry(input)
    _, _, rs0, rs1, rs2, rs_col = _geometry(residual.view(input.shape))
    block_n = triton.next_power_of_2(hidden)
    if block_n > MAX_ONE_PASS:
        _fused_long[(n_rows,)](input, residual, weight, n1, n2, xs0, xs1, xs2, xs_col,
                               rs0, rs1, rs2, rs_col, hidden, epsilon, BLOCK_N=4096, num_warps=16)
        return
    block_r = min(max(1, 2048 // block_n), triton.next_power_of_2(n_rows))
    warps = max(1, min(16, block_r * block_n // 256))
    grid = (triton.cdiv(n_rows, block_r),)
    _fused_tile[grid](input, residual, weight, n_rows, n1, n2, xs0, xs1, xs2, xs_col,
                      rs0, rs1, rs2, rs_col, hidden, epsilon,
                      BLOCK_R=block_r, BLOCK_N=block_n, num_warps=warps)
