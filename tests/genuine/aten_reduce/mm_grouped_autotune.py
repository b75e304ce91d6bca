# op: aten::mm
# idiom: grouped program ordering (L2 swizzle with GROUP_M) and @triton.autotune over 3 configs keyed on (M, N, K) (one config under the CPU interpreter, which cannot benchmark), pointer arithmetic with K masks, tl.dot(input_precision="ieee")

import torch
import triton
import triton.language as tl


def _cfg(bm, bn, bk, warps, stages):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                         num_warps=warps, num_stages=stages)


if torch.cuda.is_available():
    MM_CONFIGS = [
        _cfg(128, 128, 32, 8, 3),
        _cfg(64, 128, 64, 4, 3),
        _cfg(64, 64, 32, 4, 4),
    ]
else:
    MM_CONFIGS = [_cfg(32, 32, 32, 4, 1)]


@triton.autotune(configs=MM_CONFIGS, key=["M", "N", "K"])
@triton.jit
def mm_grouped_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    UPCAST: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None].to(tl.int64) * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :].to(tl.int64) * stride_bn)

    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        if UPCAST:
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        accumulator = tl.dot(a, b, accumulator, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None].to(tl.int64) + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def _run(a, b, c):
    assert a.dim() == 2 and b.dim() == 2, "mm: expected 2-D tensors"
    assert a.shape[1] == b.shape[0], "mm: incompatible dimensions"
    assert a.dtype == b.dtype, "mm: expected both operands to have the same dtype"
    M, K = a.shape
    _, N = b.shape
    if M == 0 or N == 0:
        return c
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)
    mm_grouped_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        UPCAST=(a.dtype == torch.bfloat16 and not a.is_cuda),
    )
    return c


def mm(self, mat2):
    return _run(self, mat2, torch.empty((self.shape[0], mat2.shape[1]), device=self.device, dtype=self.dtype))


def mm_out(self, mat2, *, out):
    return _run(self, mat2, out)


def mm_dtype(self, mat2, out_dtype):
    return _run(self, mat2, torch.empty((self.shape[0], mat2.shape[1]), device=self.device, dtype=out_dtype))


def mm_dtype_out(self, mat2, out_dtype, *, out):
    return _run(self, mat2, out)
