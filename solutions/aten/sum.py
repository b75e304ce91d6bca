"""aten::sum in Triton: the sum over all elements or over `dim`.

The host views the input as (outer, n, inner) with strides, reducing over n: the reduced dims
are one group (kept dims move in front when the reduced dims are not adjacent) and each group
must merge into one strided dim, else the input is made contiguous first. Two kernels:
  * `_sum_rows_kernel` when inner == 1: tiles of (rows, n), summed along the row;
  * `_sum_cols_kernel` otherwise: tiles of (n, inner columns), summed down the columns.
When there are too few output rows to fill the GPU, n is split into chunks whose partial sums
(in the accumulation type) land in a (outer, splits, inner) buffer that a second pass reduces
the same way.
Accumulation is in float32 when input and result are both 16-bit (like ATen), else in float64:
a float32 result then stays within about one rounding of the exact sum even under heavy
cancellation, where float32 sums taken in other orders can be several ulps off. Values are
rounded once, at the final store.
"""

import torch
import triton
import triton.language as tl

TILE = 2048  # elements loaded per program per loop step
MIN_PROGRAMS = 1024  # below this many programs, split the reduced dim


@triton.jit
def _sum_rows_kernel(
    x_ptr, out_ptr, M, N, chunk,
    x_sm, x_sn, o_sm, o_ss,
    ACC: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    """out[m, s] = sum of x[m, n] for n in split s (n in [s * chunk, (s + 1) * chunk))."""
    pid_m = tl.program_id(0)
    split = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    x_rows = x_ptr + rows.to(tl.int64)[:, None] * x_sm

    start = split * chunk
    end = tl.minimum(start + chunk, N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=ACC)
    for n0 in range(start, end, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < end)[None, :]
        acc += tl.load(x_rows + cols[None, :] * x_sn, mask=mask, other=0.0).to(ACC)
    total = tl.sum(acc, axis=1)

    o_ptrs = out_ptr + rows.to(tl.int64) * o_sm + split * o_ss
    tl.store(o_ptrs, total.to(out_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def _sum_cols_kernel(
    x_ptr, out_ptr, N, inner, chunk,
    x_so, x_sn, x_si, o_so, o_ss, o_si,
    ACC: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_I: tl.constexpr,
):
    """out[o, s, i] = sum of x[o, n, i] for n in split s."""
    pid = tl.program_id(0)
    split = tl.program_id(1)
    n_col_blocks = tl.cdiv(inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < inner
    x_cols = x_ptr + outer * x_so + cols[None, :] * x_si

    start = split * chunk
    end = tl.minimum(start + chunk, N)
    acc = tl.zeros([BLOCK_N, BLOCK_I], dtype=ACC)
    for n0 in range(start, end, BLOCK_N):
        rows = n0 + tl.arange(0, BLOCK_N)
        mask = (rows < end)[:, None] & col_mask[None, :]
        acc += tl.load(x_cols + rows.to(tl.int64)[:, None] * x_sn, mask=mask, other=0.0).to(ACC)
    total = tl.sum(acc, axis=0)

    o_ptrs = out_ptr + outer * o_so + split * o_ss + cols * o_si
    tl.store(o_ptrs, total.to(out_ptr.dtype.element_ty), mask=col_mask)


HALF = (torch.float16, torch.bfloat16)


def _acc_type(x, out):
    """float32 when input and result are both 16-bit (as in ATen), else float64 (see above)."""
    return tl.float32 if x.dtype in HALF and out.dtype in HALF else tl.float64


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


def _group(t, groups):
    """Merge each group of dims of `t` into one (size, stride); None if one does not merge."""
    merged = [_merge([t.shape[d] for d in g], [t.stride(d) for d in g]) for g in groups]
    return None if None in merged else merged


def _reduce(x, out, groups, out_groups):
    """Sum the (outer, n, inner) view of x into the (outer, inner) view of out."""
    (outer, x_so), (n, x_sn), (inner, x_si) = groups
    (_, o_so), (_, o_si) = out_groups
    if outer * inner == 0:
        return
    acc = _acc_type(x, out)
    acc_dtype = torch.float64 if acc == tl.float64 else torch.float32

    if inner == 1:
        block_n = min(triton.next_power_of_2(max(n, 1)), TILE)
        block_m = min(triton.next_power_of_2(outer), TILE // block_n)
        programs = triton.cdiv(outer, block_m)
    else:
        block_i = min(triton.next_power_of_2(inner), 64)
        block_n = min(triton.next_power_of_2(max(n, 1)), TILE // block_i)
        programs = outer * triton.cdiv(inner, block_i)

    splits, chunk = 1, n
    if programs < MIN_PROGRAMS and n >= 8 * block_n:  # too few programs: split n too
        want = min(triton.cdiv(MIN_PROGRAMS, programs), n // (4 * block_n))
        chunk = triton.cdiv(triton.cdiv(n, want), block_n) * block_n
        splits = triton.cdiv(n, chunk)

    if splits > 1:  # first pass: partial sums, reduced again below
        dest = torch.empty((outer, splits, inner), dtype=acc_dtype, device=x.device)
        d_so, d_ss, d_si = dest.stride()
    else:
        dest, d_so, d_ss, d_si = out, o_so, 0, o_si

    if inner == 1:
        _sum_rows_kernel[(programs, splits)](
            x, dest, outer, n, chunk, x_so, x_sn, d_so, d_ss,
            ACC=acc, BLOCK_M=block_m, BLOCK_N=block_n,
            num_warps=8 if block_m * block_n >= 2048 else 4,
        )
    else:
        _sum_cols_kernel[(programs, splits)](
            x, dest, n, inner, chunk, x_so, x_sn, x_si, d_so, d_ss, d_si,
            ACC=acc, BLOCK_N=block_n, BLOCK_I=block_i,
            num_warps=8 if block_i * block_n >= 2048 else 4,
        )
    if splits > 1:
        part_groups = [(outer, d_so), (splits, d_ss), (inner, d_si)]
        _reduce(dest, out, part_groups, out_groups)


def _reduced_dims(x, dim):
    """The sorted, non-negative dims to reduce; None or [] means all of them."""
    rank = max(x.dim(), 1)
    if dim is None:
        dim = []
    elif isinstance(dim, int):
        dim = [dim]
    for d in dim:
        if not -rank <= d < rank:
            raise IndexError(f"sum: dim {d} out of range for a tensor of {x.dim()} dims")
    dims = sorted({d % rank for d in dim})
    return dims or list(range(x.dim()))


def _output_shape(x, dims, keepdim):
    return [1 if d in dims else s for d, s in enumerate(x.shape) if keepdim or d not in dims]


def _sum_into(x, dims, out):
    if x.dim() == 0:  # a 0-d tensor is reduced as one element
        x, dims = x.reshape(1), [0]
    kept = [d for d in range(x.dim()) if d not in dims]
    # out holds the kept dims in order (with size-1 reduced dims in between when keepdim).
    out_kept = kept if out.dim() == x.dim() else list(range(len(kept)))
    if dims == list(range(dims[0], dims[-1] + 1)):  # adjacent: (dims before, dims, dims after)
        n_before = len([d for d in kept if d < dims[0]])
        groups = [kept[:n_before], dims, kept[n_before:]]
    else:  # not adjacent: move the kept dims in front
        n_before = len(kept)
        x = x.permute(kept + dims)
        groups = [list(range(n_before)), list(range(n_before, x.dim())), []]
    merged = _group(x, groups)
    if merged is None:
        x = x.contiguous()
        merged = _group(x, groups)
    out_groups = _group(out, [out_kept[:n_before], out_kept[n_before:]])
    if out_groups is None:
        raise NotImplementedError("sum: this out= layout is not supported")
    _reduce(x, out, merged, out_groups)
    return out


def _out_dtype(self, dtype):
    dtype = dtype if dtype is not None else self.dtype
    if not dtype.is_floating_point:  # ATen sums integers exactly, in int64
        raise NotImplementedError(f"sum: a {dtype} result is not supported by this kernel")
    return dtype


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    dims = _reduced_dims(self, dim)
    out = torch.empty(_output_shape(self, dims, keepdim), dtype=_out_dtype(self, dtype), device=self.device)
    return _sum_into(self, dims, out)


def sum(self, *, dtype=None):
    out = torch.empty((), dtype=_out_dtype(self, dtype), device=self.device)
    return _sum_into(self, _reduced_dims(self, None), out)


def sum_IntList_out(self, dim, keepdim=False, *, dtype=None, out):
    return _sum_into(self, _reduced_dims(self, dim), out)


def sum_out(self, *, dtype=None, out):
    return _sum_into(self, _reduced_dims(self, None), out)
