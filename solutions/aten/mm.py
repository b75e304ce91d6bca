"""aten::mm in Triton: C = A @ B for a (m, k) and a (k, n) matrix, accumulated in float32.

A classic tiled matmul: each program owns a (BLOCK_M, BLOCK_N) tile of C, walks K in
BLOCK_K steps and accumulates `tl.dot` products in float32; programs are ordered in groups of
GROUP_M tile rows so neighbouring programs share tiles of A and B in L2. Any strides are taken
as they come (transposed and sliced operands need no copy). float32 operands use
input_precision="ieee" (full fp32 products, like PyTorch's default, not TF32); fp16/bf16 use
the tensor cores with a float32 accumulator, rounded once at the store (mm.dtype writes the
float32 accumulator as is). On the GPU the tile is picked from the shape, not autotuned: every
compiled configuration costs seconds, and a reference solution must stay quick to judge.

Split-K: when C has too few tiles to fill the GPU and K is long, K is cut into chunks, each
program writes a float32 partial tile, and `_sum_splits_kernel` adds them up. Besides using
the whole GPU, this shortens the chain of tensor-core accumulations: on the H200 one unsplit
chain over K = 8191 (127 x 255 output, fp16 -> fp32) measured 2-4x the error of cuBLAS, which
splits K there; 16 chunks bring it well under.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mm_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, k_chunk,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cs, stride_cm, stride_cn,
    ACC: tl.constexpr, WIDEN: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # Grouped ordering of the output tiles, for L2 reuse.
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    tiles_per_group = GROUP_M * grid_n
    first_m = (pid // tiles_per_group) * GROUP_M
    group_m = tl.minimum(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % tiles_per_group) % group_m
    pid_n = (pid % tiles_per_group) // group_m

    # Rows/columns past the edge wrap around (their results are masked at the store),
    # so only the K edge needs a load mask.
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    # This program's share of K (all of it unless split-K).
    split = tl.program_id(1)
    k_start = split * k_chunk
    k_end = tl.minimum(k_start + k_chunk, K)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * stride_am + (k_start + rk[None, :]) * stride_ak
    b_ptrs = b_ptr + (k_start + rk[:, None]) * stride_bk + rn[None, :].to(tl.int64) * stride_bn

    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=ACC)
    for k0 in range(k_start, k_end, BLOCK_K):
        a = tl.load(a_ptrs, mask=rk[None, :] < k_end - k0, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < k_end - k0, other=0.0)
        if WIDEN:  # exact widening to float32 (see INTERPRETER_CONFIG)
            a, b = a.to(tl.float32), b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + split * stride_cs + cm[:, None].to(tl.int64) * stride_cm + cn[None, :] * stride_cn
    mask = (cm < M)[:, None] & (cn < N)[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _sum_splits_kernel(part_ptr, c_ptr, M, N, splits, stride_cm, stride_cn, BLOCK: tl.constexpr):
    """c = the sum over s of part[s] (a contiguous (splits, M, N) buffer), in its float type."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M * N
    acc = tl.zeros([BLOCK], dtype=part_ptr.dtype.element_ty)
    for s in range(splits):
        acc += tl.load(part_ptr + s * M * N + offs, mask=mask, other=0.0)
    c_ptrs = c_ptr + (offs // N) * stride_cm + (offs % N) * stride_cn
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


SPLIT_MIN_K = 2048  # split K only when it is at least this long
SPLIT_TILES = 264  # ... and C has fewer 128x128 tiles than this (two per H200 multiprocessor)
SPLIT_CHUNK = 256  # shortest K chunk a split gets (a multiple of every BLOCK_K)

# The one tile the CPU interpreter runs. Triton 3.6's interpreter multiplies bfloat16 tiles
# as raw 16-bit integers, so there they are widened to float32 first: exact, and the float32
# sum of exact products is what the tensor cores compute.
INTERPRETER_CONFIG = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 8}


def _splits(M, N, K):
    """(number of K chunks, chunk length): more than one chunk only for long K and few tiles."""
    tiles = triton.cdiv(M, 128) * triton.cdiv(N, 128)
    if K < SPLIT_MIN_K or tiles >= SPLIT_TILES:
        return 1, K
    want = min(triton.cdiv(SPLIT_TILES, tiles), K // SPLIT_CHUNK)
    chunk = triton.cdiv(triton.cdiv(K, want), SPLIT_CHUNK) * SPLIT_CHUNK
    return triton.cdiv(K, chunk), chunk


def _mm_into(a, b, out):
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mm: cannot multiply {tuple(a.shape)} and {tuple(b.shape)} matrices")
    if a.dtype != b.dtype:
        raise RuntimeError(f"mm: expected operands of one dtype, got {a.dtype} and {b.dtype}")
    if not a.dtype.is_floating_point:
        raise NotImplementedError(f"mm: {a.dtype} operands are not supported by this kernel")
    (M, K), N = a.shape, b.shape[1]
    if M == 0 or N == 0:
        return out
    acc_dtype = torch.float64 if a.dtype == torch.float64 else torch.float32
    acc = tl.float64 if acc_dtype == torch.float64 else tl.float32

    splits, k_chunk = _splits(M, N, K)
    if splits > 1:  # float32 partial products, summed below
        dest = torch.empty((splits, M, N), dtype=acc_dtype, device=a.device)
        d_strides = dest.stride()
    else:
        dest, d_strides = out, (0, out.stride(0), out.stride(1))
    args = (a, b, dest, M, N, K, k_chunk, a.stride(0), a.stride(1), b.stride(0), b.stride(1), *d_strides)

    if a.device.type == "cpu":  # the Triton interpreter: one fixed tile, no benchmarking
        cfg = INTERPRETER_CONFIG
        grid = (triton.cdiv(M, cfg["BLOCK_M"]) * triton.cdiv(N, cfg["BLOCK_N"]), splits)
        _mm_kernel[grid](*args, ACC=acc, WIDEN=a.dtype == torch.bfloat16, **cfg)
    else:
        cfg = _pick_config(M, N, a.dtype in (torch.float16, torch.bfloat16))
        grid = (triton.cdiv(M, cfg["BLOCK_M"]) * triton.cdiv(N, cfg["BLOCK_N"]), splits)
        _mm_kernel[grid](*args, ACC=acc, WIDEN=False, **cfg)

    if splits > 1:
        block = 1024
        _sum_splits_kernel[(triton.cdiv(M * N, block),)](
            dest, out, M, N, splits, out.stride(0), out.stride(1), BLOCK=block, num_warps=4,
        )
    return out


def _new_output(a, b, dtype):
    return torch.empty((a.shape[0], b.shape[1]), dtype=dtype, device=a.device)


def mm(self, mat2):
    return _mm_into(self, mat2, _new_output(self, mat2, self.dtype))


def mm_out(self, mat2, *, out):
    return _mm_into(self, mat2, out)


def mm_dtype_out(self, mat2, out_dtype, *, out):
    return _mm_into(self, mat2, out)


def mm_dtype(self, mat2, out_dtype):
    return _mm_into(self, mat2, _new_output(self, mat2, out_dtype))
