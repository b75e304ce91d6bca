"""aten::embedding in Triton: out[..., :] = weight[indices[...], :], for ids of any shape.

The ids are read in place through their strides (padded to three dims and unravelled per row),
so non-contiguous id tensors need no copy. Each program loads BLOCK_N ids (int32 or int64) once
and copies BLOCK_D columns of each picked row. padding_idx, scale_grad_by_freq and sparse only
change the backward: the forward looks every id up as-is, the padding row included.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 3  # id dimensions the kernel unravels; more are split on the host
TILE = 4096  # elements per program


@triton.jit
def _embedding_kernel(
    w_ptr, idx_ptr, out_ptr, V, D, N, size1, size2,
    w_sv, w_sd, is0, is1, is2, os0, os1, os2, o_sd,
    BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
):
    pid = tl.program_id(0)
    d_blocks = tl.cdiv(D, BLOCK_D)
    n = (pid // d_blocks).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cols = ((pid % d_blocks) * BLOCK_D + tl.arange(0, BLOCK_D)).to(tl.int64)
    n_mask = n < N

    i2 = n % size2
    i1 = (n // size2) % size1
    i0 = n // (size2 * size1)
    idx = tl.load(idx_ptr + i0 * is0 + i1 * is1 + i2 * is2, mask=n_mask, other=0).to(tl.int64)
    tl.device_assert((idx >= 0) & (idx < V), "embedding: index out of range")
    ok = n_mask & (idx >= 0) & (idx < V)
    c_mask = (cols < D)[None, :]

    src = w_ptr + idx[:, None] * w_sv + cols[None, :] * w_sd
    vals = tl.load(src, mask=ok[:, None] & c_mask)
    dst = out_ptr + (i0 * os0 + i1 * os1 + i2 * os2)[:, None] + cols[None, :] * o_sd
    tl.store(dst, vals, mask=n_mask[:, None] & c_mask)


def _check(weight, indices):
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar "
                           f"types: Long, Int; but got {indices.dtype} instead")


def _launch(weight, indices, out):
    """out (indices.shape + (D,)) = weight rows picked by indices."""
    if out.numel() == 0:
        return
    if indices.dim() > MAX_DIMS:  # rare: split the first id dim on the host
        for i in range(indices.shape[0]):
            _launch(weight, indices[i], out[i])
        return
    pad = MAX_DIMS - indices.dim()
    sizes = [1] * pad + list(indices.shape)
    ist = [0] * pad + list(indices.stride())
    ost = [0] * pad + list(out.stride()[:-1])
    V, D = weight.shape
    N = indices.numel()
    block_d = min(triton.next_power_of_2(D), TILE)
    block_n = min(triton.next_power_of_2(N), TILE // block_d)
    grid = (triton.cdiv(N, block_n) * triton.cdiv(D, block_d),)
    _embedding_kernel[grid](
        weight, indices, out, V, D, N, sizes[1], sizes[2],
        weight.stride(0), weight.stride(1), *ist, *ost, out.stride(-1),
        BLOCK_N=block_n, BLOCK_D=block_d, num_warps=4,
    )


def _embedding_into(weight, indices, out):
    _check(weight, indices)
    shape = tuple(indices.shape) + (weight.shape[1],)
    if tuple(out.shape) != shape:
        out.resize_(shape)
    _launch(weight, indices, out)
    return out


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    out = torch.empty(tuple(indices.shape) + (weight.shape[1],), dtype=weight.dtype, device=weight.device)
    return _embedding_into(weight, indices, out)


def embedding_out(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False, *, out):
    return _embedding_into(weight, indices, out)
