# op: aten::full
# idiom: torch.empty(size, dtype=...) + a store-only kernel that builds the block with tl.full(..., VALUE, dtype) from a tl.constexpr fill value (Python int/float/bool, converted on the host as Python numbers), module-level BLOCK constant, __main__ self-test

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _full_kernel(out_ptr, n, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    dtype = out_ptr.dtype.element_ty
    if dtype == tl.bfloat16 or dtype == tl.float16:
        vals = tl.full([BLOCK], VALUE, tl.float32).to(dtype)  # half types: rounded from float32
    else:
        vals = tl.full([BLOCK], VALUE, dtype)
    tl.store(out_ptr + offs, vals, mask=offs < n)


def _python_value(value, dtype):
    """The fill value as the Python number the dtype holds (ints truncate toward zero)."""
    if dtype == torch.bool:
        return bool(value)
    if dtype.is_floating_point:
        return float(value)
    return int(value)


def _infer_dtype(value):
    if isinstance(value, bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int64
    return torch.get_default_dtype()


def _fill_contiguous(out, value):
    n = out.numel()
    if n:
        _full_kernel[(triton.cdiv(n, BLOCK),)](out, n, VALUE=_python_value(value, out.dtype), BLOCK=BLOCK)
    return out


def full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    out = torch.empty(size, dtype=dtype, device=device)
    return _fill_contiguous(out, fill_value)


def full_out(size, fill_value, *, out):
    if list(out.shape) != list(size):
        out.resize_(size)
    if not out.is_contiguous():
        raise NotImplementedError("full.out: a non-contiguous out is not supported")
    return _fill_contiguous(out, fill_value)


if __name__ == "__main__":
    t = full([3, 5], 2.5, dtype=torch.float32)
    assert t.shape == (3, 5) and bool((t == 2.5).all())
    t = full([4], 7)
    assert t.dtype == torch.int64 and t.tolist() == [7, 7, 7, 7]
    print("ok")
