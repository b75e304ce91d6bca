# op: cublas::cublasSgemm_v2
# idiom: tl.make_block_ptr over column-major buffers (stride 1 along rows, ld along columns; a transpose swaps them), boundary_check, tl.dot(input_precision="ieee"), alpha/beta epilogue

import torch
import triton
import triton.language as tl


@triton.jit
def sgemm_block_ptr_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, ldc,
    alpha, beta,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    A_ROW_MAJOR: tl.constexpr, B_ROW_MAJOR: tl.constexpr,
    HAS_PRODUCT: tl.constexpr, BETA_ZERO: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    if HAS_PRODUCT:
        # op(A) is M x K; the fastest-varying dimension is listed first in `order`.
        a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                  offsets=(off_m, 0), block_shape=(BLOCK_M, BLOCK_K),
                                  order=(1, 0) if A_ROW_MAJOR else (0, 1))
        b_blk = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                  offsets=(0, off_n), block_shape=(BLOCK_K, BLOCK_N),
                                  order=(1, 0) if B_ROW_MAJOR else (0, 1))
        for _ in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
            b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_blk = tl.advance(a_blk, (0, BLOCK_K))
            b_blk = tl.advance(b_blk, (BLOCK_K, 0))

    # C is M x N inside an ldc x N buffer: rows M..ldc-1 lie outside the block's shape.
    c_blk = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(1, ldc),
                              offsets=(off_m, off_n), block_shape=(BLOCK_M, BLOCK_N), order=(0, 1))
    out = alpha * acc
    if not BETA_ZERO:
        out += beta * tl.load(c_blk, boundary_check=(0, 1), padding_option="zero")
    tl.store(c_blk, out, boundary_check=(0, 1))


def _is_transposed(flag) -> bool:
    if isinstance(flag, str):
        flag = {"N": 0, "T": 1, "C": 2}[flag.upper()]
    return flag != 0


def _tiles(m: int, n: int, on_gpu: bool):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) from the problem shape."""
    if not on_gpu:
        return 32, 32, 32, 4, 1
    bm = 128 if m >= 128 else max(16, triton.next_power_of_2(m))
    bn = 128 if n >= 128 else max(16, triton.next_power_of_2(n))
    warps = 8 if bm * bn >= 128 * 128 else 4
    return bm, bn, 32, warps, 3


def cublasSgemm_v2(transa, transb, m: int, n: int, k: int, alpha: float, A: torch.Tensor, lda: int,
                   B: torch.Tensor, ldb: int, beta: float, C: torch.Tensor, ldc: int) -> None:
    if m <= 0 or n <= 0:
        return
    ta, tb = _is_transposed(transa), _is_transposed(transb)
    # op(A)[i, p]: A[i + p*lda] (N) or A[p + i*lda] (T); op(B)[p, j]: B[p + j*ldb] (N) or B[j + p*ldb] (T)
    s_am, s_ak = (lda, 1) if ta else (1, lda)
    s_bk, s_bn = (ldb, 1) if tb else (1, ldb)
    has_product = k > 0 and alpha != 0
    bm, bn, bk, warps, stages = _tiles(m, n, C.is_cuda)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    sgemm_block_ptr_kernel[grid](
        A, B, C, m, n, max(k, 0), s_am, s_ak, s_bk, s_bn, ldc, float(alpha), float(beta),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, A_ROW_MAJOR=ta, B_ROW_MAJOR=tb,
        HAS_PRODUCT=has_product, BETA_ZERO=beta == 0, num_warps=warps, num_stages=stages,
    )
