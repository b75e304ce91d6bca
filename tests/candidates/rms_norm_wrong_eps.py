"""A genuine RMSNorm kernel with a small real bug: epsilon 1e-3 instead of the one passed in."""
import triton
import triton.language as tl


@triton.jit
def _rms_norm(x_ptr, w_ptr, o_ptr, hidden, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < hidden
    x = tl.load(x_ptr + row * hidden + cols, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / hidden + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    y = (x * inv).to(o_ptr.dtype.element_ty) * w
    tl.store(o_ptr + row * hidden + cols, y, mask=mask)


def rms_norm(out, input, weight, epsilon):
    x = input.contiguous()
    hidden = x.shape[-1]
    rows = x.numel() // hidden
    _rms_norm[(rows,)](x, weight, out, hidden, 1e-3, BLOCK=triton.next_power_of_2(hidden))
