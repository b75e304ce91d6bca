"""cublasDtrsmBatched in Triton: op(A[b]) X = alpha B[b] (left) or X op(A[b]) = alpha B[b] (right).

Both sides reduce to one problem, T X = alpha B with T triangular (k x k) and X k x R: the right
side is its transpose, op(A)^T X^T = alpha B^T, so the host only picks strides for T and B and
whether T is effectively lower (forward substitution) or upper (backward). Grid (block of R
right-hand sides, batch entry): a program keeps its whole k x BR block of X in registers and runs
k rank-1 eliminations, loading one column of T per step, so only T's triangle is ever read.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _trsm_batched_kernel(a_arr, b_arr, k, nrhs, t_r, t_c, b_r, b_c, alpha: tl.float64,
                         KB: tl.constexpr, BR: tl.constexpr, FORWARD: tl.constexpr, UNIT: tl.constexpr,
                         ALPHA_ZERO: tl.constexpr):
    batch = tl.program_id(1)
    t_ptr = tl.load(a_arr + batch).to(tl.pointer_type(tl.float64))
    b_ptr = tl.load(b_arr + batch).to(tl.pointer_type(tl.float64))
    rows = tl.arange(0, KB).to(tl.int64)
    cols = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    inside = (rows[:, None] < k) & (cols[None, :] < nrhs)
    b_ptrs = b_ptr + rows[:, None] * b_r + cols[None, :] * b_c
    if ALPHA_ZERO:
        tl.store(b_ptrs, tl.zeros([KB, BR], dtype=tl.float64), mask=inside)
    else:
        x = alpha * tl.load(b_ptrs, mask=inside, other=0.0)
        for s in range(k):
            if FORWARD:
                i = s
                later = (rows > i) & (rows < k)
            else:
                i = k - 1 - s
                later = rows < i
            here = rows[:, None] == i
            xi = tl.sum(tl.where(here, x, 0.0), axis=0)
            if not UNIT:
                xi = xi / tl.load(t_ptr + i * t_r + i * t_c)
            x = tl.where(here, xi[None, :], x)
            col = tl.load(t_ptr + rows * t_r + i * t_c, mask=later, other=0.0)
            x -= col[:, None] * xi[None, :]
        tl.store(b_ptrs, x, mask=inside)


def _code(v, letters: str) -> int:
    return letters.index(v.upper()) if isinstance(v, str) else int(v)


def cublasDtrsmBatched(side, uplo, trans, diag, m: int, n: int, alpha: float, Aarray: torch.Tensor, lda: int,
                       Barray: torch.Tensor, ldb: int, batchCount: int) -> None:
    if m <= 0 or n <= 0 or batchCount <= 0:
        return
    left = _code(side, "LR") == 0
    upper = _code(uplo, "LU") == 1
    transposed = _code(trans, "NTC") != 0
    unit = _code(diag, "NU") == 1
    if left:  # T = op(A), X and B as stored
        k, nrhs, b_r, b_c = m, n, 1, ldb
        t_r, t_c = (lda, 1) if transposed else (1, lda)
        lower = upper == transposed
    else:  # T = op(A)^T, X^T and B^T
        k, nrhs, b_r, b_c = n, m, ldb, 1
        t_r, t_c = (1, lda) if transposed else (lda, 1)
        lower = upper != transposed
    kb = triton.next_power_of_2(k)
    br = max(1, min(triton.next_power_of_2(nrhs), 4096 // kb))
    grid = (triton.cdiv(nrhs, br), batchCount)
    _trsm_batched_kernel[grid](Aarray, Barray, k, nrhs, t_r, t_c, b_r, b_c, float(alpha), KB=kb, BR=br,
                               FORWARD=lower, UNIT=unit, ALPHA_ZERO=alpha == 0)
