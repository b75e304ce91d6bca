"""aten::cos~half in Triton: cos(x / 2) in radians.

A strided elementwise kernel: the host merges dimensions that are contiguous in both tensors and
launches 2-D tiles over at most four dimensions. float32 (and half types, computed in float32)
reduce the argument by pi/4 in three exact parts and evaluate Cephes' minimax polynomials, so |x| up
to thousands keeps full accuracy; float64 uses the library function.
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
def _cos_kernel(
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
    result = _sincos(0.5 * x, True)

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
    """out = cos(x) for any strides of x and out (same shape)."""
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
    _cos_kernel[grid](
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


def cos(self):
    out = torch.empty(self.shape, dtype=_result_dtype(self.dtype), device=self.device)
    _launch(out, self)
    return out


def cos_out(self, *, out):
    _launch(out, self)
    return out
