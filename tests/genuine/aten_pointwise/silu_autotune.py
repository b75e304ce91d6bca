# op: aten::silu
# idiom: @triton.autotune over 3 configs keyed on n_elements (1 config in the interpreter, which has no benchmarker); torch.empty_like(x, memory_format=torch.contiguous_format); x.contiguous()

import torch
import triton
import triton.language as tl


# The Triton interpreter cannot time kernels, so it gets one config.
if torch.cuda.is_available():
    CONFIGS = [
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 2048}, num_warps=8),
        triton.Config({"BLOCK_SIZE": 4096}, num_warps=8),
    ]
else:
    CONFIGS = [triton.Config({"BLOCK_SIZE": 1024}, num_warps=4)]


@triton.autotune(configs=CONFIGS, key=["n_elements"])
@triton.jit
def silu_kernel(x_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    output = x * tl.sigmoid(x)
    tl.store(output_ptr + offsets, output.to(output_ptr.dtype.element_ty), mask=mask)


def _silu_contiguous(x, output):
    n_elements = output.numel()
    if n_elements == 0:
        return output
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    silu_kernel[grid](x, output, n_elements)
    return output


def silu(self):
    x = self.contiguous()
    output = torch.empty_like(x, memory_format=torch.contiguous_format)
    return _silu_contiguous(x, output)


def silu_out(self, *, out):
    x = self.contiguous()
    if out.is_contiguous():
        return _silu_contiguous(x, out)
    output = torch.empty_like(x, memory_format=torch.contiguous_format)
    out.copy_(_silu_contiguous(x, output))
    return out
