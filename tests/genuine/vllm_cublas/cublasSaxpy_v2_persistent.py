# op: cublas::cublasSaxpy_v2
# idiom: persistent grid-stride kernel (one wave of programs sized from the SM count); @triton.heuristics for a unit-stride fast path; start offsets for negative increments computed on the host

"""saxpy with a fixed number of programs that stride over the vector."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 2048
PROGRAMS_PER_SM = 4


@triton.heuristics({"UNIT_STRIDE": lambda a: a["incx"] == 1 and a["incy"] == 1})
@triton.jit
def _saxpy_persistent(x_ptr, y_ptr, n, alpha, incx, incy, x_start, y_start,
                      BLOCK: tl.constexpr, UNIT_STRIDE: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    lanes = tl.arange(0, BLOCK)
    for block_start in range(pid * BLOCK, n, nprog * BLOCK):
        k = block_start + lanes.to(tl.int64)
        m = k < n
        if UNIT_STRIDE:
            xo = k
            yo = k
        else:
            xo = x_start + k * incx
            yo = y_start + k * incy
        xv = tl.load(x_ptr + xo, mask=m)
        yv = tl.load(y_ptr + yo, mask=m)
        tl.store(y_ptr + yo, yv + alpha * xv, mask=m)


def _num_sms(t: torch.Tensor) -> int:
    if t.is_cuda:
        return torch.cuda.get_device_properties(t.device).multi_processor_count
    return 4


def _first(n: int, inc: int) -> int:
    # reference BLAS: with inc < 0 the vector starts at the far end of its storage
    return 0 if inc > 0 else (n - 1) * (-inc)


def cublasSaxpy_v2(n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    if n <= 0 or alpha == 0:
        return
    programs = min(triton.cdiv(n, BLOCK_SIZE), _num_sms(y) * PROGRAMS_PER_SM)
    _saxpy_persistent[(programs,)](x, y, n, alpha, incx, incy, _first(n, incx), _first(n, incy),
                                   BLOCK=BLOCK_SIZE, num_warps=8)
