"""aten::cosh in Triton: cosh(x) = (e^|x| + e^-|x|) / 2, overflowing to +inf like ATen's.

A strided elementwise kernel: the host merges dimensions that are contiguous in both tensors and
launches 2-D tiles over at most four dimensions. Past |x| = 80 (float32) the result is (e^(|x|/2) /
2) * e^(|x|/2), so values up to FLT_MAX do not overflow in e^|x| first; exp is range-reduced so
large arguments keep their ulps.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 2048  # elements per program


@triton.jit
def _exp(x):
    """e^x to about 1 ulp in float32: x = k ln2 + r with |r| <= ln2 / 2 (Cody-Waite, exact k ln2_hi),
    a Cephes polynomial for e^r and 2^k built from exponent bits in two halves, so results near the
    overflow and subnormal ranges come out right. (A plain exp of a large argument loses ulps to the
    rounding of x * log2(e).) float64 uses the library exp."""
    if x.dtype == tl.float64:
        y = tl.exp(x)
    else:
        xc = tl.where(x == x, x, 0.0)
        xc = tl.where(xc > 89.0, 89.0, tl.where(xc < -104.0, -104.0, xc))
        k = tl.floor(xc * 1.4426950408889634 + 0.5)
        r = xc - k * 0.693145751953125
        r = r - k * 1.428606765330187e-06
        p = 1.9875691500e-4 * r + 1.3981999507e-3
        p = p * r + 8.3334519073e-3
        p = p * r + 4.1665795894e-2
        p = p * r + 1.6666665459e-1
        p = p * r + 5.0000001201e-1
        p = p * (r * r) + r + 1.0
        ki = k.to(tl.int32)
        k1 = ki >> 1
        k2 = ki - k1
        s1 = ((k1 + 127) << 23).to(tl.float32, bitcast=True)
        s2 = ((k2 + 127) << 23).to(tl.float32, bitcast=True)
        y = tl.where(x == x, p * s1 * s2, x)
    return y


@triton.jit
def _cosh_kernel(
    x_ptr, out_ptr,
    size1, size2, n_rows, n_cols,
    xs0, xs1, xs2, xs3,
    os0, os1, os2, os3,
    COMPUTE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
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
    a = tl.abs(x)
    e = _exp(a)
    h = _exp(0.5 * a)
    if x.dtype == tl.float64:
        limit = 700.0
    else:
        limit = 80.0
    result = tl.where(a < limit, 0.5 * (e + 1.0 / e), (0.5 * h) * h)

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


def _launch(out, x):
    """out = cosh(x) for any strides of x and out (same shape)."""
    if out.numel() == 0:
        return
    sizes, (x_st, o_st) = _coalesce(out.shape, [x.stride(), out.stride()])
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(out.shape[0]):
            _launch(out[i], x[i])
        return
    pad = MAX_DIMS - len(sizes)
    sizes = [1] * pad + sizes
    x_st, o_st = [0] * pad + x_st, [0] * pad + o_st

    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _cosh_kernel[grid](
        x, out,
        sizes[1], sizes[2], n_rows, n_cols,
        *x_st, *o_st,
        COMPUTE=_compute_type(x.dtype, out.dtype), BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _compute_type(in_dtype, out_dtype):
    """float64 math for float64, float32 for everything else (half types and integers, like ATen)."""
    return tl.float64 if torch.float64 in (in_dtype, out_dtype) else tl.float32


def _result_dtype(dtype):
    """Integer and bool inputs give the default float type, as ATen's unary float ops do."""
    return dtype if dtype.is_floating_point else torch.get_default_dtype()


def cosh(self):
    out = torch.empty(self.shape, dtype=_result_dtype(self.dtype), device=self.device)
    _launch(out, self)
    return out


def cosh_out(self, *, out):
    _launch(out, self)
    return out
