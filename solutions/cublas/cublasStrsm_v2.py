"""cublasStrsm_v2 in Triton: solve op(A) X = alpha B or X op(A) = alpha B in place of B, float32.

Every case is brought to one form on the host: a triangular M (lower or upper) applied from the
left to Y, where for side right M = op(A)^T and Y = X^T (only strides change). Each program owns
a block of Y's columns and substitutes row by row (forward for lower M, backward for upper),
overwriting B with solved rows as it goes; a row's dot with the rows solved before it is taken in
chunks of BK. Only M's triangle is read, and never its diagonal for a unit triangle. A barrier
after each stored row makes it visible to the program's other threads before they read it.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _zero_kernel(x_ptr, M, N, ld, BM: tl.constexpr, BN: tl.constexpr):
    """B := 0 when alpha == 0 (A is not read), padding rows left alone."""
    rm = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM)
    rn = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.store(x_ptr + rm[:, None] + rn[None, :] * ld, tl.zeros([BM, BN], dtype=tl.float32), mask=mask)


@triton.jit
def _trsm_kernel(m_ptr, x_ptr, order, ncols, s_mr, s_mc, s_xr, s_xc, alpha, BK: tl.constexpr,
                 BN: tl.constexpr, LOWER: tl.constexpr, UNIT: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BN + tl.arange(0, BN)
    c_mask = cols < ncols
    rk = tl.arange(0, BK).to(tl.int64)
    for t in range(0, order):
        if LOWER:
            i = t
            lo = 0
            hi = t
        else:
            i = order - 1 - t
            lo = i + 1
            hi = order
        acc = tl.zeros([BN], dtype=tl.float32)
        for j0 in range(lo, hi, BK):
            rj = j0 + rk
            j_mask = rj < hi
            a = tl.load(m_ptr + i * s_mr + rj * s_mc, mask=j_mask, other=0.0)
            x = tl.load(x_ptr + rj[:, None] * s_xr + cols[None, :] * s_xc, mask=j_mask[:, None] & c_mask[None, :],
                        other=0.0)
            acc += tl.sum(a[:, None] * x, axis=0)
        row_ptrs = x_ptr + i * s_xr + cols * s_xc
        val = alpha * tl.load(row_ptrs, mask=c_mask, other=0.0) - acc
        if not UNIT:
            val = val / tl.load(m_ptr + i * (s_mr + s_mc))
        tl.store(row_ptrs, val, mask=c_mask)
        tl.debug_barrier()


def _code(value, letters: str) -> int:
    return letters.index(value.upper()) if isinstance(value, str) else int(value)


def cublasStrsm_v2(side, uplo, trans, diag, m: int, n: int, alpha: float, A: torch.Tensor, lda: int,
                   B: torch.Tensor, ldb: int) -> None:
    if m <= 0 or n <= 0:
        return
    if alpha == 0:
        _zero_kernel[(triton.cdiv(m, 32), triton.cdiv(n, 32))](B, m, n, ldb, BM=32, BN=32)
        return
    right = _code(side, "LR") == 1
    transposed = _code(trans, "NTC") != 0
    lower = (_code(uplo, "LU") == 0) ^ transposed ^ right
    s_mr, s_mc = (lda, 1) if transposed != right else (1, lda)
    order, ncols = (n, m) if right else (m, n)
    s_xr, s_xc = (ldb, 1) if right else (1, ldb)
    bk, bn = 32, 32
    grid = (triton.cdiv(ncols, bn),)
    _trsm_kernel[grid](A, B, order, ncols, s_mr, s_mc, s_xr, s_xc, float(alpha), BK=bk, BN=bn, LOWER=lower,
                       UNIT=_code(diag, "NU") == 1, num_warps=4)
