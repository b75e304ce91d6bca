"""aten::softplus_backward in Triton: grad * sigmoid(beta x), and grad itself where x * beta > threshold.

Elementwise over the broadcast shape of grad_output and self. The host makes both contiguous (a
no-op for the usual activations) so one flat kernel serves every layout; it computes in float32
(float64 for float64) and rounds once at the store. sigmoid is 1 / (1 + exp(-z)), which stays
finite at both ends where exp(z) / (exp(z) + 1) would give inf / inf.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def _softplus_backward_kernel(g_ptr, x_ptr, out_ptr, n, beta, threshold,
                              COMPUTE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    z = x * beta
    sig = 1.0 / (1.0 + tl.exp(-z))
    result = tl.where(z > threshold, g, g * sig)
    tl.store(out_ptr + offs, result.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(out, grad_output, self, beta, threshold):
    """out (contiguous, the broadcast shape) = the gradient."""
    n = out.numel()
    if n == 0:
        return
    g = grad_output.expand(out.shape).contiguous()
    x = self.expand(out.shape).contiguous()
    compute = tl.float64 if torch.float64 in (g.dtype, x.dtype, out.dtype) else tl.float32
    _softplus_backward_kernel[(triton.cdiv(n, BLOCK),)](
        g, x, out, n, float(beta), float(threshold), COMPUTE=compute, BLOCK=BLOCK, num_warps=8)


def softplus_backward(grad_output, self, beta, threshold):
    shape = torch.broadcast_shapes(grad_output.shape, self.shape)
    out = torch.empty(shape, dtype=torch.promote_types(grad_output.dtype, self.dtype), device=self.device)
    _launch(out, grad_output, self, beta, threshold)
    return out


def softplus_backward_grad_input(grad_output, self, beta, threshold, *, grad_input):
    shape = torch.broadcast_shapes(grad_output.shape, self.shape)
    if grad_input.shape != shape:
        grad_input.resize_(shape)
    if grad_input.is_contiguous():
        _launch(grad_input, grad_output, self, beta, threshold)
    else:
        result = torch.empty(shape, dtype=grad_input.dtype, device=grad_input.device)
        _launch(result, grad_output, self, beta, threshold)
        grad_input.copy_(result)
    return grad_input
