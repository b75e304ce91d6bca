"""vllm::rms_norm~eps_out in Triton: epsilon outside the root; one tile of rows per program.

Rows of an input of rank up to 4 are addressed through its own strides, so sliced, transposed
and broadcast inputs need no copy. As in vLLM, the normalised x / (sqrt(mean(x^2)) + eps) is rounded to the
input dtype before it is multiplied by the weight.
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
def _rms_norm_tile(out_ptr, x_ptr, w_ptr, n_rows, n1, n2, s0, s1, s2, s_col, hidden, eps,
                   BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < n_rows
    x_rows = _row_offsets(rows, n1, n2, s0, s1, s2)
    cols = tl.arange(0, BLOCK_N)
    col_ok = cols < hidden
    mask = row_ok[:, None] & col_ok[None, :]
    x = tl.load(x_ptr + x_rows[:, None] + cols[None, :].to(tl.int64) * s_col, mask=mask, other=0.0)
    x = x.to(tl.float32)
    inv = 1.0 / (tl.sqrt(tl.sum(x * x, axis=1) / hidden) + eps)
    w = tl.load(w_ptr + cols, mask=col_ok, other=0.0).to(tl.float32)
    normed = (x * inv[:, None]).to(out_ptr.dtype.element_ty).to(tl.float32)
    y = (normed * w[None, :]).to(out_ptr.dtype.element_ty)
    out_rows = rows.to(tl.int64) * hidden
    tl.store(out_ptr + out_rows[:, None] + cols[None, :], y, mask=mask)


@triton.jit
def _rms_norm_long(out_ptr, x_ptr, w_ptr, n1, n2, s0, s1, s2, s_col, hidden, eps,
                   BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = _row_offsets(row, n1, n2, s0, s1, s2)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, hidden, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + x_row + cols.to(tl.int64) * s_col, mask=cols < hidden, other=0.0)
        x = x.to(tl.float32)
        acc += x * x
    inv = 1.0 / (tl.sqrt(tl.sum(acc, axis=0) / hidden) + eps)
    out_row = row.to(tl.int64) * hidden
    for start in range(0, hidden, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        ok = cols < hidden
        x = tl.load(x_ptr + x_row + cols.to(tl.int64) * s_col, mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        normed = (x * inv).to(out_ptr.dtype.element_ty).to(tl.float32)
        tl.store(out_ptr + out_row + cols, (normed * w).to(out_ptr.dtype.element_ty), mask=ok)


def _geometry(t: torch.Tensor):
    """(n1, n2, s0, s1, s2, s_col): the row dims padded to three, for rank 1 to 4."""
    pad = 4 - t.dim()
    shape = [1] * pad + list(t.shape)
    stride = [0] * pad + list(t.stride())
    return shape[1], shape[2], stride[0], stride[1], stride[2], stride[3]


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    hidden = input.shape[-1]
    if input.numel() == 0:
        return
    n_rows = input.numel() // hidden
    n1, n2, s0, s1, s2, s_col = _geometry(input)
    block_n = triton.next_power_of_2(hidden)
    if block_n > MAX_ONE_PASS:
        _rms_norm_long[(n_rows,)](out, input, weight, n1, n2, s0, s1, s2, s_col, hidden, epsilon,
                                  BLOCK_N=4096, num_warps=16)
        return
    block_r = min(max(1, 2048 // block_n), triton.next_power_of_2(n_rows))
    warps = max(1, min(16, block_r * block_n // 256))
    grid = (triton.cdiv(n_rows, block_r),)
    _rms_norm_tile[grid](out, input, weight, n_rows, n1, n2, s0, s1, s2, s_col, hidden, epsilon,
                         BLOCK_R=block_r, BLOCK_N=block_n, num_warps=warps)
