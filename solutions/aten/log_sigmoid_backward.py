"""aten::log_sigmoid_backward in Triton: grad * sigmoid(-x), the gradient of log(sigmoid(x)).

`buffer` is what the forward saved: exp(-|x|) from ATen's CPU forward, an empty tensor from the
CUDA one. The kernel never reads it and recomputes z = exp(-|x|), as ATen's CUDA kernel does, so
the result is the same whichever forward ran: 1 / (1 + z) for x < 0, z / (1 + z) otherwise (no
overflow at either end). Elementwise over the broadcast shape of grad_output and self, made
contiguous on the host; float32 math (float64 for float64), rounded once at the store.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def _log_sigmoid_backward_kernel(g_ptr, x_ptr, out_ptr, n, COMPUTE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    z = tl.exp(-tl.abs(x))
    result = g * tl.where(x < 0, 1.0 / (1.0 + z), z / (1.0 + z))
    tl.store(out_ptr + offs, result.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(out, grad_output, self):
    """out (contiguous, the broadcast shape) = the gradient."""
    n = out.numel()
    if n == 0:
        return
    g = grad_output.expand(out.shape).contiguous()
    x = self.expand(out.shape).contiguous()
    compute = tl.float64 if torch.float64 in (g.dtype, x.dtype, out.dtype) else tl.float32
    _log_sigmoid_backward_kernel[(triton.cdiv(n, BLOCK),)](g, x, out, n, COMPUTE=compute, BLOCK=BLOCK, num_warps=8)


def log_sigmoid_backward(grad_output, self, buffer):
    shape = torch.broadcast_shapes(grad_output.shape, self.shape)
    out = torch.empty(shape, dtype=torch.promote_types(grad_output.dtype, self.dtype), device=self.device)
    _launch(out, grad_output, self)
    return out


def log_sigmoid_backward_grad_input(grad_output, self, buffer, *, grad_input):
    shape = torch.broadcast_shapes(grad_output.shape, self.shape)
    if grad_input.shape != shape:
        grad_input.resize_(shape)
    if grad_input.is_contiguous():
        _launch(grad_input, grad_output, self)
    else:
        result = torch.empty(shape, dtype=grad_input.dtype, device=grad_input.device)
        _launch(result, grad_output, self)
        grad_input.copy_(result)
    return grad_input
