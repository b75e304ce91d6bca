"""cublasZtrsmBatched in Triton: op(A[b]) X = alpha B[b] (left) or X op(A[b]) = alpha B[b] (right), complex128.

Both sides reduce to T X = alpha B with T triangular: the right side is its transpose, op(A)^T
X^T = alpha B^T, and (A^H)^T = conj(A), so the host picks strides, the substitution direction and
whether T is conjugated (op = C, either side). Data is interleaved (re, im) float64 and pointers
address complex elements. Grid (block of right-hand sides, batch entry): a program keeps its
k x BR block of X (real and imaginary parts) in registers and runs k complex rank-1 eliminations,
loading one column of T per step, so only T's triangle is ever read.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ztrsm_batched_kernel(a_arr, b_arr, k, nrhs, t_r, t_c, b_r, b_c, alpha_re: tl.float64, alpha_im: tl.float64,
                          KB: tl.constexpr, BR: tl.constexpr, FORWARD: tl.constexpr, UNIT: tl.constexpr,
                          CONJ: tl.constexpr, ALPHA_ZERO: tl.constexpr):
    batch = tl.program_id(1)
    t_ptr = tl.load(a_arr + batch).to(tl.pointer_type(tl.float64))
    b_ptr = tl.load(b_arr + batch).to(tl.pointer_type(tl.float64))
    rows = tl.arange(0, KB).to(tl.int64)
    cols = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    inside = (rows[:, None] < k) & (cols[None, :] < nrhs)
    b_idx = 2 * (rows[:, None] * b_r + cols[None, :] * b_c)
    if ALPHA_ZERO:
        zero = tl.zeros([KB, BR], dtype=tl.float64)
        tl.store(b_ptr + b_idx, zero, mask=inside)
        tl.store(b_ptr + b_idx + 1, zero, mask=inside)
    else:
        b_re = tl.load(b_ptr + b_idx, mask=inside, other=0.0)
        b_im = tl.load(b_ptr + b_idx + 1, mask=inside, other=0.0)
        x_re = alpha_re * b_re - alpha_im * b_im
        x_im = alpha_re * b_im + alpha_im * b_re
        for s in range(k):
            if FORWARD:
                i = s
                later = (rows > i) & (rows < k)
            else:
                i = k - 1 - s
                later = rows < i
            here = rows[:, None] == i
            xi_re = tl.sum(tl.where(here, x_re, 0.0), axis=0)
            xi_im = tl.sum(tl.where(here, x_im, 0.0), axis=0)
            if not UNIT:
                d_idx = 2 * (i * t_r + i * t_c)
                d_re = tl.load(t_ptr + d_idx)
                d_im = tl.load(t_ptr + d_idx + 1)
                if CONJ:
                    d_im = -d_im
                norm = d_re * d_re + d_im * d_im
                q_re = (xi_re * d_re + xi_im * d_im) / norm
                q_im = (xi_im * d_re - xi_re * d_im) / norm
                xi_re, xi_im = q_re, q_im
            x_re = tl.where(here, xi_re[None, :], x_re)
            x_im = tl.where(here, xi_im[None, :], x_im)
            c_idx = 2 * (rows * t_r + i * t_c)
            c_re = tl.load(t_ptr + c_idx, mask=later, other=0.0)[:, None]
            c_im = tl.load(t_ptr + c_idx + 1, mask=later, other=0.0)[:, None]
            if CONJ:
                c_im = -c_im
            x_re -= c_re * xi_re[None, :] - c_im * xi_im[None, :]
            x_im -= c_re * xi_im[None, :] + c_im * xi_re[None, :]
        tl.store(b_ptr + b_idx, x_re, mask=inside)
        tl.store(b_ptr + b_idx + 1, x_im, mask=inside)


def _code(v, letters: str) -> int:
    return letters.index(v.upper()) if isinstance(v, str) else int(v)


def cublasZtrsmBatched(side, uplo, trans, diag, m: int, n: int, alpha: complex, Aarray: torch.Tensor, lda: int,
                       Barray: torch.Tensor, ldb: int, batchCount: int) -> None:
    if m <= 0 or n <= 0 or batchCount <= 0:
        return
    alpha = complex(alpha)
    left = _code(side, "LR") == 0
    upper = _code(uplo, "LU") == 1
    op = _code(trans, "NTC")
    unit = _code(diag, "NU") == 1
    if left:  # T = op(A), X and B as stored
        k, nrhs, b_r, b_c = m, n, 1, ldb
        t_r, t_c = (lda, 1) if op else (1, lda)
        lower = upper == (op != 0)
    else:  # T = op(A)^T, X^T and B^T
        k, nrhs, b_r, b_c = n, m, ldb, 1
        t_r, t_c = (1, lda) if op else (lda, 1)
        lower = upper != (op != 0)
    kb = triton.next_power_of_2(k)
    br = max(1, min(triton.next_power_of_2(nrhs), 2048 // kb))
    grid = (triton.cdiv(nrhs, br), batchCount)
    _ztrsm_batched_kernel[grid](Aarray, Barray, k, nrhs, t_r, t_c, b_r, b_c, alpha.real, alpha.imag, KB=kb,
                                BR=br, FORWARD=lower, UNIT=unit, CONJ=op == 2, ALPHA_ZERO=alpha == 0)
