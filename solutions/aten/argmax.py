"""aten::argmax in Triton: the index of the maximum over `dim` (over the flattened tensor when it is None).

The host views the input as (outer, K, inner) with strides (else it moves `dim` last and copies
that view contiguous), then
  * `_argmax_rows_kernel` when inner == 1: tiles of (rows, K), reduced along the row;
  * `_argmax_cols_kernel` otherwise: tiles of (K, inner columns), reduced down the columns.
Every lane keeps its running maximum, the index where it first saw it and whether it saw a NaN;
the lanes are then merged into the smallest index holding the maximum, so ties give the first
index and a NaN (the maximum, as in ATen) gives the first NaN. A few long rows (a flattened
tensor) are split into chunks over the grid's second axis and the chunks' (maximum, index) pairs
reduced again, chunks in index order, so the first index still wins.
16-bit floats are widened exactly to float32; a comparison is exact, so nothing is rounded.
"""

import torch
import triton
import triton.language as tl

TILE = 4096  # elements per program per loop step
SPLIT_ROWS = 1024  # fewer output rows than this, each of SPLIT_MIN_K or more: split the rows
SPLIT_MIN_K = 65536
MIN_PROGRAMS = 512  # a column reduction narrows its tiles (down to 16 columns) to launch this many


@triton.jit
def _fold(x, j, mask, best, bidx, bnan, IS_FLOAT: tl.constexpr):
    """Fold one tile into the lanes' (maximum, first index, NaN seen); a later equal value never wins."""
    first = bidx == 2**62  # the lane has taken nothing yet (its maximum may be the type's minimum)
    if IS_FLOAT:
        xnan = x != x
        take = mask & ~bnan & (xnan | (x > best) | first)
        bnan = bnan | (mask & xnan)
    else:
        take = mask & ((x > best) | first)
    return tl.where(take, x, best), tl.where(take, j, bidx), bnan


@triton.jit
def _first_max(best, bidx, bnan, AXIS: tl.constexpr, INIT: tl.constexpr, IS_FLOAT: tl.constexpr):
    """The lanes' maximum (NaN if a lane saw one) and the smallest index where it occurs."""
    plain = tl.where(bnan, INIT, best)
    m = tl.max(plain, axis=AXIS)
    hit = (bidx != 2**62) & (plain == tl.expand_dims(m, AXIS)) & ~bnan
    if IS_FLOAT:
        nan = tl.max(bnan.to(tl.int32), axis=AXIS) > 0
        hit = tl.where(tl.expand_dims(nan, AXIS), bnan, hit)
        m = tl.where(nan, float("nan"), m)
    return m, tl.min(tl.where(hit, bidx, 2**62), axis=AXIS)


