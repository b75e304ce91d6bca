"""aten::matmul in Triton: every rank pairing (dot, mv, vm, mm, broadcast batched), accumulated in float32.

The host turns the call into one batched product with views only: a 1-d operand becomes a
(1, k) or (k, 1) matrix, the batch dimensions are broadcast with stride-0 `expand`, the output
(or `out`) is viewed with the same unit dimensions, and batch dimensions that are contiguous in
all three tensors are merged (at most two are indexed by the kernel; more are looped on the host).
The kernel is a tiled `tl.dot` matmul over any strides, float32 accumulation (float64 for
float64), input_precision="ieee" for float32 (never TF32), rounded once at the store.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, B2,
    sa1, sa2, sam, sak, sb1, sb2, sbk, sbn, sc1, sc2, scm, scn,
    ACC: tl.constexpr, WIDEN: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # One flat grid: the batch entry, unravelled into two batch dimensions of any strides, then
    # the output tile in grouped order (neighbouring programs share tiles of A and B in L2).
    grid_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * grid_n
    bid = tl.program_id(0) // tiles
    pid = tl.program_id(0) % tiles
    i1 = (bid // B2).to(tl.int64)
    i2 = (bid % B2).to(tl.int64)
    tiles_per_group = GROUP_M * grid_n
    first_m = (pid // tiles_per_group) * GROUP_M
    group_m = tl.minimum(tl.cdiv(M, BLOCK_M) - first_m, GROUP_M)
    pid_m = first_m + (pid % tiles_per_group) % group_m
    pid_n = (pid % tiles_per_group) // group_m

    # Rows/columns past the edge wrap around (masked at the store): only K needs a load mask.
    rm = ((pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M).to(tl.int64)
    rn = ((pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N).to(tl.int64)
    rk = tl.arange(0, BLOCK_K).to(tl.int64)
    a_ptrs = a_ptr + i1 * sa1 + i2 * sa2 + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + i1 * sb1 + i2 * sb2 + rk[:, None] * sbk + rn[None, :] * sbn

    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=ACC)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k0, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k0, other=0.0)
        if WIDEN:  # exact widening to float32 (see INTERPRETER_CONFIG)
            a, b = a.to(tl.float32), b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk

    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + i1 * sc1 + i2 * sc2 + cm[:, None].to(tl.int64) * scm + cn[None, :].to(tl.int64) * scn
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


def _merged_batch(tensors):
    """The batch dimensions (all but the last two) of same-batch-shape views, size-1 ones dropped
    and neighbours merged where every tensor steps through them as one: [(size, strides...)]."""
    dims = [(t.shape[d], *(x.stride(d) for x in tensors)) for t in tensors[:1] for d in range(t.dim() - 2)]
    merged = []
    for size, *strides in dims:
        if size == 1:
            continue
        if merged and all(s_out == s_in * size for s_out, s_in in zip(merged[-1][1:], strides)):
            merged[-1] = (merged[-1][0] * size, *strides)
        else:
            merged.append((size, *strides))
    return merged


def _launch(a, b, c):
    """c[...] = a[...] @ b[...] for (..., M, K), (..., K, N), (..., M, N) views of one batch shape."""
    if c.numel() == 0:
        return
    _launch_at(a, b, c, _merged_batch((a, b, c)), (0, 0, 0))


def _launch_at(a, b, c, batch, offsets):
    """Index batch dimensions past the two the kernel takes on the host (views, no copies)."""
    if len(batch) > 2:
        size, *strides = batch[0]
        for i in range(size):
            _launch_at(a, b, c, batch[1:], tuple(o + i * s for o, s in zip(offsets, strides)))
        return
    if any(offsets):
        a, b, c = (x.as_strided(x.shape[-2:], x.stride()[-2:], x.storage_offset() + o)
                   for x, o in zip((a, b, c), offsets))
    _launch_2d(a, b, c, batch)


def _launch_2d(a, b, c, batch):
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    batch = [(1, 0, 0, 0)] * (2 - len(batch)) + list(batch)
    (B1, sa1, sb1, sc1), (B2, sa2, sb2, sc2) = batch
    acc = tl.float64 if a.dtype == torch.float64 else tl.float32
    if a.device.type == "cpu":  # the Triton interpreter: one fixed tile, no benchmarking
        cfg, widen = INTERPRETER_CONFIG, a.dtype == torch.bfloat16
    else:
        cfg, widen = _pick_config(M, N, a.dtype in (torch.float16, torch.bfloat16)), False
    tiles = triton.cdiv(M, cfg["BLOCK_M"]) * triton.cdiv(N, cfg["BLOCK_N"])
    _matmul_kernel[(tiles * B1 * B2,)](
        a, b, c, M, N, K, B2,
        sa1, sa2, a.stride(-2), a.stride(-1), sb1, sb2, b.stride(-2), b.stride(-1),
        sc1, sc2, c.stride(-2), c.stride(-1), ACC=acc, WIDEN=widen, **cfg,
    )


def _result_shape(self, other):
    if self.dim() == 0 or other.dim() == 0:
        raise RuntimeError("matmul: both arguments need at least one dimension")
    if self.dtype != other.dtype or not self.dtype.is_floating_point:
        raise RuntimeError(f"matmul: expected floating operands of one dtype, got {self.dtype} and {other.dtype}")
    a = self.unsqueeze(0) if self.dim() == 1 else self
    b = other.unsqueeze(-1) if other.dim() == 1 else other
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"matmul: shapes {tuple(self.shape)} and {tuple(other.shape)} cannot be multiplied")
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    shape = list(batch)
    if self.dim() > 1:
        shape.append(a.shape[-2])
    if other.dim() > 1:
        shape.append(b.shape[-1])
    return a, b, tuple(batch), tuple(shape)


def _matmul_into(self, other, a, b, batch, out):
    c = out.unsqueeze(-1) if other.dim() == 1 else out
    c = c.unsqueeze(-2) if self.dim() == 1 else c
    a = a.expand(*batch, *a.shape[-2:])
    b = b.expand(*batch, *b.shape[-2:])
    _launch(a, b, c)
    return out


def matmul(self, other):
    a, b, batch, shape = _result_shape(self, other)
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    return _matmul_into(self, other, a, b, batch, out)


def matmul_out(self, other, *, out):
    a, b, batch, shape = _result_shape(self, other)
    if tuple(out.shape) != shape:
        out.resize_(shape)
    return _matmul_into(self, other, a, b, batch, out)
