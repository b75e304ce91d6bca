"""aten::erfc~double in Triton: erfc(2x) elementwise.

A strided elementwise kernel: the host merges dimensions that are contiguous in both tensors and
launches 2-D tiles over at most four dimensions. float32: erfc(|x|) = t exp(-x^2 + P(t)), t = 1 / (1
+ |x|/2) (a Chebyshev fit with relative error < 1.2e-7); float64: Cephes' rational erf (|x| < 1) and
erfc (|x| >= 1) fits. Both split x^2 as xh^2 + xl (x + xh) so the exponential carries no rounding of
x^2; erfc(-x) = 2 - erfc(x).
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
def _erfc64(x):
    """float64 erfc from Cephes' rational fits: 1 - erf for |x| < 1, e^-x^2 P(|x|)/Q(|x|) above
    (two fits split at 8), with e^-x^2 taken as e^-xh^2 e^-xl(x+xh), xh having 16 fraction bits."""
    z = tl.abs(x)
    v = z * z
    t = tl.zeros_like(v) + 9.604973739870516
    t = t * v + 90.02601972038427
    t = t * v + 2232.005345946843
    t = t * v + 7003.325141128051
    t = t * v + 55592.30130103949
    u = tl.zeros_like(v) + 1.0
    u = u * v + 33.56171416475031
    u = u * v + 521.3579497801527
    u = u * v + 4594.323829709801
    u = u * v + 22629.000061389095
    u = u * v + 49267.39426086359
    erf_small = z * t / u
    zc = tl.where(z > 27.0, 27.0, z)  # erfc(27) underflows anyway; keeps +Inf out of zc - zh
    v = zc
    p = tl.zeros_like(v) + 2.461969814735305e-10
    p = p * v + 0.5641895648310689
    p = p * v + 7.463210564422699
    p = p * v + 48.63719709856814
    p = p * v + 196.5208329560771
    p = p * v + 526.4451949954773
    p = p * v + 934.5285271719576
    p = p * v + 1027.5518868951572
    p = p * v + 557.5353353693994
    q = tl.zeros_like(v) + 1.0
    q = q * v + 13.228195115474499
    q = q * v + 86.70721408859897
    q = q * v + 354.9377788878199
    q = q * v + 975.7085017432055
    q = q * v + 1823.9091668790973
    q = q * v + 2246.3376081871097
    q = q * v + 1656.6630919416134
    q = q * v + 557.5353408177277
    r = tl.zeros_like(v) + 0.5641895835477551
    r = r * v + 1.275366707599781
    r = r * v + 5.019050422511805
    r = r * v + 6.160210979930536
    r = r * v + 7.4097426995044895
    r = r * v + 2.9788666537210022
    s = tl.zeros_like(v) + 1.0
    s = s * v + 2.2605286322011726
    s = s * v + 9.396035249380015
    s = s * v + 12.048953980809666
    s = s * v + 17.08144507475659
    s = s * v + 9.608968090632859
    s = s * v + 3.369076451000815
    zh = tl.floor(zc * 65536.0) * (1.0 / 65536.0)
    zl = zc - zh
    e = tl.exp(-(zh * zh)) * tl.exp(-zl * (zc + zh))
    big = e * tl.where(zc < 8.0, p / q, r / s)
    small = z < 1.0
    pos = tl.where(small, 1.0 - erf_small, big)
    return tl.where(x < 0, tl.where(small, 1.0 + erf_small, 2.0 - pos), pos)


@triton.jit
def _erfc32(x):
    """float32 erfc: the Chebyshev fit t exp(-z^2 + P(t)) (Numerical Recipes' erfcc), exponent split."""
    z = tl.abs(x)
    t = tl.div_rn(1.0, 1.0 + 0.5 * z)
    p = -0.82215223 + t * 0.17087277
    p = 1.48851587 + t * p
    p = -1.13520398 + t * p
    p = 0.27886807 + t * p
    p = -0.18628806 + t * p
    p = 0.09678418 + t * p
    p = 0.37409196 + t * p
    p = 1.00002368 + t * p
    p = -1.26551223 + t * p
    zc = tl.where(z > 20.0, 20.0, z)  # erfc(20) underflows anyway; keeps +Inf out of zc - zh
    zh = tl.floor(zc * 16.0) * 0.0625  # 8 significant bits: zh * zh is exact
    zl = zc - zh
    ans = t * _exp(-(zh * zh)) * _exp(p - zl * (zc + zh))
    return tl.where(x < 0, 2.0 - ans, ans)


@triton.jit
def _erfc_kernel(
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
    if x.dtype == tl.float64:
        result = _erfc64(2.0 * x)
    else:
        result = _erfc32(2.0 * x)

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
    """out = erfc(x) for any strides of x and out (same shape)."""
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
    _erfc_kernel[grid](
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


def erfc(self):
    out = torch.empty(self.shape, dtype=_result_dtype(self.dtype), device=self.device)
    _launch(out, self)
    return out


def erfc_out(self, *, out):
    _launch(out, self)
    return out
