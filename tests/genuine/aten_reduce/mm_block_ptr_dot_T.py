# op: aten::mm
# idiom: mm_block_ptr.py with mat2 strides read through mat2.T (a view)

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_block_ptr_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, WIDEN: tl.constexpr,
):
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_n
    pid_n = pid % num_n

    a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        if WIDEN:
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=tl.float32)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))

    c_blk = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                              order=(1, 0))
    tl.store(c_blk, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


def _tiles(M, N, K, dtype):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) for this problem."""
    half = dtype in (torch.float16, torch.bfloat16)
    bm = 128 if M >= 128 else max(16, triton.next_power_of_2(M))
    bn = 128 if N >= 128 else max(16, triton.next_power_of_2(N))
    if half:
        bk = 64 if K >= 64 else max(16, triton.next_power_of_2(K))
        return bm, bn, bk, (8 if bm * bn >= 128 * 128 else 4), 3
    bk = 32 if K >= 32 else max(16, triton.next_power_of_2(K))
    return bm, bn, bk, (8 if bm * bn >= 128 * 128 else 4), 3


def _matmul(a, b, c):
    if a.dim() != 2 or b.dim() != 2:
        raise RuntimeError("mm: both arguments must be 2-D matrices")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mm: mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    M, K = a.shape
    N = b.shape[1]
    if M == 0 or N == 0:
        return c
    bm, bn, bk, warps, stages = _tiles(M, N, K, a.dtype)
    widen = (not a.is_cuda) and a.dtype == torch.bfloat16  # the CPU interpreter cannot dot bfloat16
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    matmul_block_ptr_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.T.stride(1), b.T.stride(0), c.stride(0), c.stride(1),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, WIDEN=widen, num_warps=warps, num_stages=stages,
    )
    return c


def mm(self, mat2):
    c = torch.empty((self.shape[0], mat2.shape[1]), dtype=self.dtype, device=self.device)
    return _matmul(self, mat2, c)


def mm_out(self, mat2, *, out):
    return _matmul(self, mat2, out)


def mm_dtype(self, mat2, out_dtype):
    c = torch.empty((self.shape[0], mat2.shape[1]), dtype=out_dtype, device=self.device)
    return _matmul(self, mat2, c)


def mm_dtype_out(self, mat2, out_dtype, *, out):
    return _matmul(self, mat2, out)
