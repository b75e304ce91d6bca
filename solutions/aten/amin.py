"""aten::amin in Triton: the minimum over the dims in `dim` (all dims when it is empty).

The host views the input as (outer, K, inner) with strides when the reduced dims are adjacent and
merge into one dim K (else it permutes them last and copies that view contiguous), then
  * `_amin_rows_kernel` when inner == 1: tiles of (rows, K), reduced along the row;
  * `_amin_cols_kernel` otherwise: tiles of (K, inner columns), reduced down the columns.
Each keeps a running minimum and a NaN flag: a slice that holds a NaN reduces to NaN, as in ATen.
A few long rows (a full reduction) are split into chunks over the grid's second axis, and the
chunks' minima reduced again, so a full reduction is not one program's sequential loop.
16-bit floats are widened exactly to float32; a min is exact, so nothing is rounded.
"""

import torch
import triton
import triton.language as tl

TILE = 4096  # elements per program per loop step
SPLIT_ROWS = 1024  # fewer output rows than this, each of SPLIT_MIN_K or more: split the rows
SPLIT_MIN_K = 65536


@triton.jit
def _amin_rows_kernel(x_ptr, out_ptr, M, K, CHUNK, x_sm, x_sk, INIT: tl.constexpr, ACC: tl.constexpr,
                      IS_FLOAT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    split = tl.program_id(1)
    row_mask = rows < M
    x_rows = x_ptr + rows.to(tl.int64)[:, None] * x_sm
    cols = tl.arange(0, BLOCK_K)[None, :]
    acc = tl.full([BLOCK_M, BLOCK_K], INIT, ACC)
    nan = tl.zeros([BLOCK_M, BLOCK_K], tl.int1)
    k_end = tl.minimum(K, (split + 1) * CHUNK)
    for k0 in range(split * CHUNK, k_end, BLOCK_K):
        mask = row_mask[:, None] & (k0 + cols < k_end)
        x = tl.load(x_rows + (k0 + cols).to(tl.int64) * x_sk, mask=mask, other=INIT).to(ACC)
        if IS_FLOAT:
            nan = nan | (x != x)  # NaN propagates: a comparison-based min would drop it
        acc = tl.minimum(acc, x)
    y = tl.min(acc, axis=1)
    if IS_FLOAT:
        y = tl.where(tl.max(nan.to(tl.int32), axis=1) > 0, float("nan"), y)
    tl.store(out_ptr + rows * tl.num_programs(1) + split, y.to(out_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def _amin_cols_kernel(x_ptr, out_ptr, K, inner, x_so, x_sk, x_si, INIT: tl.constexpr, ACC: tl.constexpr,
                      IS_FLOAT: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_I: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < inner
    x_cols = x_ptr + outer * x_so + cols.to(tl.int64)[None, :] * x_si
    ks = tl.arange(0, BLOCK_K)[:, None]
    acc = tl.full([BLOCK_K, BLOCK_I], INIT, ACC)
    nan = tl.zeros([BLOCK_K, BLOCK_I], tl.int1)
    for k0 in range(0, K, BLOCK_K):
        mask = (k0 + ks < K) & col_mask[None, :]
        x = tl.load(x_cols + (k0 + ks).to(tl.int64) * x_sk, mask=mask, other=INIT).to(ACC)
        if IS_FLOAT:
            nan = nan | (x != x)
        acc = tl.minimum(acc, x)
    y = tl.min(acc, axis=0)
    if IS_FLOAT:
        y = tl.where(tl.max(nan.to(tl.int32), axis=0) > 0, float("nan"), y)
    tl.store(out_ptr + outer * inner + cols, y.to(out_ptr.dtype.element_ty), mask=col_mask)


def _init(dtype):
    """The identity of min for the dtype (masked lanes load it)."""
    if dtype.is_floating_point:
        return float("inf")
    if dtype == torch.bool:
        return 1
    return torch.iinfo(dtype).max


def _acc(dtype):
    """16-bit floats are widened to float32 (exactly) for the running minimum."""
    return {torch.float16: tl.float32, torch.bfloat16: tl.float32, torch.float32: tl.float32,
            torch.float64: tl.float64, torch.bool: tl.uint8, torch.uint8: tl.uint8, torch.int8: tl.int8,
            torch.int16: tl.int16, torch.int32: tl.int32, torch.int64: tl.int64}[dtype]


def _merge(sizes, strides):
    """(size, stride) of one dim that walks a row-major group of dims, or None if it cannot."""
    if 0 in sizes:
        return 0, 1
    size, stride = 1, 0
    for s, st in zip(reversed(sizes), reversed(strides)):
        if s == 1:
            continue
        if size == 1:
            size, stride = s, st
        elif st == stride * size:
            size *= s
        else:
            return None
    return size, stride


def _view3(t, dims):
    """t as (outer, K, inner) (size, stride) pairs, K the reduced dims, or None if it cannot be viewed so."""
    if dims != list(range(dims[0], dims[-1] + 1)):
        return None
    groups = [range(dims[0]), dims, range(dims[-1] + 1, t.dim())]
    merged = [_merge([t.shape[d] for d in g], [t.stride(d) for d in g]) for g in groups]
    return None if None in merged else merged


def _rows_min(x, res, M, K, sm, sk, meta):
    """Row minima; few long rows are split into chunks (so the whole GPU works) whose minima are
    reduced by a second launch, NaN carried through as a value."""
    block_k = min(triton.next_power_of_2(K), TILE)
    block_m = min(triton.next_power_of_2(M), max(1, TILE // block_k))
    warps = 8 if block_m * block_k >= 2048 else 4
    if M >= SPLIT_ROWS or K < SPLIT_MIN_K:
        _amin_rows_kernel[(triton.cdiv(M, block_m), 1)](
            x, res, M, K, K, sm, sk, **meta, BLOCK_M=block_m, BLOCK_K=block_k, num_warps=warps)
        return
    splits = min(triton.cdiv(K, SPLIT_MIN_K // 4), max(1, 2048 // M))
    chunk = triton.cdiv(triton.cdiv(K, splits), block_k) * block_k
    splits = triton.cdiv(K, chunk)
    partial = torch.empty(M * splits, dtype=res.dtype, device=res.device)
    _amin_rows_kernel[(triton.cdiv(M, block_m), splits)](
        x, partial, M, K, chunk, sm, sk, **meta, BLOCK_M=block_m, BLOCK_K=block_k, num_warps=warps)
    _rows_min(partial, res, M, splits, splits, 1, meta)


def _amin(x, dim, keepdim):
    nd = x.dim()
    rank = max(nd, 1)
    for d in dim:
        if not -rank <= d < rank:
            raise IndexError(f"amin: dim {d} out of range for a tensor of {nd} dims")
    dims = sorted({d % rank for d in dim}) if len(dim) else list(range(nd))
    dims = [d for d in dims if d < nd]  # a 0-d tensor reduces over nothing
    kept = [d for d in range(nd) if d not in dims]
    if any(x.shape[d] == 0 for d in dims) or (not len(dim) and x.numel() == 0):
        raise RuntimeError("amin: cannot reduce over a zero-size dimension (no identity)")
    out_shape = [1 if (d in dims) else x.shape[d] for d in range(nd)] if keepdim else [x.shape[d] for d in kept]
    M = 1
    for d in kept:
        M *= x.shape[d]
    K = x.numel() // M if M else 0
    res = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return res.view(out_shape)
    view = _view3(x, dims) if dims else None
    if view is None:  # non-adjacent reduced dims: copy them last, contiguous
        x = x.permute(kept + dims).contiguous()
        view = [(M, K), (K, 1), (1, 1)]
    (outer, so), (_, sk), (inner, si) = view
    xk, rk = (x.view(torch.uint8), res.view(torch.uint8)) if x.dtype == torch.bool else (x, res)
    meta = dict(INIT=_init(x.dtype), ACC=_acc(x.dtype), IS_FLOAT=x.dtype.is_floating_point)
    if inner == 1:
        _rows_min(xk, rk, outer, K, so, sk, meta)
    else:
        block_i = min(triton.next_power_of_2(inner), 64)
        block_k = min(triton.next_power_of_2(K), max(1, TILE // block_i))
        _amin_cols_kernel[(outer * triton.cdiv(inner, block_i),)](
            xk, rk, K, inner, so, sk, si, **meta, BLOCK_K=block_k, BLOCK_I=block_i,
            num_warps=8 if block_k * block_i >= 2048 else 4,
        )
    return res.view(out_shape)


def amin(self, dim=(), keepdim=False):
    return _amin(self, dim, keepdim)


def amin_out(self, dim=(), keepdim=False, *, out):
    return out.copy_(_amin(self, dim, keepdim))
