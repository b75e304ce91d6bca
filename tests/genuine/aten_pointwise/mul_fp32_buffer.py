# op: aten::mul
# idiom: broadcasting by .expand(shape).contiguous(), torch.result_type; kernel multiplies into a float32 buffer, host casts it into the result with out.copy_(y32)

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 2048
_TL_DTYPES = {
    torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
    torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8, torch.int16: tl.int16,
    torch.int32: tl.int32, torch.int64: tl.int64, torch.bool: tl.int1,
}


@triton.jit
def mul_kernel(x_ptr, y_ptr, z_ptr, n_elements, RESULT: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    # operands are first rounded to the result dtype, as ATen does, then widened
    x = tl.load(x_ptr + offsets, mask=mask).to(RESULT).to(z_ptr.dtype.element_ty)
    y = tl.load(y_ptr + offsets, mask=mask).to(RESULT).to(z_ptr.dtype.element_ty)
    tl.store(z_ptr + offsets, x * y, mask=mask)


@triton.jit
def mul_scalar_kernel(x_ptr, z_ptr, n_elements, scalar, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(z_ptr.dtype.element_ty)
    tl.store(z_ptr + offsets, x * scalar, mask=mask)


def _accumulator_dtype(dtype):
    # half types are multiplied in float32 and rounded once, like ATen's opmath
    if dtype in (torch.float16, torch.bfloat16, torch.float32):
        return torch.float32
    return dtype


def _mul_buffer(self, other):
    """(buffer in the accumulator dtype, result dtype)."""
    result_dtype = torch.result_type(self, other)
    if isinstance(other, torch.Tensor):
        shape = torch.broadcast_shapes(self.shape, other.shape)
        x = self.expand(shape).contiguous()
        y = other.expand(shape).contiguous()
    else:
        shape = self.shape
        x = self.contiguous()
        y = None
    z = torch.empty(shape, dtype=_accumulator_dtype(result_dtype), device=self.device)
    n = z.numel()
    if n > 0:
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        if y is None:
            mul_scalar_kernel[grid](x, z, n, other, BLOCK_SIZE=BLOCK_SIZE)
        else:
            mul_kernel[grid](x, y, z, n, RESULT=_TL_DTYPES[result_dtype], BLOCK_SIZE=BLOCK_SIZE)
    return z, result_dtype


def mul_Tensor(self, other):
    z, dtype = _mul_buffer(self, other)
    result = torch.empty(z.shape, dtype=dtype, device=z.device)
    result.copy_(z)
    return result


def mul_Scalar(self, other):
    return mul_Tensor(self, other)


def mul_out(self, other, *, out):
    z, _ = _mul_buffer(self, other)
    out.copy_(z)
    return out


def mul_Scalar_out(self, other, *, out):
    return mul_out(self, other, out=out)
