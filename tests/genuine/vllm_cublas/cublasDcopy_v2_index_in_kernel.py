# op: cublas::cublasDcopy_v2
# idiom: negative increments resolved inside the kernel with tl.where (no host start offsets); 2-D launch grid of row tiles

"""dcopy where the kernel, not the host, maps logical element k to its storage index."""

from typing import Optional

import torch
import triton
import triton.language as tl

COLS = 256


@triton.jit
def _dcopy_tiles(src, dst, count, inc_src, inc_dst, COLS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    part = tl.program_id(1).to(tl.int64)
    k = (row * tl.num_programs(1) + part) * COLS + tl.arange(0, COLS)
    live = k < count
    # reference BLAS: with a negative increment, logical element k sits at (count-1-k)*|inc|
    s = tl.where(inc_src > 0, k * inc_src, (count - 1 - k) * (-inc_src))
    d = tl.where(inc_dst > 0, k * inc_dst, (count - 1 - k) * (-inc_dst))
    tl.store(dst + d, tl.load(src + s, mask=live), mask=live)


def cublasDcopy_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                   cols: Optional[int] = None) -> None:
    if n <= 0:
        return
    width = cols or COLS
    tiles = triton.cdiv(n, width)
    parts = 4 if tiles >= 4 else 1
    _dcopy_tiles[(triton.cdiv(tiles, parts), parts)](x, y, n, incx, incy, COLS=width)
