# op: aten::sum
# idiom: split reduction: torch.zeros float32 accumulator + tl.atomic_add from (n-chunk, column-block) programs over an (outer, n, inner) view, cast on the host acc.to(dtype)

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _partial_sum_atomic(x_ptr, acc_ptr, n, inner, chunk,
                        BLOCK_N: tl.constexpr, BLOCK_I: tl.constexpr):
    o = tl.program_id(0)
    col_block = tl.program_id(1)
    split = tl.program_id(2)
    cols = col_block * BLOCK_I + tl.arange(0, BLOCK_I)
    cmask = cols < inner
    n_lo = split * chunk
    base = x_ptr + o.to(tl.int64) * n * inner
    part = tl.zeros([BLOCK_N, BLOCK_I], dtype=tl.float32)
    for r0 in range(n_lo, n_lo + chunk, BLOCK_N):
        r = r0 + tl.arange(0, BLOCK_N)
        msk = ((r < n) & (r < n_lo + chunk))[:, None] & cmask[None, :]
        offs = r.to(tl.int64)[:, None] * inner + cols[None, :]
        part += tl.load(base + offs, mask=msk, other=0.0).to(tl.float32)
    colsum = tl.sum(part, axis=0)
    tl.atomic_add(acc_ptr + o.to(tl.int64) * inner + cols, colsum, mask=cmask)


def _dims_to_reduce(ndim, dim):
    rank = max(ndim, 1)
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    result = set()
    for d in dim:
        if not -rank <= d < rank:
            raise IndexError(f"sum(): dim {d} out of range for a {ndim}-d tensor")
        result.add(d % rank)
    return sorted(result)


def _launch(x3, acc, outer, n, inner):
    block_i = min(triton.next_power_of_2(inner), 128)
    block_n = max(1, min(triton.next_power_of_2(max(n, 1)), 4096 // block_i))
    col_blocks = triton.cdiv(inner, block_i)
    programs = outer * col_blocks
    # enough (chunk) programs to keep a GPU busy, each chunk at least 4 tiles long
    splits = max(1, min(triton.cdiv(1024, programs), triton.cdiv(n, 4 * block_n)))
    chunk = triton.cdiv(n, splits)
    chunk = triton.cdiv(chunk, block_n) * block_n
    splits = max(1, triton.cdiv(n, chunk)) if n > 0 else 1
    warps = 8 if block_n * block_i >= 2048 else 4
    _partial_sum_atomic[(outer, col_blocks, splits)](
        x3, acc, n, inner, max(chunk, 1), BLOCK_N=block_n, BLOCK_I=block_i, num_warps=warps)


def _sum_impl(self, dim, keepdim, dtype):
    out_dtype = dtype if dtype is not None else self.dtype
    x = self.reshape(1) if self.dim() == 0 else self
    dims = _dims_to_reduce(x.dim(), dim)
    kept = [d for d in range(x.dim()) if d not in dims]
    if keepdim and self.dim() > 0:
        out_shape = [1 if d in dims else x.shape[d] for d in range(x.dim())]
    elif self.dim() > 0:
        out_shape = [x.shape[d] for d in kept]
    else:
        out_shape = []

    if dims == list(range(dims[0], dims[-1] + 1)):
        before = [d for d in kept if d < dims[0]]
        after = [d for d in kept if d > dims[-1]]
        xc = x.contiguous()
    else:  # reduced dims not adjacent: bring the kept dims to the front
        before, after = kept, []
        xc = x.permute(kept + dims).contiguous()
    outer = math.prod(x.shape[d] for d in before)
    n = math.prod(x.shape[d] for d in dims)
    inner = math.prod(x.shape[d] for d in after)

    acc = torch.zeros(outer * inner, dtype=torch.float32, device=x.device)
    if outer * inner > 0 and n > 0:
        _launch(xc, acc, outer, n, inner)
    return acc.to(out_dtype).reshape(out_shape)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    return _sum_impl(self, dim, keepdim, dtype)


def sum(self, *, dtype=None):
    return _sum_impl(self, None, False, dtype)


def sum_IntList_out(self, dim, keepdim=False, *, dtype=None, out):
    out.copy_(_sum_impl(self, dim, keepdim, dtype))
    return out


def sum_out(self, *, dtype=None, out):
    out.copy_(_sum_impl(self, None, False, dtype))
    return out
