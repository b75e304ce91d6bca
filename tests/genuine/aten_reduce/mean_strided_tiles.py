# op: aten::mean
# idiom: strided (outer, n, inner) view without copies (dims merged by stride), 2-D BLOCK x BLOCK tiles reduced with tl.sum(axis=0 / axis=1), split-n partials in float32 plus a divide kernel; typing hints, module docstring and a __main__ self-test
"""Mean over dims with Triton, reading the input through its strides.

The input is described as three (size, stride) pairs: the kept dims before the reduced block
(`outer`), the reduced block (`n`) and the kept dims after it (`inner`). Each group has to merge
into a single strided dim; when it does not, the input is made contiguous first.

* inner == 1: a program owns BLOCK_R rows and walks them along n (tile BLOCK_R x BLOCK_N,
  tl.sum(axis=1));
* inner > 1: a program owns BLOCK_I columns of one outer slice and walks down n
  (tile BLOCK_N x BLOCK_I, tl.sum(axis=0)).

When there are few outputs, n is cut into `splits` chunks written as float32 partial sums; a
small kernel adds the partials and divides by n (0 / 0 gives NaN for empty reductions).
"""

from typing import List, Optional, Sequence, Tuple

import torch
import triton
import triton.language as tl

Group = Tuple[int, int]  # (size, stride)

TILE_ELEMS: int = 4096
WANT_PROGRAMS: int = 1024


