# op: aten::mean
# idiom: two-pass reduction with two kernels: a persistent partial-sum kernel (grid = SM count, tl.range over (row, chunk) tiles) into a float32 buffer, then a finalize kernel that sums partials and divides; reduced dims moved last with movedim().contiguous()

import torch
import triton
import triton.language as tl

CHUNK_TILE = 2048  # elements per loop step in pass 1
MAX_CHUNKS = 512  # partial sums per row at most


@triton.jit
def _mean_partials(x_ptr, part_ptr, n_rows, n_cols, n_chunks, chunk_len,
                   NUM_PROGS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n_tiles = n_rows * n_chunks
    offs = tl.arange(0, BLOCK)
    for tile in tl.range(pid, n_tiles, NUM_PROGS):
        row = tile // n_chunks
        chunk = tile % n_chunks
        start = chunk * chunk_len
        stop = tl.minimum(start + chunk_len, n_cols)
        row_ptr = x_ptr + row.to(tl.int64) * n_cols
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for c0 in range(start, stop, BLOCK):
            idx = c0 + offs
            acc += tl.load(row_ptr + idx, mask=idx < stop, other=0.0).to(tl.float32)
        tl.store(part_ptr + tile, tl.sum(acc, axis=0))


@triton.jit
def _mean_finalize(part_ptr, out_ptr, n_rows, n_chunks, n_cols,
                   ROWS: tl.constexpr, CHUNKS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    chunks = tl.arange(0, CHUNKS)
    mask = (rows < n_rows)[:, None] & (chunks < n_chunks)[None, :]
    p = tl.load(part_ptr + rows[:, None] * n_chunks + chunks[None, :], mask=mask, other=0.0)
    total = tl.sum(p, axis=1)
    mean = total / n_cols  # 0 / 0 = nan for an empty reduction, as in ATen (no .to(): n_cols == 1 is a constexpr on GPUs)
    tl.store(out_ptr + rows, mean.to(out_ptr.dtype.element_ty), mask=rows < n_rows)


def _num_programs(t):
    if t.is_cuda:
        return torch.cuda.get_device_properties(t.device).multi_processor_count * 4
    return 4


def _parse_dims(ndim, dim):
    rank = max(ndim, 1)
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not dims:
        return list(range(ndim))
    seen = []
    for d in dims:
        if d < -rank or d >= rank:
            raise IndexError(f"mean(): dimension {d} out of range")
        if d % rank not in seen:
            seen.append(d % rank)
    return sorted(seen)


def _mean(self, dim, keepdim, dtype, out=None):
    out_dtype = dtype if dtype is not None else (out.dtype if out is not None else self.dtype)
    x = self.reshape(1) if self.dim() == 0 else self
    dims = _parse_dims(self.dim(), dim) if self.dim() > 0 else [0]
    kept = [d for d in range(x.dim()) if d not in dims]
    n_rows = 1
    for d in kept:
        n_rows *= x.shape[d]
    n_cols = 1
    for d in dims:
        n_cols *= x.shape[d]
    if self.dim() == 0:
        shape = []
    elif keepdim:
        shape = [1 if d in dims else x.shape[d] for d in range(x.dim())]
    else:
        shape = [x.shape[d] for d in kept]
    result = out if out is not None else torch.empty(shape, dtype=out_dtype, device=self.device)
    if n_rows == 0:
        return result

    # reduced dims last, then a dense (rows, cols) matrix
    moved = x.movedim(dims, list(range(len(kept), x.dim()))).contiguous().reshape(n_rows, n_cols)
    n_chunks = max(1, min(MAX_CHUNKS, triton.cdiv(n_cols, 4 * CHUNK_TILE)))
    chunk_len = triton.cdiv(max(n_cols, 1), n_chunks)
    partials = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x.device)
    progs = min(_num_programs(x), n_rows * n_chunks)
    _mean_partials[(progs,)](moved, partials, n_rows, n_cols, n_chunks, chunk_len,
                             NUM_PROGS=progs, BLOCK=min(CHUNK_TILE, triton.next_power_of_2(max(n_cols, 1))),
                             num_warps=8)
    flat = result.view(-1) if result.is_contiguous() else torch.empty(n_rows, dtype=result.dtype, device=x.device)
    chunks_p2 = triton.next_power_of_2(n_chunks)
    rows_per_prog = max(1, min(32, 4096 // chunks_p2))
    _mean_finalize[(triton.cdiv(n_rows, rows_per_prog),)](
        partials, flat, n_rows, n_chunks, n_cols, ROWS=rows_per_prog, CHUNKS=chunks_p2)
    if not result.is_contiguous():
        result.copy_(flat.view(result.shape))
    return result


def mean(self, *, dtype=None):
    return _mean(self, None, False, dtype)


def mean_dim(self, dim, keepdim=False, *, dtype=None):
    return _mean(self, dim, keepdim, dtype)


def mean_out(self, dim, keepdim=False, *, dtype=None, out):
    return _mean(self, dim, keepdim, dtype, out=out)


def mean_dtype_out(self, *, dtype=None, out):
    return _mean(self, None, False, dtype, out=out)
