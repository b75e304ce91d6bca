# op: aten::rsqrt
# idiom: strided N-D kernel (input and output strides passed, no host copy of non-contiguous input), 2-D launch grid, type hints

"""rsqrt over arbitrary strided tensors.

Tensors of up to four dimensions are read and written through their own strides, so
transposed, sliced and expanded (stride-0) inputs need no ``contiguous()`` copy. The launch
grid is 2-D: axis 0 walks blocks of rows (all but the last dimension, unravelled in the
kernel), axis 1 walks blocks of the last dimension.
"""

from typing import List, Optional, Tuple

import torch
import triton
import triton.language as tl

MAX_RANK = 4
TILE_ELEMS = 4096
MAX_BLOCK_C = 1024


@triton.jit
def _rsqrt_nd_kernel(
    x_ptr, y_ptr,
    n_rows, n_cols, size1, size2,
    sx0, sx1, sx2, sx3,
    sy0, sy1, sy2, sy3,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r.to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    cols = pid_c.to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)

    # row -> (i0, i1, i2) of the leading three dimensions
    i2 = rows % size2
    rest = rows // size2
    i1 = rest % size1
    i0 = rest // size1

    x_offs = (i0 * sx0 + i1 * sx1 + i2 * sx2)[:, None] + (cols * sx3)[None, :]
    y_offs = (i0 * sy0 + i1 * sy1 + i2 * sy2)[:, None] + (cols * sy3)[None, :]
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]

    x = tl.load(x_ptr + x_offs, mask=mask, other=1.0).to(tl.float32)
    y = 1.0 / tl.sqrt(x)
    tl.store(y_ptr + y_offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def _padded(t: torch.Tensor) -> Tuple[List[int], List[int]]:
    pad = MAX_RANK - t.dim()
    return [1] * pad + list(t.shape), [0] * pad + list(t.stride())


def _launch(x: torch.Tensor, y: torch.Tensor) -> None:
    """y[...] = rsqrt(x[...]); x and y have the same shape and at most MAX_RANK dims."""
    if x.numel() == 0:
        return
    shape, sx = _padded(x)
    _, sy = _padded(y)
    n_rows = shape[0] * shape[1] * shape[2]
    n_cols = shape[3]
    block_c = min(triton.next_power_of_2(n_cols), MAX_BLOCK_C)
    block_r = min(triton.next_power_of_2(n_rows), max(TILE_ELEMS // block_c, 1))
    grid = (triton.cdiv(n_rows, block_r), triton.cdiv(n_cols, block_c))
    _rsqrt_nd_kernel[grid](
        x, y, n_rows, n_cols, shape[1], shape[2],
        *sx, *sy,
        BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _rsqrt_into(self: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(self, memory_format=torch.contiguous_format)
    if self.dim() <= MAX_RANK:
        _launch(self, out)
        return out
    # high-rank input: go through a contiguous 2-D view, then move into `out`
    x2 = self.contiguous().reshape(-1, self.shape[-1])
    y2 = torch.empty(x2.shape, dtype=out.dtype, device=out.device)
    _launch(x2, y2)
    out.copy_(y2.view(out.shape))
    return out


def rsqrt(self: torch.Tensor) -> torch.Tensor:
    return _rsqrt_into(self)


def rsqrt_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return _rsqrt_into(self, out)
