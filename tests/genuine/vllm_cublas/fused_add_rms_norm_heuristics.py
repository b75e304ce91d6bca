# op: vllm::fused_add_rms_norm
# idiom: @triton.heuristics picks block / single-pass / warps; truly in place through row strides; two-pass chunked loop for wide rows (vLLM structure)

import torch
import triton
import triton.language as tl

MAX_BLOCK = 4096


def _block(args):
    return min(MAX_BLOCK, triton.next_power_of_2(args["hidden"]))


@triton.heuristics({
    "BLOCK": _block,
    "SINGLE_PASS": lambda args: _block(args) >= args["hidden"],
    "num_warps": lambda args: max(1, min(16, _block(args) // 256)),
})
@triton.jit
def _fused_add_rms_norm_kernel(
    in_ptr, res_ptr, w_ptr,
    in_row_stride, in_col_stride, res_row_stride,
    hidden, eps,
    BLOCK: tl.constexpr, SINGLE_PASS: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    in_row = in_ptr + row * in_row_stride
    res_row = res_ptr + row * res_row_stride
    offs = tl.arange(0, BLOCK)

    if SINGLE_PASS:
        m = offs < hidden
        a = tl.load(in_row + offs * in_col_stride, mask=m, other=0.0)
        b = tl.load(res_row + offs, mask=m, other=0.0)
        z = (a.to(tl.float32) + b.to(tl.float32)).to(a.dtype)
        tl.store(res_row + offs, z, mask=m)
        zf = z.to(tl.float32)
        rstd = tl.rsqrt(tl.sum(zf * zf, axis=0) / hidden + eps)
        w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
        out = (zf * rstd).to(a.dtype).to(tl.float32) * w
        tl.store(in_row + offs * in_col_stride, out.to(a.dtype), mask=m)
    else:
        # pass 1: residual <- input + residual, accumulate sum of squares
        sq = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, hidden, BLOCK):
            cols = start + offs
            m = cols < hidden
            a = tl.load(in_row + cols * in_col_stride, mask=m, other=0.0)
            b = tl.load(res_row + cols, mask=m, other=0.0)
            z = (a.to(tl.float32) + b.to(tl.float32)).to(a.dtype)
            tl.store(res_row + cols, z, mask=m)
            zf = z.to(tl.float32)
            sq += zf * zf
        rstd = tl.rsqrt(tl.sum(sq, axis=0) / hidden + eps)
        # pass 2: input <- rms_norm(residual) * weight
        for start in range(0, hidden, BLOCK):
            cols = start + offs
            m = cols < hidden
            z = tl.load(res_row + cols, mask=m, other=0.0)
            w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
            out = (z.to(tl.float32) * rstd).to(z.dtype).to(tl.float32) * w
            tl.store(in_row + cols * in_col_stride, out.to(z.dtype), mask=m)


def _launch(x: torch.Tensor, res: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    """x: a 2-D view of the input; res: a contiguous 2-D view of the residual."""
    rows, hidden = x.shape
    _fused_add_rms_norm_kernel[(rows,)](
        x, res, weight, x.stride(0), x.stride(1), res.stride(0), hidden, epsilon)


def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                       epsilon: float) -> None:
    hidden = input.shape[-1]
    if input.numel() == 0:
        return
    res2d = residual.view(-1, hidden)
    if input.dim() == 2:
        _launch(input, res2d, weight, epsilon)
    elif input.is_contiguous():
        _launch(input.view(-1, hidden), res2d, weight, epsilon)
    else:
        # rows that cannot be flattened into one stride: work on a contiguous copy, move it back
        tmp = input.contiguous()
        _launch(tmp.view(-1, hidden), res2d, weight, epsilon)
        input.copy_(tmp)
