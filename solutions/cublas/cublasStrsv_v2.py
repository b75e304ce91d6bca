"""cublasStrsv_v2 in Triton: solves op(A) x = b in place, A triangular and column-major.

A solve is a chain, so one program walks the blocks of x in dependency order. For each block it
first subtracts what the solved blocks contribute (a tiled gemv, the bulk of the traffic), then
finishes the block's own triangle by column-oriented substitution on a register copy of the
diagonal block, and stores it before the next block reads it. Loads are masked to the stored
triangle (and off the diagonal when it is unit), so unreferenced storage is never read.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _trsv_kernel(a_ptr, x_ptr, n, sr, sc, incx, x0, FORWARD: tl.constexpr, UNIT: tl.constexpr,
                 BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    # M = op(A); M[i, j] lives at a_ptr[i*sr + j*sc]; FORWARD means M is lower triangular.
    r = tl.arange(0, BLOCK)
    nblocks = tl.cdiv(n, BLOCK)
    for b in range(0, nblocks):
        if FORWARD:
            i0 = b * BLOCK
            lo = 0
            hi = i0
        else:
            i0 = (nblocks - 1 - b) * BLOCK
            lo = i0 + BLOCK
            hi = n
        rows = i0 + r.to(tl.int64)
        rmask = rows < n
        acc = tl.load(x_ptr + x0 + rows * incx, mask=rmask, other=0.0)
        part = tl.zeros([BLOCK, BLOCK_K], dtype=tl.float32)
        for j0 in range(lo, hi, BLOCK_K):
            cols = j0 + tl.arange(0, BLOCK_K).to(tl.int64)
            cmask = cols < hi
            a = tl.load(a_ptr + rows[:, None] * sr + cols[None, :] * sc, mask=rmask[:, None] & cmask[None, :],
                        other=0.0)
            xs = tl.load(x_ptr + x0 + cols * incx, mask=cmask, other=0.0)
            part += a * xs[None, :]
        acc -= tl.sum(part, axis=1)

        if FORWARD:
            tri = r[:, None] >= r[None, :]
        else:
            tri = r[:, None] <= r[None, :]
        if UNIT:
            tri = tri & (r[:, None] != r[None, :])
        dmask = rmask[:, None] & rmask[None, :] & tri
        diag_block = tl.load(a_ptr + rows[:, None] * sr + rows[None, :] * sc, mask=dmask, other=0.0)
        for t in range(0, BLOCK):
            if FORWARD:
                i = t
            else:
                i = BLOCK - 1 - t
            col = tl.sum(tl.where(r[None, :] == i, diag_block, 0.0), axis=1)  # M[rows, i0 + i]
            xi = tl.sum(tl.where(r == i, acc, 0.0), axis=0)
            if not UNIT:
                d = tl.sum(tl.where(r == i, col, 0.0), axis=0)
                xi = xi / tl.where(i0 + i < n, d, 1.0)
            if FORWARD:
                later = r > i
            else:
                later = r < i
            acc = tl.where(r == i, xi, tl.where(later, acc - col * xi, acc))
        tl.store(x_ptr + x0 + rows * incx, acc, mask=rmask)
        tl.debug_barrier()


def _code(v, letters: str) -> int:
    return letters.index(v.upper()) if isinstance(v, str) else int(v)


def cublasStrsv_v2(uplo, trans, diag, n: int, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int) -> None:
    if n <= 0:
        return
    upper = _code(uplo, "LU") == 1
    transposed = _code(trans, "NTC") != 0
    unit = _code(diag, "NU") == 1
    sr, sc = (lda, 1) if transposed else (1, lda)
    x0 = 0 if incx > 0 else (1 - n) * incx
    _trsv_kernel[(1,)](A, x, n, sr, sc, incx, x0, FORWARD=upper == transposed, UNIT=unit, BLOCK=32, BLOCK_K=128)
