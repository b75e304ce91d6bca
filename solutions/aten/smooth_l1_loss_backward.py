"""aten::smooth_l1_loss_backward in Triton: norm * grad * clamp((self - target) / beta, -1, 1).

norm is 1 / numel for reduction mean (1), else 1; beta = 0 is the L1 gradient, sign(self - target)
(with the ends taken in ATen's CPU order: d <= -beta gives -1 first). For mean and sum the
grad_output is 0-d: the kernel reads that one value instead of a broadcast copy. self and target
(and a full-shape grad_output) are made contiguous on the host; float32 math (float64 for
float64), rounded once at the store.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def _smooth_l1_backward_kernel(g_ptr, x_ptr, t_ptr, out_ptr, n, norm, inv_beta, beta,
                               G_SCALAR: tl.constexpr, COMPUTE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if G_SCALAR:
        g = tl.load(g_ptr).to(COMPUTE)
    else:
        g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    d = x - t
    slope = tl.where(d <= -beta, -1.0, tl.where(d >= beta, 1.0, d * inv_beta))
    result = norm * g * slope
    tl.store(out_ptr + offs, result.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(out, grad_output, self, target, reduction, beta):
    """out (contiguous, the broadcast shape) = the gradient."""
    n = out.numel()
    if n == 0:
        return
    g_scalar = grad_output.numel() == 1
    g = grad_output.reshape(1) if g_scalar else grad_output.expand(out.shape).contiguous()
    x = self.expand(out.shape).contiguous()
    t = target.expand(out.shape).contiguous()
    norm = 1.0 / self.numel() if reduction == 1 else 1.0
    compute = tl.float64 if torch.float64 in (g.dtype, x.dtype, t.dtype, out.dtype) else tl.float32
    _smooth_l1_backward_kernel[(triton.cdiv(n, BLOCK),)](
        g, x, t, out, n, norm, 1.0 / beta if beta > 0 else 0.0, float(beta),
        G_SCALAR=g_scalar, COMPUTE=compute, BLOCK=BLOCK, num_warps=8)


def _shape_and_dtype(grad_output, self, target):
    shape = torch.broadcast_shapes(grad_output.shape, self.shape, target.shape)
    dtype = torch.promote_types(torch.promote_types(grad_output.dtype, self.dtype), target.dtype)
    return shape, dtype


def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    shape, dtype = _shape_and_dtype(grad_output, self, target)
    out = torch.empty(shape, dtype=dtype, device=self.device)
    _launch(out, grad_output, self, target, reduction, beta)
    return out


def smooth_l1_loss_backward_grad_input(grad_output, self, target, reduction, beta, *, grad_input):
    shape, _ = _shape_and_dtype(grad_output, self, target)
    if grad_input.shape != shape:
        grad_input.resize_(shape)
    if grad_input.is_contiguous():
        _launch(grad_input, grad_output, self, target, reduction, beta)
    else:
        result = torch.empty(shape, dtype=grad_input.dtype, device=grad_input.device)
        _launch(result, grad_output, self, target, reduction, beta)
        grad_input.copy_(result)
    return grad_input
