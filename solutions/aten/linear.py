"""aten::linear in Triton: y = input @ weight^T + bias, accumulated in float32.

The host builds one batched product from views: weight^T is weight's (in, out) transposed view,
expanded over input's batch dimensions with stride 0, a 1-d input is a one-row matrix, and the
bias is expanded to the output's shape (any broadcastable bias works). The kernel is a tiled
`tl.dot` matmul over any strides (two batch dimensions; contiguous ones are merged, more are
looped on the host), float32 accumulation, input_precision="ieee" for float32 (never TF32); the
bias is added to the accumulator and the sum rounded once at the store.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _linear_kernel(
    a_ptr, b_ptr, c_ptr, d_ptr, M, N, K, B2,
    sa1, sa2, sam, sak, sb1, sb2, sbk, sbn, sc1, sc2, scm, scn, sd1, sd2, sdm, sdn,
    HAS_BIAS: tl.constexpr, ACC: tl.constexpr, WIDEN: tl.constexpr,
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
    if HAS_BIAS:  # added to the unrounded accumulator: one rounding, as in cuBLAS's epilogue
        d_ptrs = d_ptr + i1 * sd1 + i2 * sd2 + cm[:, None].to(tl.int64) * sdm + cn[None, :].to(tl.int64) * sdn
        acc += tl.load(d_ptrs, mask=mask, other=0.0).to(ACC)
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
    dims = [(tensors[0].shape[d], *(x.stride(d) for x in tensors)) for d in range(tensors[0].dim() - 2)]
    merged = []
    for size, *strides in dims:
        if size == 1:
            continue
        if merged and all(s_out == s_in * size for s_out, s_in in zip(merged[-1][1:], strides)):
            merged[-1] = (merged[-1][0] * size, *strides)
        else:
            merged.append((size, *strides))
    return merged


def _launch(a, b, c, d):
    """c[...] = a[...] @ b[...] (+ d[...]) for (..., M, K), (..., K, N), (..., M, N) views of one
    batch shape; d is None or a view of c's shape."""
    if c.numel() == 0:
        return
    views = (a, b, c) if d is None else (a, b, c, d)
    _launch_at(views, _merged_batch(views), (0,) * len(views))


def _launch_at(views, batch, offsets):
    """Index batch dimensions past the two the kernel takes on the host (views, no copies)."""
    if len(batch) > 2:
        size, *strides = batch[0]
        for i in range(size):
            _launch_at(views, batch[1:], tuple(o + i * s for o, s in zip(offsets, strides)))
        return
    if any(offsets):
        views = tuple(x.as_strided(x.shape[-2:], x.stride()[-2:], x.storage_offset() + o)
                      for x, o in zip(views, offsets))
    _launch_2d(views, batch)


def _launch_2d(views, batch):
    a, b, c = views[:3]
    d = views[3] if len(views) == 4 else c  # c stands in for an absent bias (never read)
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    batch = [(1,) + (0,) * len(views)] * (2 - len(batch)) + list(batch)
    (B1, *s1), (B2, *s2) = batch
    s1, s2 = s1 + [0] * (4 - len(s1)), s2 + [0] * (4 - len(s2))
    acc = tl.float64 if a.dtype == torch.float64 else tl.float32
    if a.device.type == "cpu":  # the Triton interpreter: one fixed tile, no benchmarking
        cfg, widen = INTERPRETER_CONFIG, a.dtype == torch.bfloat16
    else:
        cfg, widen = _pick_config(M, N, a.dtype in (torch.float16, torch.bfloat16)), False
    tiles = triton.cdiv(M, cfg["BLOCK_M"]) * triton.cdiv(N, cfg["BLOCK_N"])
    _linear_kernel[(tiles * B1 * B2,)](
        a, b, c, d, M, N, K, B2,
        s1[0], s2[0], a.stride(-2), a.stride(-1), s1[1], s2[1], b.stride(-2), b.stride(-1),
        s1[2], s2[2], c.stride(-2), c.stride(-1), s1[3], s2[3], d.stride(-2), d.stride(-1),
        HAS_BIAS=len(views) == 4, ACC=acc, WIDEN=widen, **cfg,
    )


def _operands(input, weight, bias):
    if input.dim() == 0 or weight.dim() != 2 or input.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"linear: cannot apply a {tuple(weight.shape)} weight to a {tuple(input.shape)} input")
    if input.dtype != weight.dtype or not input.dtype.is_floating_point or (
            bias is not None and bias.dtype != input.dtype):
        raise RuntimeError("linear: expected floating input, weight and bias of one dtype")
    shape = (*input.shape[:-1], weight.shape[0])
    return shape


def _linear_into(input, weight, bias, out):
    """Views only: a 1-d input is a one-row matrix, weight^T is a strided (in, out) view expanded
    over the batch (stride 0), the bias is expanded to the output's shape."""
    a = input.unsqueeze(0) if input.dim() == 1 else input
    c = out.unsqueeze(0) if input.dim() == 1 else out
    b = weight.t().expand(*a.shape[:-2], *weight.t().shape)
    d = None if bias is None else bias.expand(c.shape)
    _launch(a, b, c, d)
    return out


def linear(input, weight, bias=None):
    shape = _operands(input, weight, bias)
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    return _linear_into(input, weight, bias, out)


def linear_out(input, weight, bias=None, *, out):
    shape = _operands(input, weight, bias)
    if tuple(out.shape) != shape:
        out.resize_(shape)
    return _linear_into(input, weight, bias, out)