@triton.jit
def _argmax_rows_kernel(x_ptr, idx_in_ptr, val_out_ptr, idx_out_ptr, M, K, CHUNK, x_sm, x_sk,
                        INIT: tl.constexpr, ACC: tl.constexpr, IS_FLOAT: tl.constexpr, HAS_IDX: tl.constexpr,
                        WRITE_VAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    split = tl.program_id(1)
    row_mask = rows < M
    x_rows = x_ptr + rows.to(tl.int64)[:, None] * x_sm
    cols = tl.arange(0, BLOCK_K)[None, :]
    best = tl.full([BLOCK_M, BLOCK_K], INIT, ACC)
    bidx = tl.full([BLOCK_M, BLOCK_K], 2**62, tl.int64)
    bnan = tl.zeros([BLOCK_M, BLOCK_K], tl.int1)
    k_end = tl.minimum(K, (split + 1) * CHUNK)
    for k0 in range(split * CHUNK, k_end, BLOCK_K):
        ks = (k0 + cols).to(tl.int64)
        mask = row_mask[:, None] & (ks < k_end)
        x = tl.load(x_rows + ks * x_sk, mask=mask, other=INIT).to(ACC)
        if HAS_IDX:  # a second pass over the chunks' results: their indices come with them
            j = tl.load(idx_in_ptr + rows.to(tl.int64)[:, None] * K + ks, mask=mask, other=0)
        else:
            j = ks + tl.zeros([BLOCK_M, BLOCK_K], tl.int64)
        best, bidx, bnan = _fold(x, j, mask, best, bidx, bnan, IS_FLOAT)
    m, j = _first_max(best, bidx, bnan, 1, INIT, IS_FLOAT)
    out = rows * tl.num_programs(1) + split
    tl.store(idx_out_ptr + out, j, mask=row_mask)
    if WRITE_VAL:
        tl.store(val_out_ptr + out, m.to(val_out_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def _argmax_cols_kernel(x_ptr, idx_out_ptr, K, inner, x_so, x_sk, x_si, INIT: tl.constexpr, ACC: tl.constexpr,
                        IS_FLOAT: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_I: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < inner
    x_cols = x_ptr + outer * x_so + cols.to(tl.int64)[None, :] * x_si
    ks = tl.arange(0, BLOCK_K)[:, None]
    best = tl.full([BLOCK_K, BLOCK_I], INIT, ACC)
    bidx = tl.full([BLOCK_K, BLOCK_I], 2**62, tl.int64)
    bnan = tl.zeros([BLOCK_K, BLOCK_I], tl.int1)
    for k0 in range(0, K, BLOCK_K):
        j = (k0 + ks).to(tl.int64) + tl.zeros([BLOCK_K, BLOCK_I], tl.int64)
        mask = (j < K) & col_mask[None, :]
        x = tl.load(x_cols + j * x_sk, mask=mask, other=INIT).to(ACC)
        best, bidx, bnan = _fold(x, j, mask, best, bidx, bnan, IS_FLOAT)
    _, j = _first_max(best, bidx, bnan, 0, INIT, IS_FLOAT)
    tl.store(idx_out_ptr + outer * inner + cols, j, mask=col_mask)


def _init(dtype):
    """The lowest value of the dtype (masked lanes load it; it never wins a comparison)."""
    if dtype.is_floating_point:
        return float("-inf")
    if dtype == torch.bool:
        return 0
    return torch.iinfo(dtype).min


def _acc(dtype):
    """16-bit floats are widened to float32 (exactly) for the comparisons."""
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


def _rows_argmax(x, idx_in, res, M, K, sm, sk, meta, vals=None):
    """Row argmaxes; few long rows are split into chunks (so the whole GPU works) whose
    (maximum, index) pairs a second launch reduces."""
    block_k = min(triton.next_power_of_2(K), TILE)
    block_m = min(triton.next_power_of_2(M), max(1, TILE // block_k))
    warps = 8 if block_m * block_k >= 2048 else 4
    has_idx = idx_in is not None
    if M >= SPLIT_ROWS or K < SPLIT_MIN_K:
        _argmax_rows_kernel[(triton.cdiv(M, block_m), 1)](
            x, idx_in if has_idx else res, vals if vals is not None else x, res, M, K, K, sm, sk, **meta,
            HAS_IDX=has_idx, WRITE_VAL=vals is not None, BLOCK_M=block_m, BLOCK_K=block_k, num_warps=warps)
        return
    splits = min(triton.cdiv(K, SPLIT_MIN_K // 4), max(1, 2048 // M))
    chunk = triton.cdiv(triton.cdiv(K, splits), block_k) * block_k
    splits = triton.cdiv(K, chunk)
    part_vals = torch.empty(M * splits, dtype=x.dtype, device=x.device)
    part_idx = torch.empty(M * splits, dtype=torch.int64, device=x.device)
    _argmax_rows_kernel[(triton.cdiv(M, block_m), splits)](
        x, idx_in if has_idx else part_idx, part_vals, part_idx, M, K, chunk, sm, sk, **meta,
        HAS_IDX=has_idx, WRITE_VAL=True, BLOCK_M=block_m, BLOCK_K=block_k, num_warps=warps)
    _rows_argmax(part_vals, part_idx, res, M, splits, splits, 1, meta, vals)


def _argmax(x, dim, keepdim):
    nd = x.dim()
    if dim is None:
        if x.numel() == 0:
            raise RuntimeError("argmax: expected a non-empty tensor when dim is None")
        out_shape = [1] * nd if keepdim else []
        x = x.reshape(-1)  # the flattened tensor (a copy only if it cannot be viewed so)
        view = [(1, 0), (x.numel(), x.stride(0)), (1, 1)]
        d = None
    else:
        rank = max(nd, 1)
        if not -rank <= dim < rank:
            raise IndexError(f"argmax: dim {dim} out of range for a tensor of {nd} dims")
        d = dim % rank
        if nd == 0:
            x, d = x.reshape(1), 0
        if x.shape[d] == 0:
            raise IndexError("argmax: cannot reduce over a zero-size dimension")
        out_shape = [1 if i == d else s for i, s in enumerate(x.shape)] if keepdim else \
            [s for i, s in enumerate(x.shape) if i != d]
        if nd == 0:
            out_shape = []
        groups = [range(d), [d], range(d + 1, x.dim())]
        view = [_merge([x.shape[i] for i in g], [x.stride(i) for i in g]) for g in groups]
    M = 1
    for i, s in enumerate(x.shape):
        if i != d and d is not None:
            M *= s
    res = torch.empty(M, dtype=torch.int64, device=x.device)
    if M == 0:
        return res.view(out_shape)
    if None in view:  # the kept dims cannot be walked with one stride: copy them, `dim` last
        x = x.movedim(d, -1).contiguous()
        view = [(M, x.shape[-1]), (x.shape[-1], 1), (1, 1)]
    (outer, so), (K, sk), (inner, si) = view
    xk = x.view(torch.uint8) if x.dtype == torch.bool else x
    meta = dict(INIT=_init(x.dtype), ACC=_acc(x.dtype), IS_FLOAT=x.dtype.is_floating_point)
    if inner == 1:
        _rows_argmax(xk, None, res, outer, K, so, sk, meta)
    else:
        block_i = min(triton.next_power_of_2(inner), 64)
        while block_i > 16 and outer * triton.cdiv(inner, block_i) < MIN_PROGRAMS:
            block_i //= 2  # narrower column tiles, so a few wide rows still fill the GPU
        block_k = min(triton.next_power_of_2(K), max(1, TILE // block_i))
        _argmax_cols_kernel[(outer * triton.cdiv(inner, block_i),)](
            xk, res, K, inner, so, sk, si, **meta, BLOCK_K=block_k, BLOCK_I=block_i,
            num_warps=8 if block_k * block_i >= 2048 else 4,
        )
    return res.view(out_shape)


def argmax(self, dim=None, keepdim=False):
    return _argmax(self, dim, keepdim)


def argmax_out(self, dim=None, keepdim=False, *, out):
    return out.copy_(_argmax(self, dim, keepdim))