@triton.jit
def _rowwise(x_ptr, dst_ptr, R, n, chunk, sr, sn, d_sr, d_ss, inv_n,
             DIVIDE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    s = tl.program_id(1)
    lo = s * chunk
    hi = tl.minimum(lo + chunk, n)
    ptrs = x_ptr + rows.to(tl.int64)[:, None] * sr
    acc = tl.zeros((BLOCK_R, BLOCK_N), tl.float32)
    for k in range(lo, hi, BLOCK_N):
        cols = k + tl.arange(0, BLOCK_N)
        m = (rows < R)[:, None] & (cols < hi)[None, :]
        acc += tl.load(ptrs + cols.to(tl.int64)[None, :] * sn, mask=m, other=0.0).to(tl.float32)
    res = tl.sum(acc, axis=1)
    if DIVIDE:
        res = res * inv_n
    tl.store(dst_ptr + rows.to(tl.int64) * d_sr + s * d_ss, res.to(dst_ptr.dtype.element_ty), mask=rows < R)


@triton.jit
def _colwise(x_ptr, dst_ptr, inner, n, chunk, so, sn, si, d_so, d_ss, d_si, inv_n,
             DIVIDE: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_I: tl.constexpr):
    pid = tl.program_id(0)
    s = tl.program_id(1)
    per_slice = tl.cdiv(inner, BLOCK_I)
    o = (pid // per_slice).to(tl.int64)
    cols = (pid % per_slice) * BLOCK_I + tl.arange(0, BLOCK_I)
    lo = s * chunk
    hi = tl.minimum(lo + chunk, n)
    base = x_ptr + o * so + cols.to(tl.int64)[None, :] * si
    acc = tl.zeros((BLOCK_N, BLOCK_I), tl.float32)
    for k in range(lo, hi, BLOCK_N):
        r = k + tl.arange(0, BLOCK_N)
        m = (r < hi)[:, None] & (cols < inner)[None, :]
        acc += tl.load(base + r.to(tl.int64)[:, None] * sn, mask=m, other=0.0).to(tl.float32)
    res = tl.sum(acc, axis=0)
    if DIVIDE:
        res = res * inv_n
    tl.store(dst_ptr + o * d_so + s * d_ss + cols * d_si, res.to(dst_ptr.dtype.element_ty), mask=cols < inner)


@triton.jit
def _finish(part_ptr, dst_ptr, count, splits, d_stride, n_f,
            BLOCK: tl.constexpr, SPLITS: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    j = tl.arange(0, SPLITS)
    m = (idx < count)[:, None] & (j < splits)[None, :]
    p = tl.load(part_ptr + idx.to(tl.int64)[:, None] * splits + j[None, :], mask=m, other=0.0)
    res = tl.sum(p, axis=1) / n_f
    tl.store(dst_ptr + idx.to(tl.int64) * d_stride, res.to(dst_ptr.dtype.element_ty), mask=idx < count)


def _merge(t: torch.Tensor, dims: Sequence[int]) -> Optional[Group]:
    """One (size, stride) walking `dims` of t in row-major order, or None."""
    sizes = [t.shape[d] for d in dims]
    if 0 in sizes:
        return (0, 1)
    size, stride = 1, 1
    for d in reversed(list(dims)):
        if t.shape[d] == 1:
            continue
        if size == 1:
            size, stride = t.shape[d], t.stride(d)
        elif t.stride(d) == size * stride:
            size *= t.shape[d]
        else:
            return None
    return (size, stride)


def _canonical_dims(ndim: int, dim: Optional[Sequence[int]]) -> List[int]:
    if dim is None:
        return list(range(ndim))
    items = [dim] if isinstance(dim, int) else list(dim)
    if not items:
        return list(range(ndim))
    rank = max(ndim, 1)
    for d in items:
        if not -rank <= d < rank:
            raise IndexError(f"mean(): dim {d} out of range for {ndim}-d input")
    return sorted({d % rank for d in items})


def _view(x: torch.Tensor, dims: List[int]) -> Tuple[torch.Tensor, Group, Group, Group]:
    kept = [d for d in range(x.dim()) if d not in dims]
    adjacent = dims == list(range(dims[0], dims[-1] + 1)) if dims else True
    if not adjacent:
        x = x.permute(kept + dims)
        kept, dims = list(range(len(kept))), list(range(len(kept), x.dim()))
    before = [d for d in kept if not dims or d < dims[0]]
    after = [d for d in kept if dims and d > dims[-1]]
    groups = [_merge(x, before), _merge(x, dims), _merge(x, after)]
    if None in groups:
        x = x.contiguous()
        groups = [_merge(x, before), _merge(x, dims), _merge(x, after)]
    return x, groups[0], groups[1], groups[2]


def _launch(x: torch.Tensor, dst: torch.Tensor, outer: Group, red: Group, inner: Group,
            d_strides: Tuple[int, int, int], splits: int, chunk: int, divide: bool) -> None:
    (O, so), (n, sn), (I, si) = outer, red, inner
    inv_n = 1.0 / n if n else float("nan")
    if I == 1:
        block_n = min(triton.next_power_of_2(max(chunk, 1)), TILE_ELEMS)
        block_r = max(1, min(triton.next_power_of_2(O), TILE_ELEMS // block_n))
        _rowwise[(triton.cdiv(O, block_r), splits)](
            x, dst, O, n, chunk, so, sn, d_strides[0], d_strides[1], inv_n,
            DIVIDE=divide, BLOCK_R=block_r, BLOCK_N=block_n, num_warps=8 if block_r * block_n >= 2048 else 4)
    else:
        block_i = min(triton.next_power_of_2(I), 64)
        block_n = max(1, min(triton.next_power_of_2(max(chunk, 1)), TILE_ELEMS // block_i))
        _colwise[(O * triton.cdiv(I, block_i), splits)](
            x, dst, I, n, chunk, so, sn, si, d_strides[0], d_strides[1], d_strides[2], inv_n,
            DIVIDE=divide, BLOCK_N=block_n, BLOCK_I=block_i, num_warps=8 if block_n * block_i >= 2048 else 4)


def _mean_into(self: torch.Tensor, dim: Optional[Sequence[int]], out: torch.Tensor) -> torch.Tensor:
    x = self.reshape(1) if self.dim() == 0 else self
    dims = _canonical_dims(x.dim(), dim) if self.dim() else [0]
    x, outer, red, inner = _view(x, dims)
    O, n, I = outer[0], red[0], inner[0]
    if O * I == 0:
        return out
    flat = out.view(-1) if out.is_contiguous() else torch.empty(O * I, dtype=out.dtype, device=out.device)
    programs = O if I == 1 else O * triton.cdiv(I, 64)
    splits = 1
    if programs < WANT_PROGRAMS and n >= 8 * TILE_ELEMS:
        splits = min(triton.cdiv(WANT_PROGRAMS, programs), 256, n // (2 * TILE_ELEMS))
    if splits == 1:
        _launch(x, flat, outer, red, inner, (I, 0, 1), 1, n, True)
    else:
        chunk = triton.cdiv(n, splits)
        partial = torch.empty((O, splits, I), dtype=torch.float32, device=x.device)
        _launch(x, partial, outer, red, inner, (splits * I, I, 1), splits, chunk, False)
        # partials laid out as (O*I, splits) rows for the finish kernel
        part_rows = partial.permute(0, 2, 1).contiguous()
        block = max(1, min(256, 4096 // triton.next_power_of_2(splits)))
        _finish[(triton.cdiv(O * I, block),)](part_rows, flat, O * I, splits, 1, float(n),
                                             BLOCK=block, SPLITS=triton.next_power_of_2(splits))
    if not out.is_contiguous():
        out.copy_(flat.view(out.shape))
    return out


def _result_shape(self: torch.Tensor, dim: Optional[Sequence[int]], keepdim: bool) -> List[int]:
    if self.dim() == 0:
        return []
    dims = _canonical_dims(self.dim(), dim)
    if keepdim:
        return [1 if d in dims else s for d, s in enumerate(self.shape)]
    return [s for d, s in enumerate(self.shape) if d not in dims]


def mean(self: torch.Tensor, *, dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    out = torch.empty([], dtype=dtype or self.dtype, device=self.device)
    return _mean_into(self, None, out)


def mean_dim(self: torch.Tensor, dim: Optional[Sequence[int]], keepdim: bool = False, *,
             dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    out = torch.empty(_result_shape(self, dim, keepdim), dtype=dtype or self.dtype, device=self.device)
    return _mean_into(self, dim, out)


def mean_out(self: torch.Tensor, dim: Optional[Sequence[int]], keepdim: bool = False, *,
             dtype: Optional[torch.dtype] = None, out: torch.Tensor) -> torch.Tensor:
    return _mean_into(self, dim, out)


def mean_dtype_out(self: torch.Tensor, *, dtype: Optional[torch.dtype] = None, out: torch.Tensor) -> torch.Tensor:
    return _mean_into(self, None, out)


if __name__ == "__main__":
    # without a GPU, run with TRITON_INTERPRET=1 set in the environment
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    for shape, dims in [((33, 65), [1]), ((3, 5, 17), [0, 2]), ((4, 40000), [1]), ((0, 4), [0])]:
        t = torch.randn(shape, device=dev)
        got = mean_dim(t, dims)
        want = t.double().mean(dims)
        print(shape, dims, (got.double() - want).abs().max().item() if got.numel() else "empty")
