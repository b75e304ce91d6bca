# op: cublas::cublasSgemm_v2
# idiom: persistent kernel (grid = SM count, each program loops over output tiles), pointer arithmetic with host-chosen strides, grouped tile order, ieee tl.dot, fused alpha/beta epilogue

"""Persistent SGEMM: C := alpha * op(A) @ op(B) + beta * C (column-major, full fp32).

A fixed grid of NUM_SMS programs walks the output tiles tile_id = pid, pid + NUM_SMS, ...
Tiles are ordered in groups of GROUP_M tile-rows so concurrently running programs share
panels of op(B).
"""

from typing import Union

import torch
import triton
import triton.language as tl

GROUP_M = 8


@triton.jit
def _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    per_group = GROUP_M * num_pid_n
    group = tile_id // per_group
    first_m = group * GROUP_M
    rows_in_group = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile_id % per_group) % rows_in_group
    pid_n = (tile_id % per_group) // rows_in_group
    return pid_m, pid_n


@triton.jit
def _sgemm_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                      s_am, s_ak, s_bk, s_bn, ldc, alpha, beta,
                      NUM_SMS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      GROUP_M: tl.constexpr, DO_PRODUCT: tl.constexpr, LOAD_C: tl.constexpr):
    start = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_tiles = num_pid_m * num_pid_n
    for tile_id in range(start, num_tiles, NUM_SMS):
        pid_m, pid_n = _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_M)
        offs_m = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
        offs_n = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
        mask_m = offs_m < M
        mask_n = offs_n < N
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        if DO_PRODUCT:
            for k0 in range(0, K, BK):
                offs_k = k0 + tl.arange(0, BK).to(tl.int64)
                mask_k = offs_k < K
                a = tl.load(a_ptr + offs_m[:, None] * s_am + offs_k[None, :] * s_ak,
                            mask=mask_m[:, None] & mask_k[None, :], other=0.0)
                b = tl.load(b_ptr + offs_k[:, None] * s_bk + offs_n[None, :] * s_bn,
                            mask=mask_k[:, None] & mask_n[None, :], other=0.0)
                acc = tl.dot(a, b, acc, input_precision="ieee")
        c_ptrs = c_ptr + offs_m[:, None] + offs_n[None, :] * ldc
        c_mask = mask_m[:, None] & mask_n[None, :]
        result = acc * alpha
        if LOAD_C:
            result = result + beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
        tl.store(c_ptrs, result, mask=c_mask)


def _op_is_t(flag: Union[int, str]) -> bool:
    return str(flag).upper() in ("1", "2", "T", "C")


def _sm_count(t: torch.Tensor) -> int:
    return torch.cuda.get_device_properties(t.device).multi_processor_count if t.is_cuda else 4


def cublasSgemm_v2(transa: Union[int, str], transb: Union[int, str], m: int, n: int, k: int, alpha: float,
                   A: torch.Tensor, lda: int, B: torch.Tensor, ldb: int, beta: float, C: torch.Tensor,
                   ldc: int) -> None:
    if m == 0 or n == 0:
        return
    do_product = k > 0 and alpha != 0.0
    if not do_product and beta == 1.0:
        return  # C := 1 * C
    s_am, s_ak = (lda, 1) if _op_is_t(transa) else (1, lda)
    s_bk, s_bn = (ldb, 1) if _op_is_t(transb) else (1, ldb)
    if C.is_cuda:
        bm, bn, bk, warps, stages = 128, 128, 32, 8, 3
        if m * n < 512 * 512:
            bm, bn, warps = 64, 64, 4
    else:
        bm, bn, bk, warps, stages = 32, 32, 16, 4, 1
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    num_sms = min(_sm_count(C), tiles)
    _sgemm_persistent[(num_sms,)](
        A, B, C, m, n, k, s_am, s_ak, s_bk, s_bn, ldc, alpha, beta,
        NUM_SMS=num_sms, BM=bm, BN=bn, BK=bk, GROUP_M=GROUP_M,
        DO_PRODUCT=do_product, LOAD_C=beta != 0.0, num_warps=warps, num_stages=stages)
