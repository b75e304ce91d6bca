"""aten::select_backward in Triton: zeros of `input_sizes` with grad_output at `index` of `dim`.

One pass writes the whole gradient, so no separate fill runs: the output is viewed as a 2-D
(outer, size * inner) matrix around `dim`, in which the selected slice of each row is the column
range [index * inner, (index + 1) * inner); columns there take grad_output (outer, inner), made
contiguous on the host, and every other column zero. Tiles of that matrix need no division.
"""

import torch
import triton
import triton.language as tl

TILE = 4096  # elements per program


@triton.jit
def _select_backward_kernel(g_ptr, out_ptr, outer, n_cols, inner, index,
                            BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_C)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % n_col_blocks).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows < outer)[:, None] & (cols < n_cols)[None, :]
    start = index * inner
    hit = (cols >= start) & (cols < start + inner)
    g = tl.load(g_ptr + rows[:, None] * inner + (cols - start)[None, :], mask=mask & hit[None, :], other=0.0)
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], g.to(out_ptr.dtype.element_ty), mask=mask)


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
    if out.numel() == 0:
        return
    inner = 1
    for s in sizes[dim + 1:]:
        inner *= s
    n_cols = sizes[dim] * inner
    outer = out.numel() // n_cols
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(outer), TILE // block_c)
    grid = (triton.cdiv(outer, block_r) * triton.cdiv(n_cols, block_c),)
    g = grad_output.contiguous()
    _select_backward_kernel[grid](g, out, outer, n_cols, inner, index, BLOCK_R=block_r, BLOCK_C=block_c,
                                  num_warps=8)


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
