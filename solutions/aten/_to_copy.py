"""aten::_to_copy in Triton: a copy of self converted to another dtype, in the memory format asked.

The host allocates the result with ATen's strides (`empty_like` keeps a dense input's strides for
preserve_format and infers dense ones otherwise), then one strided copy kernel converts it: the
dims are ordered by the output's strides and merged where both tensors are contiguous, the
output's innermost dim is tiled by columns and the input's innermost by rows, so a transposing
copy reads and writes whole cache lines (Triton stages the tile through shared memory). The
conversion is Triton's cast, which is ATen's: float -> int truncates toward zero, -> bool is x != 0.
"""

import torch
import triton
import triton.language as tl

TILE = 4096  # elements per program where both tensors are contiguous along the columns
TRANSPOSE_TILE = 64  # rows and columns of a tile where they are not
MAX_BATCH = 3  # dims besides the tile's two that the kernel indexes; more are split on the host


@triton.jit
def _copy_kernel(
    src_ptr, dst_ptr,
    n_rows, n_cols, size1, size2,
    ss_r, ss_c, ss0, ss1, ss2,
    ds_r, ds_c, ds0, ds1, ds2,
    VIA_F32: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    """dst[b, r, c] = src[b, r, c] converted to dst's dtype, for one (BLOCK_R, BLOCK_C) tile."""
    pid = tl.program_id(0)
    n_cb = tl.cdiv(n_cols, BLOCK_C)
    n_rb = tl.cdiv(n_rows, BLOCK_R)
    pc = pid % n_cb
    rest = pid // n_cb
    pr = rest % n_rb
    b = (rest // n_rb).to(tl.int64)  # batch index, unravelled into (b0, b1, b2) once per program
    b2 = b % size2
    b1 = (b // size2) % size1
    b0 = b // (size2 * size1)
    rows = (pr.to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R))[:, None]
    cols = (pc.to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C))[None, :]
    mask = (rows < n_rows) & (cols < n_cols)
    x = tl.load(src_ptr + (b0 * ss0 + b1 * ss1 + b2 * ss2) + rows * ss_r + cols * ss_c, mask=mask)
    if VIA_F32:  # integers and float64 reach bfloat16 through float32, as Triton converts them
        x = x.to(tl.float32)
    tl.store(dst_ptr + (b0 * ds0 + b1 * ds1 + b2 * ds2) + rows * ds_r + cols * ds_c,
             x.to(dst_ptr.dtype.element_ty), mask=mask)


def _plan(out, src):
    """(size, out stride, src stride) per dim: size-1 dims dropped, ordered by out's strides
    (outermost first), neighbours merged where both tensors are contiguous across them."""
    dims = sorted(((n, do, ds) for n, do, ds in zip(out.shape, out.stride(), src.stride()) if n != 1),
                  key=lambda d: -d[1])
    merged = []
    for n, do, ds in dims:
        if merged and merged[-1][1] == do * n and merged[-1][2] == ds * n:
            merged[-1] = (merged[-1][0] * n, do, ds)
        else:
            merged.append((n, do, ds))
    return merged or [(1, 0, 0)]


def _copy(out, src):
    """out[...] = src[...] (same shape, any strides), converted to out's dtype."""
    if out.numel() == 0:
        return
    dims = _plan(out, src)
    col = dims.pop()
    transposing = col[2] not in (0, 1) and any(d[2] == 1 for d in dims)
    if transposing:  # the tile's rows run along src's innermost dim
        row = dims.pop(min(range(len(dims)), key=lambda i: dims[i][2]))
    else:
        row = dims.pop() if dims else (1, 0, 0)
    if len(dims) > MAX_BATCH:  # rare: too many dims that do not merge; split the outermost
        d = max((i for i in range(out.dim()) if out.shape[i] > 1), key=lambda i: out.stride(i))
        for i in range(out.shape[d]):
            _copy(out.select(d, i), src.select(d, i))
        return
    batch = [(1, 0, 0)] * (MAX_BATCH - len(dims)) + dims
    n_rows, n_cols = row[0], col[0]
    if transposing:
        block_r = min(triton.next_power_of_2(n_rows), TRANSPOSE_TILE)
        block_c = min(triton.next_power_of_2(n_cols), TRANSPOSE_TILE)
    else:
        block_c = min(triton.next_power_of_2(n_cols), TILE)
        block_r = min(triton.next_power_of_2(n_rows), max(1, TILE // block_c))
    n_batch = batch[0][0] * batch[1][0] * batch[2][0]
    grid = (n_batch * triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _copy_kernel[grid](
        src, out, n_rows, n_cols, batch[1][0], batch[2][0],
        row[2], col[2], batch[0][2], batch[1][2], batch[2][2],
        row[1], col[1], batch[0][1], batch[1][1], batch[2][1],
        VIA_F32=out.dtype == torch.bfloat16 and src.dtype not in (torch.float32, torch.float16),
        BLOCK_R=block_r, BLOCK_C=block_c, num_warps=8 if block_r * block_c >= 4096 else 4,
    )


def _allocate(self, dtype, memory_format):
    """The result with ATen's strides: preserve_format keeps a dense input's strides (and infers
    dense ones in the input's dim order otherwise), as `empty_like` does."""
    if memory_format is None or memory_format == torch.preserve_format:
        return torch.empty_like(self, dtype=dtype)
    return torch.empty(self.shape, dtype=dtype, device=self.device, memory_format=memory_format)


def _same_device(self, device):
    if device is not None and torch.device(device).type != self.device.type:
        raise NotImplementedError("_to_copy: copies between devices are not supported by this kernel")


def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    if layout is not None and layout != torch.strided:
        raise NotImplementedError("_to_copy: only strided layouts are supported")
    _same_device(self, device)
    out = _allocate(self, self.dtype if dtype is None else dtype, memory_format)
    _copy(out, self)
    return out


def _to_copy_out(self, *, non_blocking=False, memory_format=None, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    _copy(out, self)
    return out
