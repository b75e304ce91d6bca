"""cublasSdgmm~relu in Triton: C := max(diag(x) @ A, 0) (left) or max(A @ diag(x), 0) (right),
column-major float32.

A 2-D tiled elementwise kernel. The scale of element (i, j) is x's logical element i (left) or j
(right); a negative increment starts from the far end of x's storage, and an increment of 0 reads
x[0] for every element. C is only stored, never loaded.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _dgmm_kernel(a_ptr, x_ptr, c_ptr, M, N, lda, ldc, incx, x0, BM: tl.constexpr, BN: tl.constexpr,
                 LEFT: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM)
    rn = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    m_mask, n_mask = rm < M, rn < N
    mask = m_mask[:, None] & n_mask[None, :]
    a = tl.load(a_ptr + rm[:, None] + rn[None, :] * lda, mask=mask, other=0.0)
    if LEFT:
        x = tl.load(x_ptr + x0 + rm * incx, mask=m_mask, other=0.0)
        out = a * x[:, None]
    else:
        x = tl.load(x_ptr + x0 + rn * incx, mask=n_mask, other=0.0)
        out = a * x[None, :]
    tl.store(c_ptr + rm[:, None] + rn[None, :] * ldc, tl.maximum(out, 0.0), mask=mask)


def _left(mode) -> bool:
    if isinstance(mode, str):
        return {"L": True, "R": False}[mode.upper()]
    return int(mode) == 0


def cublasSdgmm(mode, m: int, n: int, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int, C: torch.Tensor,
                ldc: int) -> None:
    if m <= 0 or n <= 0:
        return
    left = _left(mode)
    count = m if left else n
    x0 = 0 if incx >= 0 else (1 - count) * incx
    bm, bn = 32, 32
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _dgmm_kernel[grid](A, x, C, m, n, lda, ldc, incx, x0, BM=bm, BN=bn, LEFT=left, num_warps=4)
