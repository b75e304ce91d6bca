"""vllm::shuffle_rows in Triton: out[i] = input[dst2src_map[i]].

Each program copies a tile of destination rows by a chunk of columns; the source row indices
are loaded once per tile and the rows are addressed in int64 (m * k may pass 2^31).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _shuffle_kernel(in_ptr, map_ptr, out_ptr, n, k, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    row_ok = rows < n
    src = tl.load(map_ptr + rows, mask=row_ok, other=0).to(tl.int64)
    mask = row_ok[:, None] & (cols < k)[None, :]
    vals = tl.load(in_ptr + src[:, None] * k + cols[None, :], mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * k + cols[None, :], vals, mask=mask)


def shuffle_rows(input_tensor: torch.Tensor, dst2src_map: torch.Tensor) -> torch.Tensor:
    n, k = dst2src_map.shape[0], input_tensor.shape[1]
    out = torch.empty((n, k), dtype=input_tensor.dtype, device=input_tensor.device)
    block_k = min(triton.next_power_of_2(k), 1024)
    block_r = max(1, min(4096 // block_k, triton.next_power_of_2(n)))
    grid = (triton.cdiv(n, block_r), triton.cdiv(k, block_k))
    _shuffle_kernel[grid](input_tensor, dst2src_map, out, n, k, BLOCK_R=block_r, BLOCK_K=block_k, num_warps=4)
    return out
