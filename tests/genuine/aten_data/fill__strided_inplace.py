# op: aten::fill_
# idiom: in-place fill of a strided self (transposed, sliced or expanded) written through self's own strides by a 2-D launch grid (rows x column blocks); fill_.Tensor loads the 0-d value inside the kernel, fill_.Scalar passes the Python number as a tl.constexpr

import torch
import triton
import triton.language as tl

BLOCK_COLS = 128


@triton.jit
def _fill_rows(self_ptr, value_ptr, n_cols, size1, size2, st0, st1, st2, st3,
               VALUE: tl.constexpr, FROM_TENSOR: tl.constexpr, BLOCK_COLS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_COLS + tl.arange(0, BLOCK_COLS)
    dtype = self_ptr.dtype.element_ty
    if FROM_TENSOR:
        v = tl.load(value_ptr)
        if dtype.is_floating():
            v = v.to(tl.float32) if dtype != tl.float64 else v.to(tl.float64)
        vals = tl.zeros([BLOCK_COLS], dtype) + v.to(dtype)
    else:
        if dtype == tl.float16 or dtype == tl.bfloat16:
            vals = tl.full([BLOCK_COLS], VALUE, tl.float32).to(dtype)
        else:
            vals = tl.full([BLOCK_COLS], VALUE, dtype)
    i2 = row % size2
    i1 = (row // size2) % size1
    i0 = row // (size2 * size1)
    ptrs = self_ptr + i0 * st0 + i1 * st1 + i2 * st2 + cols.to(tl.int64) * st3
    tl.store(ptrs, vals, mask=cols < n_cols)


def _launch(self, value, value_tensor):
    if self.numel() == 0:
        return self
    if self.dim() > 4:
        raise NotImplementedError("fill_: at most 4 dims")
    pad = 4 - self.dim()
    sizes = [1] * pad + list(self.shape)
    strides = [0] * pad + list(self.stride())
    rows = sizes[0] * sizes[1] * sizes[2]
    grid = (rows, triton.cdiv(sizes[3], BLOCK_COLS))
    _fill_rows[grid](self, value_tensor if value_tensor is not None else self, sizes[3], sizes[1], sizes[2],
                     *strides, VALUE=value, FROM_TENSOR=value_tensor is not None, BLOCK_COLS=BLOCK_COLS)
    return self


def fill__Scalar(self, value):
    if self.dtype == torch.bool:
        value = bool(value)
    elif self.dtype.is_floating_point:
        value = float(value)
    else:
        value = int(value)
    return _launch(self, value, None)


def fill__Tensor(self, value):
    if value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")
    return _launch(self, 0, value)
