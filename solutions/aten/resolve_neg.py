"""aten::resolve_neg in Triton: self itself when its negative bit is not set, else the negation
materialised into a new tensor.

A tensor with the bit set (e.g. `x.conj().imag`) stores the values before negation, and a Triton
kernel reads that raw storage, so the copy negates as it goes; complex tensors are handled as their
real and imaginary parts (views). The copy is one strided kernel with ATen's strides for the
result (`empty_like`), tiled so a transposed input stays coalesced on both sides.
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
    NEGATE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    """dst[b, r, c] = src[b, r, c] (negated with NEGATE), for one (BLOCK_R, BLOCK_C) tile."""
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
    if NEGATE:  # in float32 at least: exact, and half types negate wrongly in the interpreter
        x = -x.to(tl.float64 if x.dtype == tl.float64 else tl.float32)
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


def _copy(out, src, negate):
    """out[...] = src[...] (same shape, any strides; src's raw storage, whatever its bits say)."""
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
            _copy(out.select(d, i), src.select(d, i), negate)
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
        NEGATE=negate,
        BLOCK_R=block_r, BLOCK_C=block_c, num_warps=8 if block_r * block_c >= 4096 else 4,
    )


def _parts(t):
    """Real views of a tensor's storage: its real and imaginary parts where it is complex."""
    return (t.real, t.imag) if t.is_complex() else (t,)


def resolve_neg(self):
    if not self.is_neg():
        return self
    out = torch.empty_like(self)  # a fresh tensor, without the bit
    for dst, src in zip(_parts(out), _parts(self)):
        _copy(dst, src, True)
    return out
