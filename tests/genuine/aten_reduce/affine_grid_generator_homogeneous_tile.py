# op: aten::affine_grid_generator
# idiom: theta.contiguous() on the host and theta.new_empty for the grid; a persistent grid-stride loop (tl.num_programs(0)) over flattened (batch, position) rows, each a [BLOCK, 4] homogeneous-coordinate tile (x, y, z, 1) multiplied by one theta row and reduced with tl.sum(axis=1); out= by out.copy_
"""affine_grid_generator as a batch of tiny matrix-vector products in homogeneous coordinates.

Every output position gets the vector (x, y, z, 1) (z = 0 and a zero theta column in 2-d), and
each of the 2 or 3 output channels is its dot product with one row of theta.
"""

import torch
import triton
import triton.language as tl

BLOCK = 512
MAX_PROGRAMS = 264


@triton.jit
def _linspace(i, steps, ALIGN: tl.constexpr):
    """ATen's linspace_from_neg_one: -1..1, shrunk by (steps - 1) / steps without align_corners."""
    fi = i.to(tl.float32)
    fs = (i * 0 + steps).to(tl.float32)  # a size of 1 arrives as a constexpr int on the GPU
    if ALIGN:
        v = -1.0 + 2.0 * fi / tl.maximum(fs - 1.0, 1.0)
    else:
        v = (2.0 * fi + 1.0) / fs - 1.0
    return tl.where(steps > 1, v, 0.0)


@triton.jit
def _grid_kernel(theta_ptr, out_ptr, total, D, H, W,
                 NDIM: tl.constexpr, ALIGN: tl.constexpr, BLOCK: tl.constexpr):
    per_batch = D * H * W
    cols = tl.arange(0, 4)[None, :]
    for start in range(tl.program_id(0) * BLOCK, total, tl.num_programs(0) * BLOCK):
        rows = start + tl.arange(0, BLOCK)
        valid = rows < total
        b = rows // per_batch
        pos = rows % per_batch
        x = _linspace(pos % W, W, ALIGN)
        y = _linspace((pos // W) % H, H, ALIGN)
        z = _linspace(pos // (W * H), D, ALIGN)
        if NDIM == 2:
            z = z * 0.0
        homog = tl.where(cols == 0, x[:, None], tl.where(cols == 1, y[:, None],
                         tl.where(cols == 2, z[:, None], 1.0)))
        for k in tl.static_range(NDIM):
            if NDIM == 2:  # theta row (a, b, c) read as (a, b, 0, c)
                src = tl.where(cols == 3, 2, cols)
                trow = tl.load(theta_ptr + b[:, None] * 6 + k * 3 + src,
                               mask=valid[:, None] & (cols != 2), other=0.0)
            else:
                trow = tl.load(theta_ptr + b[:, None] * 12 + k * 4 + cols, mask=valid[:, None], other=0.0)
            val = tl.sum(trow.to(tl.float32) * homog, axis=1)
            tl.store(out_ptr + rows * NDIM + k, val.to(out_ptr.dtype.element_ty), mask=valid)


def _affine_grid(theta, size, align_corners):
    ndim = len(size) - 2
    if ndim == 2:
        n, _, h, w = size
        d = 1
        grid = theta.new_empty((n, h, w, 2))
    else:
        n, _, d, h, w = size
        grid = theta.new_empty((n, d, h, w, 3))
    total = n * d * h * w
    if total > 0:
        t = theta.contiguous()
        programs = min(triton.cdiv(total, BLOCK), MAX_PROGRAMS)
        _grid_kernel[(programs,)](t, grid, total, d, h, w, NDIM=ndim, ALIGN=bool(align_corners), BLOCK=BLOCK)
    return grid


def affine_grid_generator(theta, size, align_corners):
    return _affine_grid(theta, size, align_corners)


def affine_grid_generator_out(theta, size, align_corners, *, out):
    out.copy_(_affine_grid(theta, size, align_corners))
    return out
