"""vllm::hadacore_transform in Triton: y = x @ H / sqrt(n) per row, H the Sylvester Hadamard matrix.

The transform factors as H_n = H_a (x) H_L, so a row of n = a * L splits into butterflies along
"lines": L elements S apart. One kernel transforms a tile of lines in registers (log2 L butterfly
stages in float32); rows up to 16384 take one pass, longer rows a second pass across the
16384-element blocks through a float32 buffer, so the dtype is rounded once at the end.
"""

import math

import torch
import triton
import triton.language as tl

MAX_LINE = 16384
TILE = 4096  # elements per program, unless one line is longer


@triton.jit
def _hadamard_lines_kernel(src_ptr, dst_ptr, num_lines, lines_per_row, n, S, scale,
                           L: tl.constexpr, LOG_L: tl.constexpr, BLOCK_LINES: tl.constexpr):
    # line g of a row holds elements hi * L * S + j * S + lo (j < L), lo = g % S, hi = g // S
    g = tl.program_id(0).to(tl.int64) * BLOCK_LINES + tl.arange(0, BLOCK_LINES)
    row = g // lines_per_row
    rem = g % lines_per_row
    base = row * n + (rem // S) * (L * S) + rem % S
    offs = base[:, None] + tl.arange(0, L)[None, :].to(tl.int64) * S
    mask = (g < num_lines)[:, None]
    y = tl.load(src_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    for s in tl.static_range(LOG_L):  # stage s pairs elements 2**s apart
        pairs = tl.permute(tl.reshape(y, [BLOCK_LINES, L // (2 << s), 2, 1 << s]), [0, 1, 3, 2])
        a, b = tl.split(pairs)
        y = tl.reshape(tl.permute(tl.join(a + b, a - b), [0, 1, 3, 2]), [BLOCK_LINES, L])
    tl.store(dst_ptr + offs, (y * scale).to(dst_ptr.dtype.element_ty), mask=mask)


def _transform_lines(src, dst, rows, n, line, stride, scale):
    lines_per_row = n // line
    num_lines = rows * lines_per_row
    block = max(1, TILE // line)
    grid = (triton.cdiv(num_lines, block),)
    _hadamard_lines_kernel[grid](src, dst, num_lines, lines_per_row, n, stride, scale,
                                 L=line, LOG_L=line.bit_length() - 1, BLOCK_LINES=block,
                                 num_warps=8 if line <= TILE else 16)


def hadacore_transform(x, inplace=True):
    n = x.shape[-1]
    src = x.contiguous()
    out = src if inplace else torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rows = src.numel() // n
    scale = 1.0 / math.sqrt(n)
    if n <= MAX_LINE:
        _transform_lines(src, out, rows, n, n, 1, scale)
    else:
        partial = torch.empty(src.shape, dtype=torch.float32, device=x.device)
        _transform_lines(src, partial, rows, n, MAX_LINE, 1, 1.0)
        _transform_lines(partial, out, rows, n, n // MAX_LINE, MAX_LINE, scale)
    if inplace and out is not x:  # a packed copy was transformed: write it back
        x.copy_(out)
        return x
    return out
