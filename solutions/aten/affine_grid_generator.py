"""aten::affine_grid_generator in Triton: theta applied to normalised output coordinates.

For an output of size [N, C, H, W] (theta (N, 2, 3)) or [N, C, D, H, W] (theta (N, 3, 4)),
grid[n, (d,) h, w, k] = theta[n, k] . (x_w, y_h, (z_d,) 1), where a coordinate along a dim of
n points is (2 i - (n - 1)) / (n - 1) with align_corners (so -1 and 1 are the corner centres),
(2 i - (n - 1)) / n without, and 0 when n == 1, as ATen's linspace_from_neg_one makes them.
A 2-d grid: batch along axis 1, BLOCK output positions along axis 0; float32 math, rounded once
at the store.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _coord(i, n, ALIGN: tl.constexpr):
    size = i * 0 + n  # a tensor even where n is a constexpr (Triton specialises an argument of 1)
    num = (2 * i - (size - 1)).to(tl.float32)
    if ALIGN:
        den = tl.maximum(size - 1, 1).to(tl.float32)
    else:
        den = size.to(tl.float32)
    return tl.where(size > 1, num / den, 0.0)


@triton.jit
def _affine_grid_kernel(
    theta_ptr, out_ptr, D, H, W, t_sn, t_sk, t_sj,
    SPATIAL: tl.constexpr, ALIGN: tl.constexpr, BLOCK: tl.constexpr,
):
    n = tl.program_id(1)
    positions = D * H * W
    p = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = p < positions
    x = _coord(p % W, W, ALIGN)
    y = _coord((p // W) % H, H, ALIGN)
    z = _coord(p // (W * H), D, ALIGN)
    theta = theta_ptr + n.to(tl.int64) * t_sn
    row = out_ptr + (n.to(tl.int64) * positions + p) * SPATIAL
    for k in tl.static_range(SPATIAL):
        t = theta + k * t_sk
        v = tl.load(t).to(tl.float32) * x + tl.load(t + t_sj).to(tl.float32) * y
        if SPATIAL == 3:
            v += tl.load(t + 2 * t_sj).to(tl.float32) * z
        v += tl.load(t + SPATIAL * t_sj).to(tl.float32)
        tl.store(row + k, v.to(out_ptr.dtype.element_ty), mask=mask)


def _grid_into(theta, size, align_corners, out):
    spatial = len(size) - 2
    if spatial not in (2, 3) or tuple(theta.shape) != (size[0], spatial, spatial + 1):
        raise RuntimeError(f"affine_grid_generator: theta {tuple(theta.shape)} does not fit size {list(size)}")
    d, h, w = ([1] + list(size[2:]))[-3:] if spatial == 2 else size[2:]
    positions = d * h * w
    direct = out.is_contiguous()
    dest = out if direct else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    if size[0] and positions:
        _affine_grid_kernel[(triton.cdiv(positions, BLOCK), size[0])](
            theta, dest, d, h, w, *theta.stride(),
            SPATIAL=spatial, ALIGN=bool(align_corners), BLOCK=BLOCK,
        )
    if not direct:
        out.copy_(dest)
    return out


def affine_grid_generator(theta, size, align_corners):
    shape = (size[0], *size[2:], len(size) - 2)
    out = torch.empty(shape, dtype=theta.dtype, device=theta.device)
    return _grid_into(theta, size, align_corners, out)


def affine_grid_generator_out(theta, size, align_corners, *, out):
    return _grid_into(theta, size, align_corners, out)
