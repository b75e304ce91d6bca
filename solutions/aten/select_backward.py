"""aten::select_backward in Triton: zeros of `input_sizes` with grad_output at `index` of `dim`.

One pass writes the whole gradient: the output is viewed as (outer, size, inner) around `dim`,
and each element is the grad_output element below it when its position along `dim` is `index`,
else zero, so no separate fill runs. grad_output (outer, inner) is made contiguous on the host.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def _select_backward_kernel(g_ptr, out_ptr, n, size, inner, index, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // inner
    col = offs - row * inner
    outer = row // size
    hit = (row - outer * size) == index
    g = tl.load(g_ptr + outer * inner + col, mask=mask & hit, other=0.0)
    tl.store(out_ptr + offs, g.to(out_ptr.dtype.element_ty), mask=mask)


def _normalized(input_sizes, dim, index):
    sizes = [int(s) for s in input_sizes]
    if not sizes:
        raise IndexError("select_backward: input_sizes must have at least one dimension")
    if not -len(sizes) <= dim < len(sizes):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-len(sizes)}, {len(sizes) - 1}], "
                         f"but got {dim})")
    dim %= len(sizes)
    if not -sizes[dim] <= index < sizes[dim]:
        raise IndexError(f"select_backward: index {index} out of range for dimension {dim} of size {sizes[dim]}")
    return sizes, dim, index % sizes[dim]


def _launch(out, grad_output, sizes, dim, index):
    """out: contiguous, of `sizes`."""
    n = out.numel()
    if n == 0:
        return
    inner = 1
    for s in sizes[dim + 1:]:
        inner *= s
    g = grad_output.contiguous()
    _select_backward_kernel[(triton.cdiv(n, BLOCK),)](g, out, n, sizes[dim], inner, index, BLOCK=BLOCK, num_warps=8)


def select_backward(grad_output, input_sizes, dim, index):
    sizes, dim, index = _normalized(input_sizes, dim, index)
    out = torch.empty(sizes, dtype=grad_output.dtype, device=grad_output.device)
    _launch(out, grad_output, sizes, dim, index)
    return out


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    sizes, dim, index = _normalized(input_sizes, dim, index)
    if list(out.shape) != sizes:
        out.resize_(sizes)
    if out.is_contiguous():
        _launch(out, grad_output, sizes, dim, index)
    else:
        result = torch.empty(sizes, dtype=out.dtype, device=out.device)
        _launch(result, grad_output, sizes, dim, index)
        out.copy_(result)
    return out
