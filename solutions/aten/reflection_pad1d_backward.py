"""aten::reflection_pad1d_backward in Triton: each input column sums the grad_output columns that
read it in the forward.

With padding (left, right), both smaller than the width W, output column o reads input column
|o - left| reflected once at either edge, so input column i is read by at most three output
columns: i + left itself, left - i (its mirror at the left edge, for 1 <= i <= left) and
left + 2 (W - 1) - i (its mirror at the right edge, when that column exists). A negative side
crops, and the same rules drop the columns it removes. Each program gathers those three for a
tile of (row, column) positions and writes every input column once: deterministic, no atomics.
grad_output is made contiguous on the host; sums are float32 (float64 for float64).
"""

import torch
import triton
import triton.language as tl

TILE = 2048  # elements per program


@triton.jit
def _reflection_pad1d_backward_kernel(g_ptr, out_ptr, n_rows, width, out_width, left,
                                      COMPUTE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(width, BLOCK_W)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % n_col_blocks) * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = (rows < n_rows)[:, None] & (cols < width)[None, :]
    g_rows = g_ptr + rows[:, None] * out_width
    i = cols[None, :]

    center = i + left
    acc = tl.load(g_rows + center, mask=mask & (center >= 0) & (center < out_width), other=0.0).to(COMPUTE)
    mirror_left = left - i
    acc += tl.load(g_rows + mirror_left, mask=mask & (i >= 1) & (mirror_left >= 0) & (mirror_left < out_width),
                   other=0.0).to(COMPUTE)
    mirror_right = left + 2 * (width - 1) - i
    acc += tl.load(g_rows + mirror_right, mask=mask & (i <= width - 2) & (mirror_right < out_width),
                   other=0.0).to(COMPUTE)
    tl.store(out_ptr + rows[:, None] * width + i, acc.to(out_ptr.dtype.element_ty), mask=mask)


def _check(grad_output, self, padding):
    if self.dim() not in (2, 3):
        raise RuntimeError(f"reflection_pad1d_backward: expected a 2-D or 3-D input, got {self.dim()}-D")
    left, right = (int(p) for p in padding)
    width = self.shape[-1]
    if left >= width or right >= width:
        raise RuntimeError(f"Padding size should be less than the corresponding input dimension, but got: "
                           f"padding ({left}, {right}) at dimension {self.dim() - 1} of input {list(self.shape)}")
    expected = list(self.shape[:-1]) + [width + left + right]
    if list(grad_output.shape) != expected:
        raise RuntimeError(f"reflection_pad1d_backward: grad_output of shape {expected} expected, got "
                           f"{list(grad_output.shape)}")
    return left, width


def _launch(out, grad_output, self, padding):
    """out: contiguous, of self's shape."""
    left, width = _check(grad_output, self, padding)
    if out.numel() == 0:
        return
    g = grad_output.contiguous()
    n_rows = out.numel() // width
    block_w = min(triton.next_power_of_2(width), 1024)
    block_r = min(triton.next_power_of_2(n_rows), max(1, TILE // block_w))
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(width, block_w),)
    compute = tl.float64 if out.dtype == torch.float64 else tl.float32
    _reflection_pad1d_backward_kernel[grid](g, out, n_rows, width, g.shape[-1], left,
                                            COMPUTE=compute, BLOCK_R=block_r, BLOCK_W=block_w, num_warps=8)


def reflection_pad1d_backward(grad_output, self, padding):
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    _launch(out, grad_output, self, padding)
    return out


def reflection_pad1d_backward_grad_input(grad_output, self, padding, *, grad_input):
    if grad_input.shape != self.shape:
        grad_input.resize_(self.shape)
    if grad_input.is_contiguous():
        _launch(grad_input, grad_output, self, padding)
    else:
        result = torch.empty(self.shape, dtype=grad_input.dtype, device=grad_input.device)
        _launch(result, grad_output, self, padding)
        grad_input.copy_(result)
    return grad_input
