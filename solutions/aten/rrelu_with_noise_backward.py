"""aten::rrelu_with_noise_backward in Triton.

training: grad * noise (the noise the forward drew: its slope at x <= 0, 1 elsewhere), for any
lower and upper; otherwise the leaky-relu gradient with the mean slope (lower + upper) / 2: grad
where self > 0, grad * slope elsewhere. With self_is_result, self is the forward's result, which
has the input's sign for a positive slope, so the test is the same. Operands are broadcast and
made contiguous on the host; float32 math (float64 for float64), rounded once at the store.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def _rrelu_backward_kernel(g_ptr, v_ptr, out_ptr, n, slope,
                           TRAINING: tl.constexpr, COMPUTE: tl.constexpr, BLOCK: tl.constexpr):
    """v is the noise when training, else self."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    if TRAINING:
        result = g * v
    else:
        result = tl.where(v > 0, g, g * slope)
    tl.store(out_ptr + offs, result.to(out_ptr.dtype.element_ty), mask=mask)


def _operand(self, noise, training):
    return noise if training else self


def _launch(out, grad_output, self, noise, lower, upper, training):
    n = out.numel()
    if n == 0:
        return
    g = grad_output.expand(out.shape).contiguous()
    v = _operand(self, noise, training).expand(out.shape).contiguous()
    compute = tl.float64 if torch.float64 in (g.dtype, v.dtype, out.dtype) else tl.float32
    slope = (float(lower) + float(upper)) / 2
    _rrelu_backward_kernel[(triton.cdiv(n, BLOCK),)](
        g, v, out, n, slope, TRAINING=bool(training), COMPUTE=compute, BLOCK=BLOCK, num_warps=8)


def _shape_and_dtype(grad_output, self, noise, training):
    v = _operand(self, noise, training)
    return torch.broadcast_shapes(grad_output.shape, v.shape), torch.promote_types(grad_output.dtype, v.dtype)


def rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training, self_is_result):
    shape, dtype = _shape_and_dtype(grad_output, self, noise, training)
    out = torch.empty(shape, dtype=dtype, device=grad_output.device)
    _launch(out, grad_output, self, noise, lower, upper, training)
    return out


def rrelu_with_noise_backward_out(grad_output, self, noise, lower, upper, training, self_is_result, *, out):
    shape, _ = _shape_and_dtype(grad_output, self, noise, training)
    if out.shape != shape:
        out.resize_(shape)
    if out.is_contiguous():
        _launch(out, grad_output, self, noise, lower, upper, training)
    else:
        result = torch.empty(shape, dtype=out.dtype, device=out.device)
        _launch(result, grad_output, self, noise, lower, upper, training)
        out.copy_(result)
    return out
