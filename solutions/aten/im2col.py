"""aten::im2col in Triton: (N, C, H, W) -> (N, C*kh*kw, L) sliding blocks (torch.nn.Unfold).

out[n, (c*kh + i)*kw + j, y*ow + x] = self[n, c, y*sh - ph + i*dh, x*sw - pw + j*dw], zero where
that position falls in the padding. A 2-d grid: one output row (n, c, i, j) per program along
axis 0, BLOCK output positions along axis 1; the input is read through its own strides, so no
layout needs a copy. An unbatched (C, H, W) input is handled as a batch of one.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _im2col_kernel(
    x_ptr, out_ptr, C, H, W, ow, L,
    sn, sc, sh_, sw_,
    KH: tl.constexpr, KW: tl.constexpr, DH: tl.constexpr, DW: tl.constexpr,
    PH: tl.constexpr, PW: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr, BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    j = row % KW
    i = (row // KW) % KH
    c = (row // (KW * KH)) % C
    n = row // (KW * KH * C)
    pos = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    pos_mask = pos < L
    y = (pos // ow) * SH - PH + i * DH
    x = (pos % ow) * SW - PW + j * DW
    inside = pos_mask & (y >= 0) & (y < H) & (x >= 0) & (x < W)
    src = x_ptr + n.to(tl.int64) * sn + c.to(tl.int64) * sc + y * sh_ + x * sw_
    vals = tl.load(src, mask=inside, other=0.0)
    tl.store(out_ptr + row.to(tl.int64) * L + pos, vals, mask=pos_mask)


def _positions(h, w, kernel_size, dilation, padding, stride):
    """The output grid (oh, ow); ATen raises when the kernel does not fit the padded input."""
    oh = (h + 2 * padding[0] - (dilation[0] * (kernel_size[0] - 1) + 1)) // stride[0] + 1
    ow = (w + 2 * padding[1] - (dilation[1] * (kernel_size[1] - 1) + 1)) // stride[1] + 1
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"im2col: the kernel does not fit the padded input ({h}x{w})")
    return oh, ow


def _im2col_into(x, kernel_size, dilation, padding, stride, out):
    if x.dim() == 3:
        x = x.unsqueeze(0)
    n, c, h, w = x.shape
    oh, ow = _positions(h, w, kernel_size, dilation, padding, stride)
    kh, kw = kernel_size
    rows, length = n * c * kh * kw, oh * ow
    shape = (n, c * kh * kw, length)
    direct = out.is_contiguous()
    dest = out.view(shape) if direct else torch.empty(shape, dtype=out.dtype, device=out.device)
    if rows:
        block = min(triton.next_power_of_2(length), 1024)
        _im2col_kernel[(rows, triton.cdiv(length, block))](
            x, dest, c, h, w, ow, length, *x.stride(),
            KH=kh, KW=kw, DH=dilation[0], DW=dilation[1], PH=padding[0], PW=padding[1],
            SH=stride[0], SW=stride[1], BLOCK=block, num_warps=4 if block >= 512 else 2,
        )
    if not direct:
        out.copy_(dest.view(out.shape))
    return out


def im2col(self, kernel_size, dilation, padding, stride):
    oh, ow = _positions(*self.shape[-2:], kernel_size, dilation, padding, stride)
    cols = (self.shape[-3] * kernel_size[0] * kernel_size[1], oh * ow)
    out = torch.empty(self.shape[:-3] + cols, dtype=self.dtype, device=self.device)
    return _im2col_into(self, kernel_size, dilation, padding, stride, out)


def im2col_out(self, kernel_size, dilation, padding, stride, *, out):
    return _im2col_into(self, kernel_size, dilation, padding, stride, out)
