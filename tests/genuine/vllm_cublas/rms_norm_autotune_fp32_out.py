# op: vllm::rms_norm
# idiom: @triton.autotune (3 configs on GPU, 1 in the interpreter) + @triton.heuristics; strided rows; float32 result buffer cast into out with out.copy_(y32)

import torch
import triton
import triton.language as tl

# The interpreter has no benchmarker, so the autotuner gets a single config there.
_GPU_CONFIGS = [
    triton.Config({}, num_warps=4),
    triton.Config({}, num_warps=8),
    triton.Config({}, num_warps=16),
]
_CPU_CONFIGS = [triton.Config({}, num_warps=4)]
CONFIGS = _GPU_CONFIGS if torch.cuda.is_available() else _CPU_CONFIGS


@triton.autotune(configs=CONFIGS, key=["hidden"])
@triton.heuristics({"BLOCK_N": lambda args: triton.next_power_of_2(args["hidden"])})
@triton.jit
def rms_norm_fp32_kernel(
    x_ptr, w_ptr, y_ptr,
    stride_row, stride_col,
    hidden, eps,
    BLOCK_N: tl.constexpr,
):
    """One row per program; y is a contiguous float32 [rows, hidden] buffer."""
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < hidden
    x = tl.load(x_ptr + row * stride_row + offs.to(tl.int64) * stride_col, mask=mask, other=0.0)
    xf = x.to(tl.float32)
    variance = tl.sum(xf * xf, axis=0) / hidden
    r = 1.0 / tl.sqrt(variance + eps)
    # vLLM rounds x * r to the activation dtype before the weight multiply.
    normed = (xf * r).to(x.dtype).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * hidden + offs, normed * w, mask=mask)


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    hidden = input.size(-1)
    rows = input.numel() // hidden if hidden else 0
    if rows == 0:
        return
    x = input.reshape(rows, hidden)  # a view whenever the strides allow it
    y32 = torch.empty((rows, hidden), dtype=torch.float32, device=input.device)
    rms_norm_fp32_kernel[(rows,)](x, weight, y32, x.stride(0), x.stride(1), hidden, epsilon)
    out.copy_(y32.view(out.shape))
