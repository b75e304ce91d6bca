"""aten::upsample_nearest2d_backward in Triton: each input pixel sums the grad_output pixels whose
nearest source it is.

The forward reads, for output row h, input row min(floor(h * s), H - 1) in float32, with
s = 1 / scales_h when a scale is given and H / OH otherwise (1 and 1/2 exactly when OH is H or
2H, as ATen's CPU kernel special-cases); likewise for columns. That map is monotone, so the output
rows of input row i are one run [first(i), first(i + 1)), first(k) being the first output row whose
source is >= k. Each program takes a tile of input pixels of one (n, c) plane, finds the runs of
its rows and columns by binary search on that very float32 map (so the pixels match the forward's
bit for bit, for any scale), and sums the run's grad_output pixels: deterministic, no atomics.
grad_output is made contiguous on the host; sums are float32 (float64 for float64).
"""

import torch
import triton
import triton.language as tl

TILE = 2048  # input pixels per program


@triton.jit
def _source(o, scale, in_size):
    """The input index output index o reads: min(floor(o * scale), in_size - 1), in float32."""
    return tl.minimum(tl.floor(o.to(tl.float32) * scale).to(tl.int32), in_size - 1)


@triton.jit
def _first(k, scale, in_size, out_size, STEPS: tl.constexpr):
    """The first output index whose source is >= k (out_size if none): a binary search over
    [0, out_size], elementwise over k."""
    lo = tl.zeros_like(k)
    hi = tl.zeros_like(k) + out_size
    for _ in tl.static_range(STEPS):
        active = lo < hi
        mid = (lo + hi) // 2
        right = _source(mid, scale, in_size) >= k
        hi = tl.where(active & right, mid, hi)
        lo = tl.where(active & ~right, mid + 1, lo)
    return lo


@triton.jit
def _upsample_nearest2d_backward_kernel(
    g_ptr, out_ptr, in_h, in_w, out_h, out_w, scale_h, scale_w,
    COMPUTE: tl.constexpr, STEPS_H: tl.constexpr, STEPS_W: tl.constexpr,
    BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr,
):
    pid = tl.program_id(0)
    n_w_blocks = tl.cdiv(in_w, BLOCK_W)
    n_h_blocks = tl.cdiv(in_h, BLOCK_H)
    plane = (pid // (n_w_blocks * n_h_blocks)).to(tl.int64)
    hb = (pid // n_w_blocks) % n_h_blocks
    wb = pid % n_w_blocks
    ih = hb * BLOCK_H + tl.arange(0, BLOCK_H)
    iw = wb * BLOCK_W + tl.arange(0, BLOCK_W)
    mask_h = ih < in_h
    mask_w = iw < in_w

    h0 = _first(ih, scale_h, in_h, out_h, STEPS_H)
    h_count = tl.where(mask_h, _first(ih + 1, scale_h, in_h, out_h, STEPS_H) - h0, 0)
    w0 = _first(iw, scale_w, in_w, out_w, STEPS_W)
    w_count = tl.where(mask_w, _first(iw + 1, scale_w, in_w, out_w, STEPS_W) - w0, 0)

    g_plane = g_ptr + plane * out_h * out_w
    acc = tl.zeros([BLOCK_H, BLOCK_W], COMPUTE)
    for dh in range(0, tl.max(h_count, axis=0)):
        row_ok = dh < h_count
        g_row = g_plane + ((h0 + dh).to(tl.int64) * out_w)[:, None]
        for dw in range(0, tl.max(w_count, axis=0)):
            ok = row_ok[:, None] & (dw < w_count)[None, :]
            acc += tl.load(g_row + (w0 + dw)[None, :], mask=ok, other=0.0).to(COMPUTE)

    out_offs = plane * in_h * in_w + ih.to(tl.int64)[:, None] * in_w + iw[None, :]
    tl.store(out_ptr + out_offs, acc.to(out_ptr.dtype.element_ty), mask=mask_h[:, None] & mask_w[None, :])


def _scale(in_size, out_size, scale):
    """The float32 factor ATen's forward multiplies an output index by."""
    if out_size == in_size:
        return 1.0
    if out_size == 2 * in_size:
        return 0.5
    if scale is not None and scale > 0:
        return 1.0 / scale
    return in_size / out_size


def _launch(out, grad_output, output_size, input_size, scales_h, scales_w):
    """out: contiguous, of input_size."""
    if len(output_size) != 2 or len(input_size) != 4:
        raise RuntimeError("upsample_nearest2d_backward: output_size needs 2 elements and input_size 4")
    n, c, in_h, in_w = (int(s) for s in input_size)
    out_h, out_w = (int(s) for s in output_size)
    if list(grad_output.shape) != [n, c, out_h, out_w]:
        raise RuntimeError(f"upsample_nearest2d_backward: grad_output of shape {[n, c, out_h, out_w]} expected, "
                           f"got {list(grad_output.shape)}")
    if out.numel() == 0:
        return
    g = grad_output.contiguous()
    block_w = min(triton.next_power_of_2(in_w), 128)
    block_h = min(triton.next_power_of_2(in_h), max(1, TILE // block_w))
    grid = (n * c * triton.cdiv(in_h, block_h) * triton.cdiv(in_w, block_w),)
    compute = tl.float64 if out.dtype == torch.float64 else tl.float32
    _upsample_nearest2d_backward_kernel[grid](
        g, out, in_h, in_w, out_h, out_w, _scale(in_h, out_h, scales_h), _scale(in_w, out_w, scales_w),
        COMPUTE=compute, STEPS_H=out_h.bit_length() + 1, STEPS_W=out_w.bit_length() + 1,
        BLOCK_H=block_h, BLOCK_W=block_w, num_warps=8)


def upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h=None, scales_w=None):
    out = torch.empty([int(s) for s in input_size], dtype=grad_output.dtype, device=grad_output.device)
    _launch(out, grad_output, output_size, input_size, scales_h, scales_w)
    return out


def upsample_nearest2d_backward_grad_input(grad_output, output_size, input_size, scales_h=None, scales_w=None, *,
                                           grad_input):
    sizes = [int(s) for s in input_size]
    if list(grad_input.shape) != sizes:
        grad_input.resize_(sizes)
    if grad_input.is_contiguous():
        _launch(grad_input, grad_output, output_size, input_size, scales_h, scales_w)
    else:
        result = torch.empty(sizes, dtype=grad_input.dtype, device=grad_input.device)
        _launch(result, grad_output, output_size, input_size, scales_h, scales_w)
        grad_input.copy_(result)
    return grad_input
