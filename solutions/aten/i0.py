"""aten::i0 in Triton: the modified Bessel function I0(x), as ATen computes it (Cephes).

A strided elementwise kernel: the host merges dimensions that are contiguous in both tensors and
launches 2-D tiles over at most four dimensions. Cephes' Chebyshev series for e^-x I0(x) on [0, 8]
and e^-x sqrt(x) I0(x) on (8, inf), the same coefficients ATen uses, times e^|x| (range-reduced, so
it overflows exactly where ATen's float exp does); float64 computes the same in float64.
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
def _sqrt(x):
    """Correctly rounded square root (tl.sqrt is the fast approximate one in float32)."""
    if x.dtype == tl.float64:
        y = tl.sqrt(x)
    else:
        y = tl.sqrt_rn(x)
    return y


@triton.jit
def _cheb_a(y):
    """Clenshaw sum of Cephes' 30 coefficients for e^-x I0(x), x in [0, 8]."""
    b0 = tl.zeros_like(y) + -4.4153416464793395e-18
    b1 = tl.zeros_like(y)
    b0, b1, b2 = y * b0 - b1 + 3.3307945188222384e-17, b0, b1
    b0, b1, b2 = y * b0 - b1 + -2.431279846547955e-16, b0, b1
    b0, b1, b2 = y * b0 - b1 + 1.715391285555133e-15, b0, b1
    b0, b1, b2 = y * b0 - b1 + -1.1685332877993451e-14, b0, b1
    b0, b1, b2 = y * b0 - b1 + 7.676185498604936e-14, b0, b1
    b0, b1, b2 = y * b0 - b1 + -4.856446783111929e-13, b0, b1
    b0, b1, b2 = y * b0 - b1 + 2.95505266312964e-12, b0, b1
    b0, b1, b2 = y * b0 - b1 + -1.726826291441556e-11, b0, b1
    b0, b1, b2 = y * b0 - b1 + 9.675809035373237e-11, b0, b1
    b0, b1, b2 = y * b0 - b1 + -5.189795601635263e-10, b0, b1
    b0, b1, b2 = y * b0 - b1 + 2.6598237246823866e-09, b0, b1
    b0, b1, b2 = y * b0 - b1 + -1.300025009986248e-08, b0, b1
    b0, b1, b2 = y * b0 - b1 + 6.046995022541919e-08, b0, b1
    b0, b1, b2 = y * b0 - b1 + -2.670793853940612e-07, b0, b1
    b0, b1, b2 = y * b0 - b1 + 1.1173875391201037e-06, b0, b1
    b0, b1, b2 = y * b0 - b1 + -4.4167383584587505e-06, b0, b1
    b0, b1, b2 = y * b0 - b1 + 1.6448448070728896e-05, b0, b1
    b0, b1, b2 = y * b0 - b1 + -5.754195010082104e-05, b0, b1
    b0, b1, b2 = y * b0 - b1 + 0.00018850288509584165, b0, b1
    b0, b1, b2 = y * b0 - b1 + -0.0005763755745385824, b0, b1
    b0, b1, b2 = y * b0 - b1 + 0.0016394756169413357, b0, b1
    b0, b1, b2 = y * b0 - b1 + -0.004324309995050576, b0, b1
    b0, b1, b2 = y * b0 - b1 + 0.010546460394594998, b0, b1
    b0, b1, b2 = y * b0 - b1 + -0.02373741480589947, b0, b1
    b0, b1, b2 = y * b0 - b1 + 0.04930528423967071, b0, b1
    b0, b1, b2 = y * b0 - b1 + -0.09490109704804764, b0, b1
    b0, b1, b2 = y * b0 - b1 + 0.17162090152220877, b0, b1
    b0, b1, b2 = y * b0 - b1 + -0.3046826723431984, b0, b1
    b0, b1, b2 = y * b0 - b1 + 0.6767952744094761, b0, b1
    return 0.5 * (b0 - b2)


@triton.jit
def _cheb_b(y):
    """Clenshaw sum of Cephes' 25 coefficients for e^-x sqrt(x) I0(x), x > 8."""
    b0 = tl.zeros_like(y) + -7.233180487874754e-18
    b1 = tl.zeros_like(y)
    b0, b1, b2 = y * b0 - b1 + -4.830504485944182e-18, b0, b1
    b0, b1, b2 = y * b0 - b1 + 4.46562142029676e-17, b0, b1
    b0, b1, b2 = y * b0 - b1 + 3.461222867697461e-17, b0, b1
    b0, b1, b2 = y * b0 - b1 + -2.8276239805165836e-16, b0, b1
    b0, b1, b2 = y * b0 - b1 + -3.425485619677219e-16, b0, b1
    b0, b1, b2 = y * b0 - b1 + 1.7725601330565263e-15, b0, b1
    b0, b1, b2 = y * b0 - b1 + 3.8116806693526224e-15, b0, b1
    b0, b1, b2 = y * b0 - b1 + -9.554846698828307e-15, b0, b1
    b0, b1, b2 = y * b0 - b1 + -4.150569347287222e-14, b0, b1
    b0, b1, b2 = y * b0 - b1 + 1.54008621752141e-14, b0, b1
    b0, b1, b2 = y * b0 - b1 + 3.8527783827421426e-13, b0, b1
    b0, b1, b2 = y * b0 - b1 + 7.180124451383666e-13, b0, b1
    b0, b1, b2 = y * b0 - b1 + -1.7941785315068062e-12, b0, b1
    b0, b1, b2 = y * b0 - b1 + -1.3215811840447713e-11, b0, b1
    b0, b1, b2 = y * b0 - b1 + -3.1499165279632416e-11, b0, b1
    b0, b1, b2 = y * b0 - b1 + 1.1889147107846439e-11, b0, b1
    b0, b1, b2 = y * b0 - b1 + 4.94060238822497e-10, b0, b1
    b0, b1, b2 = y * b0 - b1 + 3.3962320257083865e-09, b0, b1
    b0, b1, b2 = y * b0 - b1 + 2.266668990498178e-08, b0, b1
    b0, b1, b2 = y * b0 - b1 + 2.0489185894690638e-07, b0, b1
    b0, b1, b2 = y * b0 - b1 + 2.8913705208347567e-06, b0, b1
    b0, b1, b2 = y * b0 - b1 + 6.889758346916825e-05, b0, b1
    b0, b1, b2 = y * b0 - b1 + 0.0033691164782556943, b0, b1
    b0, b1, b2 = y * b0 - b1 + 0.8044904110141088, b0, b1
    return 0.5 * (b0 - b2)


@triton.jit
def _i0_kernel(
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
    ea = _exp(a)
    near = ea * _cheb_a(a * 0.5 - 2.0)
    far = ea * _cheb_b(32.0 / tl.where(a > 8.0, a, 8.0) - 2.0) / _sqrt(a)
    result = tl.where(a <= 8.0, near, far)

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
    """out = i0(x) for any strides of x and out (same shape)."""
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
    _i0_kernel[grid](
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


def i0(self):
    out = torch.empty(self.shape, dtype=_result_dtype(self.dtype), device=self.device)
    _launch(out, self)
    return out


def i0_out(self, *, out):
    _launch(out, self)
    return out
