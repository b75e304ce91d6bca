"""cublasStbmv_v2 in Triton: x := op(A) @ x, A triangular band in BLAS band storage.

Every output element needs inputs other programs overwrite, so host code snapshots x first and
the kernel reads the snapshot. Each program owns a block of rows of op(A) and walks its k+1
diagonals (d = j - i in [0, k] when op(A) is upper, [-k, 0] when lower); element (r, c) of A is
at A[k + r - c + c*lda] (upper storage) or A[r - c + c*lda] (lower). A unit diagonal is never
loaded: x[i] itself is added instead.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _tbmv_kernel(a_ptr, xin_ptr, x_ptr, n, k, lda, incx, x0, UPPER: tl.constexpr, TRANS: tl.constexpr,
                 UNIT: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < n
    if UPPER != TRANS:
        dlo = 0
    else:
        dlo = -k
    part = tl.zeros([BLOCK_R, BLOCK_D], dtype=tl.float32)
    for d0 in range(0, k + 1, BLOCK_D):
        d = dlo + d0 + tl.arange(0, BLOCK_D).to(tl.int64)
        cols = rows[:, None] + d[None, :]
        mask = rmask[:, None] & (d[None, :] <= dlo + k) & (cols >= 0) & (cols < n)
        if UNIT:
            mask = mask & (d[None, :] != 0)
        if TRANS:
            r = cols
            c = rows[:, None]
        else:
            r = rows[:, None]
            c = cols
        if UPPER:
            off = k + r - c + c * lda
        else:
            off = r - c + c * lda
        a = tl.load(a_ptr + off, mask=mask, other=0.0)
        xv = tl.load(xin_ptr + x0 + cols * incx, mask=mask, other=0.0)
        part += a * xv
    out = tl.sum(part, axis=1)
    if UNIT:
        out += tl.load(xin_ptr + x0 + rows * incx, mask=rmask, other=0.0)
    tl.store(x_ptr + x0 + rows * incx, out, mask=rmask)


def _code(v, letters: str) -> int:
    return letters.index(v.upper()) if isinstance(v, str) else int(v)


def cublasStbmv_v2(uplo, trans, diag, n: int, k: int, A: torch.Tensor, lda: int, x: torch.Tensor,
                   incx: int) -> None:
    if n <= 0:
        return
    snapshot = x.clone()
    block_d = min(64, triton.next_power_of_2(k + 1))
    block_r = 64
    _tbmv_kernel[(triton.cdiv(n, block_r),)](
        A, snapshot, x, n, k, lda, incx, 0 if incx > 0 else (1 - n) * incx, UPPER=_code(uplo, "LU") == 1,
        TRANS=_code(trans, "NTC") != 0, UNIT=_code(diag, "NU") == 1, BLOCK_R=block_r, BLOCK_D=block_d)
