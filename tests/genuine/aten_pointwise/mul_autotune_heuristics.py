# op: aten::mul
# idiom: @triton.autotune (3 configs on GPU, 1 in the interpreter) stacked on @triton.heuristics EVEN; torch.broadcast_to(...).contiguous(); torch.promote_types; result written straight into a contiguous out=

from typing import Optional, Union

import torch
import triton
import triton.language as tl

if torch.cuda.is_available():
    _CONFIGS = [
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 2048}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 4096}, num_warps=8),
    ]
else:  # TRITON_INTERPRET=1: the interpreter has no benchmarker, so no tuning
    _CONFIGS = [triton.Config({"BLOCK_SIZE": 1024}, num_warps=4)]


@triton.autotune(configs=_CONFIGS, key=["n_elements", "HAS_Y"])
@triton.heuristics({"EVEN": lambda args: args["n_elements"] % args["BLOCK_SIZE"] == 0})
@triton.jit
def _mul_kernel(
    x_ptr, y_ptr, out_ptr, n_elements, scalar,
    HAS_Y: tl.constexpr, UPCAST: tl.constexpr, BLOCK_SIZE: tl.constexpr, EVEN: tl.constexpr,
):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    if EVEN:
        x = tl.load(x_ptr + offsets)
    else:
        x = tl.load(x_ptr + offsets, mask=mask)
    x = x.to(out_ptr.dtype.element_ty)
    if UPCAST:
        x = x.to(tl.float32)
    if HAS_Y:
        if EVEN:
            y = tl.load(y_ptr + offsets)
        else:
            y = tl.load(y_ptr + offsets, mask=mask)
        y = y.to(out_ptr.dtype.element_ty)
        if UPCAST:
            y = y.to(tl.float32)
        r = x * y
    else:
        r = x * scalar
    r = r.to(out_ptr.dtype.element_ty)
    if EVEN:
        tl.store(out_ptr + offsets, r)
    else:
        tl.store(out_ptr + offsets, r, mask=mask)


def _out_dtype(self: torch.Tensor, other: Union[torch.Tensor, float, int]) -> torch.dtype:
    if isinstance(other, torch.Tensor) and (self.dim() > 0) == (other.dim() > 0):
        return torch.promote_types(self.dtype, other.dtype)
    return torch.result_type(self, other)  # 0-d tensors and Python scalars do not lead


def _mul(self: torch.Tensor, other, out: Optional[torch.Tensor]) -> torch.Tensor:
    dtype = _out_dtype(self, other)
    has_y = isinstance(other, torch.Tensor)
    shape = torch.broadcast_shapes(self.shape, other.shape) if has_y else self.shape
    x = torch.broadcast_to(self, shape).contiguous()
    y = torch.broadcast_to(other, shape).contiguous() if has_y else x
    direct = out is not None and out.is_contiguous() and out.shape == shape
    result = out if direct else torch.empty(shape, dtype=dtype, device=self.device)
    n_elements = result.numel()
    if n_elements:
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        _mul_kernel[grid](
            x, y, result, n_elements, 0 if has_y else other,
            HAS_Y=has_y, UPCAST=dtype in (torch.float16, torch.bfloat16),
        )
    if out is None or direct:
        return result
    out.resize_(shape)
    out.copy_(result)
    return out


def mul_Tensor(self, other):
    return _mul(self, other, None)


def mul_Scalar(self, other):
    return _mul(self, other, None)


def mul_out(self, other, *, out):
    return _mul(self, other, out)


def mul_Scalar_out(self, other, *, out):
    return _mul(self, other, out)
