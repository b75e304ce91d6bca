# op: cublas::cublasSaxpy_v2
# idiom: @triton.autotune over BLOCK (restore_value for the in-place y; 1 config in the interpreter); negative increments resolved inside the kernel by the reference-BLAS rule

import torch
import triton
import triton.language as tl

if torch.cuda.is_available():
    AXPY_CONFIGS = [
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=8),
    ]
else:  # the CPU interpreter has no benchmarker: one config, no tuning
    AXPY_CONFIGS = [triton.Config({"BLOCK": 1024}, num_warps=4)]


@triton.jit
def _blas_index(k, n, inc):
    """Storage index of logical element k of an n-vector with increment inc (inc may be < 0)."""
    return tl.where(inc > 0, k * inc, (n - 1 - k) * (0 - inc))


@triton.autotune(configs=AXPY_CONFIGS, key=["n"], restore_value=["y_ptr"])
@triton.jit
def saxpy_kernel(x_ptr, y_ptr, n, alpha, incx, incy, BLOCK: tl.constexpr):
    k = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = k < n
    xi = _blas_index(k, n, incx)
    yi = _blas_index(k, n, incy)
    xv = tl.load(x_ptr + xi, mask=valid, other=0.0)
    yv = tl.load(y_ptr + yi, mask=valid, other=0.0)
    tl.store(y_ptr + yi, alpha * xv + yv, mask=valid)


def cublasSaxpy_v2(n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    if n <= 0 or alpha == 0.0:
        return
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    saxpy_kernel[grid](x, y, n, float(alpha), incx, incy)
