# op: aten::rsqrt
# idiom: functional kernel, then out.resize_() and out.copy_() into the out= buffer

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def rsqrt_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.rsqrt(x.to(tl.float32))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def rsqrt(self):
    x = self.contiguous()
    y = torch.empty_like(x)
    n_elements = x.numel()
    if n_elements > 0:
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        rsqrt_kernel[grid](x, y, n_elements, BLOCK_SIZE=BLOCK)
    return y


def rsqrt_out(self, *, out):
    y = rsqrt(self)
    out.resize_(y.shape)
    out.copy_(y)
    return out
