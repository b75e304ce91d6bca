"""aten::logit~base2 in Triton: log2(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given.

A strided elementwise kernel: the host merges dimensions that are contiguous in both tensors and
launches 2-D tiles over at most four dimensions. The clamp bounds are formed in the compute type as
ATen's are (lo = eps, hi = 1 - lo), and the comparisons leave NaN unclamped; 0 -> -inf and 1 -> +inf
come from the division and the logarithm themselves.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 2048  # elements per program


@triton.jit
def _logit_kernel(
    x_ptr, out_ptr, eps_ptr,
    size1, size2, n_rows, n_cols,
    xs0, xs1, xs2, xs3,
    os0, os1, os2, os3,
    COMPUTE: tl.constexpr, HAS_EPS: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_C)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = ((pid % n_col_blocks) * BLOCK_C).to(tl.int64) + tl.arange(0, BLOCK_C)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]

    # Unravel the row index into dims 0..2 of the (size0, size1, size2, n_cols) view.
    i2 = rows % size2
    i1 = (rows // size2) % size1
    i0 = rows // (size2 * size1)
    cols = cols[None, :]

    x_off = (i0 * xs0 + i1 * xs1 + i2 * xs2)[:, None] + cols * xs3
    x = tl.load(x_ptr + x_off, mask=mask).to(COMPUTE)
    if HAS_EPS:
        lo = tl.load(eps_ptr).to(COMPUTE)
        hi = 1.0 - lo
        x = tl.where(x < lo, lo, tl.where(x > hi, hi, x))
    result = tl.log(x / (1.0 - x)) * 1.4426950408889634

    o_off = (i0 * os0 + i1 * os1 + i2 * os2)[:, None] + cols * os3
    tl.store(out_ptr + o_off, result.to(out_ptr.dtype.element_ty), mask=mask)


def _coalesce(shape, strides):
    """Drop size-1 dims and merge neighbours that are contiguous in every tensor."""
    sizes, merged = [], [[] for _ in strides]
    for d, size in enumerate(shape):
        if size == 1:
            continue
        if sizes and all(m[-1] == s[d] * size for s, m in zip(strides, merged)):
            sizes[-1] *= size
            for s, m in zip(strides, merged):
                m[-1] = s[d]
        else:
            sizes.append(size)
            for s, m in zip(strides, merged):
                m.append(s[d])
    return sizes, merged


def _launch(out, x, eps_t, has_eps):
    """out = logit(x) for any strides of x and out (same shape)."""
    if out.numel() == 0:
        return
    sizes, (x_st, o_st) = _coalesce(out.shape, [x.stride(), out.stride()])
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(out.shape[0]):
            _launch(out[i], x[i], eps_t, has_eps)
        return
    pad = MAX_DIMS - len(sizes)
    sizes = [1] * pad + sizes
    x_st, o_st = [0] * pad + x_st, [0] * pad + o_st

    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _logit_kernel[grid](
        x, out, eps_t,
        sizes[1], sizes[2], n_rows, n_cols,
        *x_st, *o_st,
        COMPUTE=_compute_type(x.dtype, out.dtype), HAS_EPS=has_eps, BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _compute_type(in_dtype, out_dtype):
    """float64 math for float64, float32 for everything else (half types and integers, like ATen)."""
    return tl.float64 if torch.float64 in (in_dtype, out_dtype) else tl.float32


def _result_dtype(dtype):
    """Integer and bool inputs give the default float type, as ATen's unary float ops do."""
    return dtype if dtype.is_floating_point else torch.get_default_dtype()


def _with_eps(out, x, eps):
    # ATen clamps only for eps >= 0 (None, a negative or a NaN eps: no clamp); the bound travels as a
    # float64 so a float64 input is clamped at exactly eps.
    has_eps = eps is not None and eps >= 0
    eps_t = torch.full((1,), eps if has_eps else 0.0, dtype=torch.float64, device=x.device)
    _launch(out, x, eps_t, has_eps)
    return out


def logit(self, eps=None):
    out = torch.empty(self.shape, dtype=_result_dtype(self.dtype), device=self.device)
    return _with_eps(out, self, eps)


def logit_out(self, eps=None, *, out):
    return _with_eps(out, self, eps)
