# op: cublas::cublasDgemv_v2
# idiom: split-K over a torch.zeros float64 workspace: a partials kernel, then a reduce + alpha/beta epilogue kernel; negative increments resolved in-kernel by the reference-BLAS rule

"""y := alpha * op(A) @ x + beta * y in two launches.

`_partials_kernel` gives each (block of y, slice of the reduction) pair its own program and
writes one row of a [SPLIT, len(y)] float64 workspace. `_epilogue_kernel` sums the SPLIT rows,
scales by alpha, adds beta * y (y is not read when beta == 0) and scatters into y. op(A) is
addressed through (row, reduction) strides chosen from the transpose flag. When alpha == 0 the
partials are never computed: the zero-filled workspace is already alpha * op(A) @ x.
"""

from typing import Tuple, Union

import torch
import triton
import triton.language as tl

BLOCK_Y = 64
BLOCK_K = 64
MAX_SPLIT = 32
MIN_K_PER_SPLIT = 512


@triton.jit
def _vec_index(k, n, inc):
    # reference BLAS: logical element k is at k*inc, or at (n-1-k)*|inc| when inc < 0
    return tl.where(inc > 0, k * inc, (n - 1 - k) * (0 - inc))


@triton.jit
def _partials_kernel(a_ptr, x_ptr, ws_ptr, len_y, len_k, k_per_split, s_row, s_red, incx,
                     BLOCK_Y: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_y = tl.program_id(0)
    split = tl.program_id(1)
    rows = pid_y * BLOCK_Y + tl.arange(0, BLOCK_Y).to(tl.int64)
    row_ok = rows < len_y
    k_lo = split.to(tl.int64) * k_per_split
    k_hi = tl.minimum(k_lo + k_per_split, len_k)
    acc = tl.zeros([BLOCK_Y, BLOCK_K], dtype=tl.float64)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K).to(tl.int64)
        k_ok = ks < k_hi
        a = tl.load(a_ptr + rows[:, None] * s_row + ks[None, :] * s_red,
                    mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        xv = tl.load(x_ptr + _vec_index(ks, len_k, incx), mask=k_ok, other=0.0)
        acc += a * xv[None, :]
    tl.store(ws_ptr + split.to(tl.int64) * len_y + rows, tl.sum(acc, axis=1), mask=row_ok)


@triton.jit
def _epilogue_kernel(ws_ptr, y_ptr, len_y, n_split, alpha, beta, incy,
                     BLOCK_Y: tl.constexpr, BETA_ZERO: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_Y + tl.arange(0, BLOCK_Y).to(tl.int64)
    ok = rows < len_y
    total = tl.zeros([BLOCK_Y], dtype=tl.float64)
    for s in range(0, n_split):
        total += tl.load(ws_ptr + s * len_y + rows, mask=ok, other=0.0)
    result = alpha * total
    yi = _vec_index(rows, len_y, incy)
    if not BETA_ZERO:
        result += beta * tl.load(y_ptr + yi, mask=ok, other=0.0)
    tl.store(y_ptr + yi, result, mask=ok)


def _transposed(trans: Union[int, str]) -> bool:
    if isinstance(trans, str):
        return trans.upper() in ("T", "C")
    return int(trans) in (1, 2)


def _split_for(len_k: int) -> Tuple[int, int]:
    """(number of reduction slices, reduction length per slice, a multiple of BLOCK_K)."""
    n_split = max(1, min(MAX_SPLIT, len_k // MIN_K_PER_SPLIT))
    per = triton.cdiv(triton.cdiv(len_k, n_split), BLOCK_K) * BLOCK_K
    return triton.cdiv(len_k, per), per


def cublasDgemv_v2(trans, m: int, n: int, alpha: float, A: torch.Tensor, lda: int, x: torch.Tensor,
                   incx: int, beta: float, y: torch.Tensor, incy: int) -> None:
    if m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return
    t = _transposed(trans)
    len_y, len_k = (n, m) if t else (m, n)
    s_row, s_red = (lda, 1) if t else (1, lda)
    n_split, per = _split_for(len_k)

    ws = torch.zeros((n_split, len_y), dtype=torch.float64, device=y.device)
    y_blocks = triton.cdiv(len_y, BLOCK_Y)
    if alpha != 0:
        _partials_kernel[(y_blocks, n_split)](A, x, ws, len_y, len_k, per, s_row, s_red, incx,
                                              BLOCK_Y=BLOCK_Y, BLOCK_K=BLOCK_K, num_warps=4)
    _epilogue_kernel[(y_blocks,)](ws, y, len_y, n_split, float(alpha), float(beta), incy,
                                  BLOCK_Y=BLOCK_Y, BETA_ZERO=beta == 0, num_warps=2)
