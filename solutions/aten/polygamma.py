"""aten::polygamma in Triton: the n-th derivative of digamma, as ATen computes it.

A strided elementwise kernel: the host merges dimensions that are contiguous in both tensors and
launches 2-D tiles over at most four dimensions. n is a compile-time constant: n = 0 is ATen's
digamma, n = 1 its trigamma, n >= 2 the Hurwitz zeta form, each with ATen's reflections, series and
pole values, in float32 (float64 for float64).
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4  # dimensions the kernel indexes directly; more are split on the host
TILE = 2048  # elements per program


@triton.jit
def _sincos(x, COS: tl.constexpr):
    """sin(x) or cos(x). float32: Cephes' reduction by pi/4 in three exact parts (accurate for
    |x| < 8192) and minimax polynomials on [-pi/4, pi/4]; NaN for +-Inf and NaN. float64: the
    library functions."""
    if x.dtype == tl.float64:
        if COS:
            y = tl.cos(x)
        else:
            y = tl.sin(x)
    else:
        a = tl.abs(x)
        fin = a < float("inf")
        a = tl.where(fin, a, 0.0)
        j = tl.floor(a * 1.2732395447351628)
        j = j + (j - 2.0 * tl.floor(j * 0.5))  # to the even octant boundary
        r = ((a - j * 0.78515625) - j * 2.4187564849853515625e-4) - j * 3.77489497744594108e-8
        q = j.to(tl.int32) >> 1  # quadrant of the reduced argument
        if COS:
            q = q + 1  # cos(x) = sin(x + pi/2)
        z = r * r
        s = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r
        c = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0
        y = tl.where((q & 1) == 1, c, s)
        y = tl.where((q & 2) == 2, -y, y)
        if not COS:
            y = tl.where(x < 0, -y, y)
        y = tl.where(fin, y, float("nan"))
    return y


@triton.jit
def _digamma(x):
    """ATen's calc_digamma: psi(x) = psi(1 - x) - pi / tan(pi x) for x < 0 (tan taken at x - round(x),
    its period being 1), recurrence up to 10, then the asymptotic series; +-0 -> -+inf, negative
    integers -> NaN."""
    neg = x < 0
    r = x - tl.floor(x + 0.5)
    refl = 3.141592653589793 * _sincos(3.141592653589793 * r, True) / _sincos(3.141592653589793 * r, False)
    y = tl.where(neg, 1.0 - x, x)
    acc = tl.zeros_like(y)
    for _ in tl.static_range(10):
        up = y < 10.0
        acc = tl.where(up, acc - 1.0 / y, acc)
        y = tl.where(up, y + 1.0, y)
    z = 1.0 / (y * y)
    p = 8.33333333333333333333e-2 * z - 2.10927960927960927961e-2
    p = p * z + 7.57575757575757575758e-3
    p = p * z - 4.16666666666666666667e-3
    p = p * z + 3.96825396825396825397e-3
    p = p * z - 8.33333333333333333333e-3
    p = p * z + 8.33333333333333333333e-2
    series = tl.where(y < 1.0e17, z * p, 0.0)
    out = tl.where(y == 10.0, acc + 2.25175258906672110764, acc + tl.log(y) - 0.5 / y - series)
    out = tl.where(neg, out - refl, out)
    out = tl.where(neg & (x == tl.floor(x)), float("nan"), out)
    return tl.where(x == 0, tl.where(1.0 / x < 0, float("inf"), float("-inf")), out)


@triton.jit
def _trigamma(x):
    """ATen's trigamma: reflection for x < 0.5 (pi^2 / sin(pi x)^2), six recurrence steps, then the
    asymptotic series."""
    refl = x < 0.5
    sp = _sincos(3.141592653589793 * x, False)
    acc = tl.where(refl, -9.869604401089358 / (sp * sp), 0.0)
    y = tl.where(refl, 1.0 - x, x)
    for _ in tl.static_range(6):
        acc = acc + 1.0 / (y * y)
        y = y + 1.0
    ixx = 1.0 / (y * y)
    acc = acc + (1.0 + 1.0 / (2.0 * y) + ixx * (1.0 / 6.0 - ixx * (1.0 / 30.0 - ixx * (1.0 / 42.0)))) / y
    return tl.where(refl, -acc, acc)


@triton.jit
def _ipow(v, N: tl.constexpr):
    """v ** N for a compile-time integer N >= 1."""
    p = v
    for _ in tl.static_range(N - 1):
        p = p * v
    return p


@triton.jit
def _polygamma_high(x, N: tl.constexpr):
    """(-1)^(N+1) N! zeta(N + 1, x), with ATen's (Cephes') Hurwitz zeta: the sum of (x + i)^-(N+1)
    until x + i > 9 and at least 9 terms, then the Euler-Maclaurin tail; poles x = 0, -1, ... give
    the signed infinity. (ATen stops the sum early once a term is below 1e-16 of it; the terms it
    skips are below that, so the results agree to rounding.)"""
    pole = (x <= 0) & (x == tl.floor(x))
    q = tl.where(pole | (x != x), 1.0, x)  # keeps the sum finite and its length bounded; fixed at the end
    q1 = (N + 1) * 1.0
    s = 1.0 / _ipow(q, N + 1)
    a = q
    b = tl.zeros_like(q)
    for _ in tl.static_range(9):
        a = a + 1.0
        b = 1.0 / _ipow(a, N + 1)
        s = s + b
    # negative x: the sum runs on until x + i > 9, as long as the most negative lane needs
    more = tl.max(tl.max(tl.where(a <= 9.0, 9.0 - a, -1.0), axis=1), axis=0)
    for _ in range(0, (tl.floor(more) + 1.0).to(tl.int32)):
        up = a <= 9.0
        a = tl.where(up, a + 1.0, a)
        b = tl.where(up, 1.0 / _ipow(a, N + 1), b)
        s = tl.where(up, s + b, s)
    w = a
    s = s + b * w / (q1 - 1.0)
    s = s - 0.5 * b
    a = tl.zeros_like(q) + 1.0
    a = a * (q1 + 0.0)
    b = b / w
    s = s + a * b / 12.0
    a = a * (q1 + 1.0)
    b = b / w
    a = a * (q1 + 2.0)
    b = b / w
    s = s + a * b / -720.0
    a = a * (q1 + 3.0)
    b = b / w
    a = a * (q1 + 4.0)
    b = b / w
    s = s + a * b / 30240.0
    a = a * (q1 + 5.0)
    b = b / w
    a = a * (q1 + 6.0)
    b = b / w
    s = s + a * b / -1209600.0
    a = a * (q1 + 7.0)
    b = b / w
    a = a * (q1 + 8.0)
    b = b / w
    s = s + a * b / 47900160.0
    a = a * (q1 + 9.0)
    b = b / w
    a = a * (q1 + 10.0)
    b = b / w
    s = s + a * b / -1892437580.3183792
    a = a * (q1 + 11.0)
    b = b / w
    a = a * (q1 + 12.0)
    b = b / w
    s = s + a * b / 74724249600.0
    a = a * (q1 + 13.0)
    b = b / w
    a = a * (q1 + 14.0)
    b = b / w
    s = s + a * b / -2950130727918.164
    a = a * (q1 + 15.0)
    b = b / w
    a = a * (q1 + 16.0)
    b = b / w
    s = s + a * b / 116467828143500.67
    a = a * (q1 + 17.0)
    b = b / w
    a = a * (q1 + 18.0)
    b = b / w
    s = s + a * b / -4597978722407473.0
    a = a * (q1 + 19.0)
    b = b / w
    a = a * (q1 + 20.0)
    b = b / w
    s = s + a * b / 1.8152105401943546e+17
    a = a * (q1 + 21.0)
    b = b / w
    a = a * (q1 + 22.0)
    b = b / w
    s = s + a * b / -7.166165256175667e+18
    a = a * (q1 + 23.0)
    b = b / w
    fact = 1.0
    for i in tl.static_range(2, N + 1):
        fact = fact * i
    if N % 2 == 1:
        sign = 1.0
    else:
        sign = -1.0
    out = (sign * fact) * s
    out = tl.where(pole, sign * float("inf"), out)
    return tl.where(x != x, x, out)


@triton.jit
def _polygamma_kernel(
    x_ptr, out_ptr,
    size1, size2, n_rows, n_cols,
    xs0, xs1, xs2, xs3,
    os0, os1, os2, os3,
    COMPUTE: tl.constexpr, N: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
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
    x = tl.load(x_ptr + x_off, mask=mask, other=1).to(COMPUTE)
    if N == 0:
        result = _digamma(x)
    elif N == 1:
        result = _trigamma(x)
    else:
        result = _polygamma_high(x, N)

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


def _launch(out, x, n):
    """out = polygamma(x) for any strides of x and out (same shape)."""
    if out.numel() == 0:
        return
    sizes, (x_st, o_st) = _coalesce(out.shape, [x.stride(), out.stride()])
    if len(sizes) > MAX_DIMS:  # rare: too many non-mergeable dims, so split the first one
        for i in range(out.shape[0]):
            _launch(out[i], x[i], n)
        return
    pad = MAX_DIMS - len(sizes)
    sizes = [1] * pad + sizes
    x_st, o_st = [0] * pad + x_st, [0] * pad + o_st

    n_rows, n_cols = sizes[0] * sizes[1] * sizes[2], sizes[3]
    block_c = min(triton.next_power_of_2(n_cols), TILE)
    block_r = min(triton.next_power_of_2(n_rows), TILE // block_c)
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _polygamma_kernel[grid](
        x, out,
        sizes[1], sizes[2], n_rows, n_cols,
        *x_st, *o_st,
        COMPUTE=_compute_type(x.dtype, out.dtype), N=n, BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4,
    )


def _compute_type(in_dtype, out_dtype):
    """float64 math for float64, float32 for everything else (half types and integers, like ATen)."""
    return tl.float64 if torch.float64 in (in_dtype, out_dtype) else tl.float32


def _result_dtype(dtype):
    """Integer and bool inputs give the default float type, as ATen's unary float ops do."""
    return dtype if dtype.is_floating_point else torch.get_default_dtype()


def _check(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n, self):
    _check(n)
    out = torch.empty(self.shape, dtype=_result_dtype(self.dtype), device=self.device)
    _launch(out, self, n)
    return out


def polygamma_out(n, self, *, out):
    _check(n)
    _launch(out, self, n)
    return out
