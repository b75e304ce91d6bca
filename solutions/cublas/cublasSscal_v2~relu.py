"""cublasSscal_v2~relu in Triton: x := max(alpha * x, 0) over a BLAS-strided float32 vector, in place."""

import torch
import triton
import triton.language as tl


@triton.jit
def _scal_kernel(x_ptr, n, alpha, incx, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    k = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = k < n
    idx = k * incx
    tl.store(x_ptr + idx, tl.maximum(alpha * tl.load(x_ptr + idx, mask=mask), 0.0), mask=mask)


def cublasSscal_v2(n: int, alpha: float, x: torch.Tensor, incx: int) -> None:
    # Reference BLAS (sscal.f) returns at once for a non-positive increment.
    if n <= 0 or incx <= 0:
        return
    block = 1024
    _scal_kernel[(triton.cdiv(n, block),)](x, n, float(alpha), incx, BLOCK=block)
