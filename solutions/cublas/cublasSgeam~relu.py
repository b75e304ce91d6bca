"""cublasSgeam~relu in Triton: C := max(alpha * op(A) + beta * op(B), 0), column-major float32.

A 2-D tiled elementwise kernel: op(A)[i, j] is read through (row, column) strides picked on the
host, so a transpose is a swap of strides; C is only stored (never loaded), as geam defines it.
Tiles are (32 rows, 32 columns): coalesced along C's columns and, for a transposed operand,
small enough that its strided reads still hit whole cache lines across the tile.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _geam_kernel(a_ptr, b_ptr, c_ptr, M, N, s_ai, s_aj, s_bi, s_bj, ldc, alpha, beta,
                 BM: tl.constexpr, BN: tl.constexpr, USE_A: tl.constexpr, USE_B: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM)
    rn = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    out = tl.zeros([BM, BN], dtype=tl.float32)
    if USE_A:
        out += alpha * tl.load(a_ptr + rm[:, None] * s_ai + rn[None, :] * s_aj, mask=mask, other=0.0)
    if USE_B:
        out += beta * tl.load(b_ptr + rm[:, None] * s_bi + rn[None, :] * s_bj, mask=mask, other=0.0)
    tl.store(c_ptr + rm[:, None] + rn[None, :] * ldc, tl.maximum(out, 0.0), mask=mask)


def _transposed(trans) -> bool:
    if isinstance(trans, str):
        return {"N": False, "T": True, "C": True}[trans.upper()]
    return int(trans) != 0


def cublasSgeam(transa, transb, m: int, n: int, alpha: float, A: torch.Tensor, lda: int, beta: float,
                B: torch.Tensor, ldb: int, C: torch.Tensor, ldc: int) -> None:
    if m <= 0 or n <= 0:
        return
    s_ai, s_aj = (lda, 1) if _transposed(transa) else (1, lda)
    s_bi, s_bj = (ldb, 1) if _transposed(transb) else (1, ldb)
    bm, bn = 32, 32
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _geam_kernel[grid](A, B, C, m, n, s_ai, s_aj, s_bi, s_bj, ldc, float(alpha), float(beta),
                       BM=bm, BN=bn, USE_A=alpha != 0, USE_B=beta != 0, num_warps=4)
