"""aten::sort in Triton: a stable sort along `dim`, returning (values, indices).

Every element becomes a (key, index) pair, ordered lexicographically, so ties keep their input
order (stable, which is also a valid answer where `stable` is False). The key is an integer whose
signed order is the order ATen sorts by: a float's bits with the magnitude bits of negatives
flipped, -0.0 made +0.0 (they tie), every NaN the largest key (after +inf); `~key` for
descending, which puts NaN first and keeps ties in input order.
  * `_sort_chunks_kernel`: a bitonic network in registers sorts chunks of up to CHUNK elements of a
    row (several short rows per program); the compare-exchange partner along each axis of the
    chunk's [2, 2, ...] hypercube view is the sum over that axis less the element itself.
  * `_merge_kernel` (rows longer than CHUNK): merges pairs of sorted runs, doubling them until one
    run covers the row; each element's place is its rank in its own run plus a binary search for
    its rank in the other run (the pairs are distinct, so no two elements claim one place).
The last pass gathers the values from the input at the sorted indices and writes both outputs.
"""

import torch
import triton
import triton.language as tl

CHUNK = 4096  # most elements one program sorts in registers
TILE = 2048  # elements of a program in the sort of short rows and in a merge pass


@triton.jit
def _sort_key(x, KEY: tl.constexpr, KEY_MAX: tl.constexpr, IS_FLOAT: tl.constexpr, DESCENDING: tl.constexpr):
    """An integer whose signed order is ATen's order of `x` (NaN largest, -0.0 == +0.0)."""
    if IS_FLOAT:
        bits = x.to(KEY, bitcast=True)
        k = tl.where(bits < 0, bits ^ KEY_MAX, bits)
        k = tl.where(x == 0, 0, k)
        k = tl.where(x != x, KEY_MAX, k)
    else:
        k = x.to(KEY)
    if DESCENDING:
        k = ~k
    return k


@triton.jit
def _indicator(N_DIMS: tl.constexpr, j: tl.constexpr):
    """Bit j of the position, shaped to broadcast over the [2] * N_DIMS hypercube."""
    return tl.reshape(tl.arange(0, 2), [1] * (N_DIMS - j - 1) + [2] + [1] * j)


@triton.jit
def _compare_exchange(k, i, flip, j: tl.constexpr, N_DIMS: tl.constexpr):
    """Each element and its partner across bit j: the lower position keeps the smaller pair
    (the larger where `flip` is set)."""
    axis: tl.constexpr = N_DIMS - 1 - j
    pk = tl.sum(k, axis, keep_dims=True) - k  # the partner: the pair's sum (wrapping) less its own
    pi = tl.sum(i, axis, keep_dims=True) - i
    greater = (k > pk) | ((k == pk) & (i > pi))
    swap = greater != (flip ^ _indicator(N_DIMS, j))
    return tl.where(swap, pk, k), tl.where(swap, pi, i)


@triton.jit
def _bitonic_stage(k, i, stage: tl.constexpr, ALTERNATE: tl.constexpr, N_DIMS: tl.constexpr):
    """Merge bitonic runs of 2**stage, in alternating directions unless it is the last stage."""
    if ALTERNATE:
        flip = _indicator(N_DIMS, stage)
    else:
        flip = 0
    for t in tl.static_range(stage):
        k, i = _compare_exchange(k, i, flip, stage - 1 - t, N_DIMS)
    return k, i


