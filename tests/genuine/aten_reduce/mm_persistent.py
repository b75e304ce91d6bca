# op: aten::mm
# idiom: persistent matmul: grid = number of SMs (4 on CPU), each program loops `for tile in range(pid, n_tiles, NUM_PROGS)` over output tiles, tl.dot(input_precision="ieee"); out= overloads via the functional result then out.resize_ + out.copy_
"""Persistent tiled matmul for aten::mm.

A fixed number of programs (one per streaming multiprocessor) walks the output tiles in a
strided loop, so launch cost stays flat however many tiles C has. Every tile accumulates its
K loop in float32 with full-precision (IEEE) dot products, rounding once when it is stored.
"""

import torch
import triton
import triton.language as tl

CPU_PROGRAMS = 4


@triton.jit
def _mm_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                   s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                   NUM_PROGS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   F32_OPERANDS: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    n_tiles = tiles_m * tiles_n
    rk = tl.arange(0, BK)
    for tile in range(pid, n_tiles, NUM_PROGS):
        tm = tile // tiles_n
        tn = tile % tiles_n
        rm = tm * BM + tl.arange(0, BM)
        rn = tn * BN + tl.arange(0, BN)
        mask_m = rm < M
        mask_n = rn < N
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            kk = k0 + rk
            a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * s_am + kk[None, :] * s_ak,
                        mask=mask_m[:, None] & (kk < K)[None, :], other=0.0)
            b = tl.load(b_ptr + kk[:, None] * s_bk + rn.to(tl.int64)[None, :] * s_bn,
                        mask=(kk < K)[:, None] & mask_n[None, :], other=0.0)
            if F32_OPERANDS:
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc, input_precision="ieee")
        c_ptrs = c_ptr + rm.to(tl.int64)[:, None] * s_cm + rn[None, :] * s_cn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def _num_sms(t: torch.Tensor) -> int:
    if t.is_cuda:
        return torch.cuda.get_device_properties(t.device).multi_processor_count
    return CPU_PROGRAMS


def _block_sizes(M: int, N: int, dtype: torch.dtype):
    if dtype in (torch.float16, torch.bfloat16):
        bm = 128 if M > 64 else max(16, triton.next_power_of_2(M))
        return bm, 128 if N > 64 else 64, 64, 8 if bm == 128 else 4
    bm = 128 if M > 64 else max(16, triton.next_power_of_2(M))
    return bm, 64 if N > 32 else 32, 32, 8 if bm == 128 else 4


def mm_dtype(self: torch.Tensor, mat2: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
    if self.dim() != 2 or mat2.dim() != 2 or self.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mm: mat1 and mat2 shapes cannot be multiplied ({tuple(self.shape)} and "
                           f"{tuple(mat2.shape)})")
    M, K = self.shape
    N = mat2.shape[1]
    c = torch.empty((M, N), dtype=out_dtype, device=self.device)
    if M == 0 or N == 0:
        return c
    bm, bn, bk, warps = _block_sizes(M, N, self.dtype)
    n_tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    progs = min(_num_sms(self), n_tiles)
    _mm_persistent[(progs,)](
        self, mat2, c, M, N, K,
        self.stride(0), self.stride(1), mat2.stride(0), mat2.stride(1), c.stride(0), c.stride(1),
        NUM_PROGS=progs, BM=bm, BN=bn, BK=bk,
        F32_OPERANDS=(self.dtype == torch.bfloat16 and not self.is_cuda),
        num_warps=warps, num_stages=3,
    )
    return c


def mm(self: torch.Tensor, mat2: torch.Tensor) -> torch.Tensor:
    return mm_dtype(self, mat2, self.dtype)


def mm_out(self: torch.Tensor, mat2: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    y = mm_dtype(self, mat2, out.dtype)
    out.resize_(y.shape)
    out.copy_(y)
    return out


def mm_dtype_out(self: torch.Tensor, mat2: torch.Tensor, out_dtype: torch.dtype, *, out: torch.Tensor) -> torch.Tensor:
    y = mm_dtype(self, mat2, out_dtype)
    out.resize_(y.shape)
    out.copy_(y)
    return out


if __name__ == "__main__":
    # without a GPU, run with TRITON_INTERPRET=1 set in the environment
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    for (m, k, n), dt in [((33, 65, 17), torch.float32), ((130, 70, 90), torch.float16), ((19, 130, 37), torch.bfloat16)]:
        a = torch.randn(m, k, device=dev, dtype=dt)
        b = torch.randn(k, n, device=dev, dtype=dt)
        err = (mm(a, b).double() - a.double() @ b.double()).abs().max().item()
        print((m, k, n), dt, err)
