"""aten::bmm in Triton: C[b] = A[b] @ B[b] for (b, m, k) and (b, k, n) tensors, accumulated in float32.

A tiled matmul over a flat grid of (batch entry, tile): each program owns one (BLOCK_M, BLOCK_N)
tile of one C[b], walks K in BLOCK_K steps and accumulates `tl.dot` products in float32 (float64
for float64); tiles are ordered in groups of GROUP_M rows for L2 reuse. Every stride, the batch
stride included, is taken as it comes: per-matrix transposes, strided rows and stride-0 (expanded)
batches need no copy. float32 uses input_precision="ieee" (full fp32 products, never TF32).
bmm.dtype writes the float32 accumulator of float16/bfloat16 operands as is.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, stride_cn,
    ACC: tl.constexpr, WIDEN: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # One flat grid: the batch entry, then the output tile in grouped order (neighbouring
    # programs share tiles of A and B in L2).
    grid_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * grid_n
    batch = (tl.program_id(0) // tiles).to(tl.int64)
    pid = tl.program_id(0) % tiles
    tiles_per_group = GROUP_M * grid_n
    first_m = (pid // tiles_per_group) * GROUP_M
    group_m = tl.minimum(tl.cdiv(M, BLOCK_M) - first_m, GROUP_M)
    pid_m = first_m + (pid % tiles_per_group) % group_m
    pid_n = (pid % tiles_per_group) // group_m

    # Rows/columns past the edge wrap around (masked at the store): only K needs a load mask.
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * stride_ab + rm[:, None].to(tl.int64) * stride_am + rk[None, :].to(tl.int64) * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + rk[:, None].to(tl.int64) * stride_bk + rn[None, :].to(tl.int64) * stride_bn

    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=ACC)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k0, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k0, other=0.0)
        if WIDEN:  # exact widening to float32 (see INTERPRETER_CONFIG)
            a, b = a.to(tl.float32), b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + batch * stride_cb + cm[:, None].to(tl.int64) * stride_cm + cn[None, :].to(tl.int64) * stride_cn
    mask = (cm < M)[:, None] & (cn < N)[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask)


def _config(bm, bn, bk, warps, stages):
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "num_warps": warps, "num_stages": stages}


def _pick_config(M, N, half):
    """Tensor-core tiles for 16-bit operands, FMA tiles for float32; smaller ones for small products."""
    if half:
        if M >= 128 and N >= 256:
            return _config(128, 256, 64, 8, 3)
        if M >= 128 and N >= 128:
            return _config(128, 128, 64, 4, 4)
        return _config(64, 64, 64, 4, 3)
    if M >= 128 and N >= 128:
        return _config(128, 128, 32, 8, 3)
    return _config(64, 64, 32, 4, 3)


# The one tile the CPU interpreter runs. Triton 3.6's interpreter multiplies bfloat16 tiles as raw
# 16-bit integers, so there they are widened to float32 first: exact, and the float32 sum of exact
# products is what the tensor cores compute.
INTERPRETER_CONFIG = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 8}


def _bmm_into(a, b, out):
    if a.dim() != 3 or b.dim() != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"bmm: cannot multiply {tuple(a.shape)} and {tuple(b.shape)} batches")
    if a.dtype != b.dtype or not a.dtype.is_floating_point:
        raise RuntimeError(f"bmm: expected floating operands of one dtype, got {a.dtype} and {b.dtype}")
    (B, M, K), N = a.shape, b.shape[2]
    if B == 0 or M == 0 or N == 0:
        return out
    acc = tl.float64 if a.dtype == torch.float64 else tl.float32
    if a.device.type == "cpu":  # the Triton interpreter: one fixed tile, no benchmarking
        cfg, widen = INTERPRETER_CONFIG, a.dtype == torch.bfloat16
    else:
        cfg, widen = _pick_config(M, N, a.dtype in (torch.float16, torch.bfloat16)), False
    tiles = triton.cdiv(M, cfg["BLOCK_M"]) * triton.cdiv(N, cfg["BLOCK_N"])
    _bmm_kernel[(tiles * B,)](
        a, b, out, M, N, K, *a.stride(), *b.stride(), *out.stride(), ACC=acc, WIDEN=widen, **cfg,
    )
    return out


def _new_output(a, b, dtype):
    return torch.empty((a.shape[0], a.shape[1], b.shape[2]), dtype=dtype, device=a.device)


def bmm(self, mat2):
    return _bmm_into(self, mat2, _new_output(self, mat2, self.dtype))


def bmm_out(self, mat2, *, out):
    return _bmm_into(self, mat2, out)


def bmm_dtype(self, mat2, out_dtype):
    return _bmm_into(self, mat2, _new_output(self, mat2, out_dtype))


def bmm_dtype_out(self, mat2, out_dtype, *, out):
    return _bmm_into(self, mat2, out)