@triton.jit
def _sort_chunks_kernel(x_ptr, vals_ptr, idx_ptr, keys_ptr, pos_ptr, M, N, x_sm, x_sn,
                        ACC: tl.constexpr, KEY: tl.constexpr, KEY_MAX: tl.constexpr, IS_FLOAT: tl.constexpr,
                        DESCENDING: tl.constexpr, FINAL: tl.constexpr, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr, LOG_N: tl.constexpr, N_DIMS: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x_rows = x_ptr + rows.to(tl.int64)[:, None] * x_sm
    x = tl.load(x_rows + cols.to(tl.int64)[None, :] * x_sn, mask=mask, other=0).to(ACC)
    k = tl.where(mask, _sort_key(x, KEY, KEY_MAX, IS_FLOAT, DESCENDING), KEY_MAX)  # padding sorts last
    i = cols[None, :] + tl.zeros([BLOCK_M, BLOCK_N], tl.int32)
    k = tl.reshape(k, [2] * N_DIMS)
    i = tl.reshape(i, [2] * N_DIMS)
    for stage in tl.static_range(1, LOG_N + 1):
        k, i = _bitonic_stage(k, i, stage, stage < LOG_N, N_DIMS)
    k = tl.reshape(k, [BLOCK_M, BLOCK_N])
    i = tl.reshape(i, [BLOCK_M, BLOCK_N])
    out = rows.to(tl.int64)[:, None] * N + cols[None, :]
    if FINAL:
        tl.store(vals_ptr + out, tl.load(x_rows + i.to(tl.int64) * x_sn, mask=mask), mask=mask)
        tl.store(idx_ptr + out, i.to(tl.int64), mask=mask)
    else:
        tl.store(keys_ptr + out, k, mask=mask)
        tl.store(pos_ptr + out, i, mask=mask)


@triton.jit
def _merge_kernel(keys_ptr, pos_ptr, keys_out_ptr, pos_out_ptr, x_ptr, vals_ptr, idx_ptr, N, RUN, STEPS,
                  x_sm, x_sn, FINAL: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    p = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    valid = p < N
    base = row * N
    k = tl.load(keys_ptr + base + p, mask=valid)
    i = tl.load(pos_ptr + base + p, mask=valid)
    run = p // RUN
    other = (run ^ 1) * RUN  # the run this one merges with
    lo = tl.zeros([BLOCK], tl.int32)
    hi = tl.maximum(tl.minimum(N - other, RUN), 0)
    for _ in range(STEPS):  # lo = how many pairs of the other run are smaller
        active = valid & (lo < hi)
        mid = (lo + hi) // 2
        ok = tl.load(keys_ptr + base + other + mid, mask=active)
        oi = tl.load(pos_ptr + base + other + mid, mask=active)
        less = (ok < k) | ((ok == k) & (oi < i))
        lo = tl.where(active & less, mid + 1, lo)
        hi = tl.where(active & ~less, mid, hi)
    dest = base + (run // 2) * 2 * RUN + (p - run * RUN) + lo
    if FINAL:
        v = tl.load(x_ptr + row * x_sm + i.to(tl.int64) * x_sn, mask=valid)
        tl.store(vals_ptr + dest, v, mask=valid)
        tl.store(idx_ptr + dest, i.to(tl.int64), mask=valid)
    else:
        tl.store(keys_out_ptr + dest, k, mask=valid)
        tl.store(pos_out_ptr + dest, i, mask=valid)


def _key_meta(dtype):
    """The type computed in, the key type and its largest value, for each input dtype."""
    if dtype == torch.float64:
        return dict(ACC=tl.float64, KEY=tl.int64, KEY_MAX=2**63 - 1, IS_FLOAT=True)
    if dtype.is_floating_point:  # 16-bit floats widen exactly to float32
        return dict(ACC=tl.float32, KEY=tl.int32, KEY_MAX=2**31 - 1, IS_FLOAT=True)
    if dtype == torch.int64:
        return dict(ACC=tl.int64, KEY=tl.int64, KEY_MAX=2**63 - 1, IS_FLOAT=False)
    return dict(ACC=tl.int32, KEY=tl.int32, KEY_MAX=2**31 - 1, IS_FLOAT=False)


def _log2(n):
    return n.bit_length() - 1


def _sort_rows(x, vals, idx, M, N, sm, sn, descending):
    """Sort the M rows of N elements of `x` (strides sm, sn) into contiguous `vals` and `idx`."""
    meta = dict(**_key_meta(x.dtype), DESCENDING=descending)
    chunk = max(2, min(triton.next_power_of_2(N), CHUNK))
    block_m = min(triton.next_power_of_2(M), max(1, TILE // chunk))
    final = chunk >= N
    keys = pos = None
    if not final:
        keys = torch.empty((M, N), dtype=torch.int64 if meta["KEY"] == tl.int64 else torch.int32, device=x.device)
        pos = torch.empty((M, N), dtype=torch.int32, device=x.device)
    _sort_chunks_kernel[(triton.cdiv(M, block_m), triton.cdiv(N, chunk))](
        x, vals, idx, keys, pos, M, N, sm, sn, **meta, FINAL=final, BLOCK_M=block_m, BLOCK_N=chunk,
        LOG_N=_log2(chunk), N_DIMS=_log2(block_m * chunk), num_warps=8 if block_m * chunk >= 2048 else 4)
    run = chunk
    spare_keys, spare_pos = (torch.empty_like(keys), torch.empty_like(pos)) if not final else (None, None)
    while run < N:
        final = 2 * run >= N
        _merge_kernel[(M, triton.cdiv(N, TILE))](
            keys, pos, spare_keys, spare_pos, x, vals, idx, N, run, _log2(run) + 1, sm, sn,
            FINAL=final, BLOCK=TILE, num_warps=8)
        keys, pos, spare_keys, spare_pos = spare_keys, spare_pos, keys, pos
        run *= 2


def _sort(x, dim, descending):
    nd = x.dim()
    rank = max(nd, 1)
    if not -rank <= dim < rank:
        raise IndexError(f"sort: dim {dim} out of range for a tensor of {nd} dims")
    moved = x.reshape(1) if nd == 0 else x.movedim(dim % rank, -1)
    N = moved.shape[-1]
    M = moved.numel() // N if N else 0
    rows = moved.reshape(M, N)  # a view where the kept dims merge, else a copy
    vals = torch.empty((M, N), dtype=x.dtype, device=x.device)
    idx = torch.empty((M, N), dtype=torch.int64, device=x.device)
    if M and N:
        xk, vk = (rows.view(torch.uint8), vals.view(torch.uint8)) if x.dtype == torch.bool else (rows, vals)
        _sort_rows(xk, vk, idx, M, N, rows.stride(0), rows.stride(1), bool(descending))
    if nd == 0:
        return vals.view(()), idx.view(())
    d = dim % rank
    return vals.view(moved.shape).movedim(-1, d), idx.view(moved.shape).movedim(-1, d)


def sort(self, dim=-1, descending=False):
    return _sort(self, dim, descending)


def sort_stable(self, *, stable, dim=-1, descending=False):
    return _sort(self, dim, descending)


def sort_values(self, dim=-1, descending=False, *, values, indices):
    v, i = _sort(self, dim, descending)
    values.copy_(v)
    indices.copy_(i)
    return values, indices


def sort_values_stable(self, *, stable, dim=-1, descending=False, values, indices):
    return sort_values(self, dim, descending, values=values, indices=indices)
