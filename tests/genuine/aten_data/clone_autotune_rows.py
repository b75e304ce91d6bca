# op: aten::clone
# idiom: @triton.autotune (one config: the interpreter cannot benchmark) with a lambda grid over (rows, column blocks); every layout goes through one 4-D strided kernel, the output allocated with torch.empty / empty_like per memory_format

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK_C": 128}, num_warps=4)],
    key=["n_cols"],
)
@triton.jit
def clone_rows_kernel(
    in_ptr, out_ptr,
    n_cols, size1, size2,
    in_s0, in_s1, in_s2, in_s3,
    out_s0, out_s1, out_s2, out_s3,
    BLOCK_C: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)  # one row of the last dim per program along axis 0
    cblk = tl.program_id(1)
    i2 = row % size2
    i1 = (row // size2) % size1
    i0 = row // (size2 * size1)
    cols = cblk * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = cols < n_cols
    cols64 = cols.to(tl.int64)
    src = in_ptr + i0 * in_s0 + i1 * in_s1 + i2 * in_s2 + cols64 * in_s3
    dst = out_ptr + i0 * out_s0 + i1 * out_s1 + i2 * out_s2 + cols64 * out_s3
    tl.store(dst, tl.load(src, mask=mask), mask=mask)


def _as_4d(shape, strides):
    shape, strides = list(shape), list(strides)
    if len(shape) > 4:
        raise NotImplementedError("clone_rows_kernel handles up to 4 dims")
    pad = 4 - len(shape)
    return [1] * pad + shape, [0] * pad + strides


def _copy_into(out, src):
    if out.numel() == 0:
        return out
    sizes, in_st = _as_4d(src.shape, src.stride())
    _, out_st = _as_4d(out.shape, out.stride())
    n_rows = sizes[0] * sizes[1] * sizes[2]
    n_cols = sizes[3]
    grid = lambda meta: (n_rows, triton.cdiv(n_cols, meta["BLOCK_C"]))
    clone_rows_kernel[grid](src, out, n_cols, sizes[1], sizes[2], *in_st, *out_st)
    return out


def clone(self, *, memory_format=None):
    if memory_format is None or memory_format == torch.preserve_format:
        out = torch.empty_like(self)
    else:
        out = torch.empty(self.shape, dtype=self.dtype, device=self.device, memory_format=memory_format)
    return _copy_into(out, self)


def clone_out(self, *, memory_format=None, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _copy_into(out, self)
