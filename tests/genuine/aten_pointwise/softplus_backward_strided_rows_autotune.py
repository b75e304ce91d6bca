# op: aten::softplus_backward
# idiom: inputs viewed as (rows, last dim) with their own strides (no contiguous copy for 2-D transposed ones), a 2-D launch grid (tl.program_id(1)), @triton.autotune over tile shapes (1 config in the interpreter), tl.sigmoid, out= through a temporary and out.copy_

import torch
import triton
import triton.language as tl

if torch.cuda.is_available():
    TILES = [
        triton.Config({"BLOCK_M": 8, "BLOCK_N": 256}, num_warps=4),
        triton.Config({"BLOCK_M": 4, "BLOCK_N": 1024}, num_warps=8),
        triton.Config({"BLOCK_M": 16, "BLOCK_N": 128}, num_warps=4),
    ]
else:
    TILES = [triton.Config({"BLOCK_M": 8, "BLOCK_N": 64}, num_warps=4)]


@triton.autotune(configs=TILES, key=["M", "N"])
@triton.jit
def softplus_bwd_kernel(dy_ptr, x_ptr, dx_ptr, M, N,
                        stride_dym, stride_dyn, stride_xm, stride_xn, stride_dxm,
                        beta, threshold, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    m = (rm < M)[:, None] & (rn < N)[None, :]
    rm64 = rm.to(tl.int64)[:, None]
    dy = tl.load(dy_ptr + rm64 * stride_dym + rn[None, :] * stride_dyn, mask=m, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rm64 * stride_xm + rn[None, :] * stride_xn, mask=m, other=0.0).to(tl.float32)
    bx = x * beta
    # above the threshold softplus is the identity, so the gradient passes through
    dx = tl.where(bx > threshold, dy, dy * tl.sigmoid(bx))
    tl.store(dx_ptr + rm64 * stride_dxm + rn[None, :], dx.to(dx_ptr.dtype.element_ty), mask=m)


def _rows(t, shape):
    t = t.expand(shape)
    return t.reshape(1, 1) if len(shape) == 0 else t.reshape(-1, shape[-1])


def softplus_backward(grad_output, self, beta, threshold):
    shape = torch.broadcast_shapes(grad_output.shape, self.shape)
    grad_input = torch.empty(shape, dtype=self.dtype, device=self.device)
    if grad_input.numel() == 0:
        return grad_input
    dy, x = _rows(grad_output, shape), _rows(self, shape)
    dx = grad_input.view(x.shape)
    M, N = x.shape
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))  # noqa: E731
    softplus_bwd_kernel[grid](dy, x, dx, M, N, dy.stride(0), dy.stride(1), x.stride(0), x.stride(1),
                              dx.stride(0), float(beta), float(threshold))
    return grad_input


def softplus_backward_grad_input(grad_output, self, beta, threshold, *, grad_input):
    result = softplus_backward(grad_output, self, beta, threshold)
    grad_input.resize_(result.shape)
    grad_input.copy_(result)
    return grad_input


if __name__ == "__main__":
    for shape in ((), (7,), (33, 65), (3, 5, 17)):
        x = torch.randn(shape) * 4
        g = torch.randn(shape)
        for beta, threshold in ((1.0, 20.0), (2.0, 1.0)):
            want = torch.ops.aten.softplus_backward(g, x, beta, threshold)
            torch.testing.assert_close(softplus_backward(g, x, beta, threshold), want)
    print("ok")
