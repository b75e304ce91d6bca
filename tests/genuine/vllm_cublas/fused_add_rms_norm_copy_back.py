# op: vllm::fused_add_rms_norm
# idiom: kernel writes fresh z / y tensors, host copies them back (residual.copy_(z); input.copy_(y)); libdevice.rsqrt on GPU; input.reshape(-1, hidden)

"""fused_add_rms_norm computed out of place, then copied into the in-place outputs.

The kernel never writes `input` or `residual`: it produces the new residual `z` and the
normalised `y` in freshly allocated row-major buffers, and the host moves them back with
`copy_`. On a GPU the reciprocal square root comes from libdevice (`__nv_rsqrtf`); the CPU
interpreter cannot call extern libraries, so there it uses `tl.rsqrt`.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _add_norm_kernel(x_ptr, r_ptr, w_ptr, z_ptr, y_ptr,
                     x_row_stride, r_row_stride, hidden, eps,
                     BLOCK: tl.constexpr, USE_LIBDEVICE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < hidden
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0)
    r = tl.load(r_ptr + row * r_row_stride + cols, mask=mask, other=0.0)
    z = (x.to(tl.float32) + r.to(tl.float32)).to(x.dtype)
    tl.store(z_ptr + row * hidden + cols, z, mask=mask)

    zf = z.to(tl.float32)
    mean_sq = tl.sum(zf * zf, axis=0) / hidden
    if USE_LIBDEVICE:
        inv = libdevice.rsqrt(mean_sq + eps)
    else:
        inv = tl.rsqrt(mean_sq + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = (zf * inv).to(x.dtype).to(tl.float32) * w
    tl.store(y_ptr + row * hidden + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def _warps(block: int) -> int:
    return max(1, min(16, block // 512))


def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                       epsilon: float) -> None:
    hidden = input.shape[-1]
    if input.numel() == 0:
        return
    x = input.reshape(-1, hidden)
    if x.stride(-1) != 1:
        x = x.contiguous()
    r = residual.reshape(-1, hidden)
    if r.stride(-1) != 1:
        r = r.contiguous()
    rows = x.shape[0]

    z = torch.empty((rows, hidden), dtype=residual.dtype, device=residual.device)
    y = torch.empty((rows, hidden), dtype=input.dtype, device=input.device)
    block = triton.next_power_of_2(hidden)
    _add_norm_kernel[(rows,)](x, r, weight, z, y, x.stride(0), r.stride(0), hidden, epsilon,
                              BLOCK=block, USE_LIBDEVICE=input.is_cuda, num_warps=_warps(block))
    residual.copy_(z.view(residual.shape))
    input.copy_(y.view(input.shape))
