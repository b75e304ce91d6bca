"""The tolerance passes legitimate numerics and rejects null and downgraded results."""

from __future__ import annotations

import torch

from kernelgenbench.suite.spec import Tolerance
from kernelgenbench.verify.tolerance import compare

TOL = Tolerance()


def _softmax_case(dtype=torch.float32, n=1000):
    x = torch.randn(64, n, generator=torch.Generator().manual_seed(0))
    ref = torch.softmax(x.double(), -1)
    native = torch.softmax(x.to(dtype), -1)
    return x, ref, native


def test_native_result_itself_passes():
    _, ref, native = _softmax_case()
    assert compare(native, ref, native, TOL).ok


def test_zeros_and_constant_fail():
    _, ref, native = _softmax_case()
    assert not compare(torch.zeros_like(native), ref, native, TOL).ok
    assert not compare(torch.full_like(native, float(ref.mean())), ref, native, TOL).ok


def test_other_summation_order_passes():
    x, ref, native = _softmax_case()
    e = torch.exp(x - x.max(-1, keepdim=True).values)
    backwards = e / e.flip(-1).cumsum(-1)[..., -1:]
    assert compare(backwards, ref, native, TOL).ok


def test_low_precision_math_fails_for_float32():
    x, ref, native = _softmax_case()
    downgraded = torch.softmax(x.half(), -1).float()
    c = compare(downgraded, ref, native, TOL)
    assert not c.ok and c.figures is not None and c.figures.ratio > 10


def test_nan_where_native_is_finite_fails():
    _, ref, native = _softmax_case()
    bad = native.clone()
    bad[3, 7] = float("nan")
    c = compare(bad, ref, native, TOL)
    assert not c.ok and "non-finite" in c.reason


def test_integer_outputs_are_exact():
    ref = torch.arange(10)
    assert compare(ref.clone(), ref, ref, TOL).ok
    off = ref.clone()
    off[4] += 1
    assert not compare(off, ref, ref, TOL).ok


def test_one_ulp_in_half_precision_passes():
    x = torch.randn(4096, generator=torch.Generator().manual_seed(1))
    ref = x.double()
    native = x.half()
    nudged = torch.nextafter(native, torch.full_like(native, float("inf")))
    assert compare(nudged, ref, native, TOL).ok


def test_cancelling_sum_allows_the_roundoff_of_its_terms():
    # sum of large terms that cancels: the native result happens to be exact, a correct kernel
    # with another order is one float32 ulp of the terms off.
    x = torch.tensor([1e4, 1.0, -1e4, 3.0], dtype=torch.float32)
    ref = x.double().sum()
    native = x.sum()
    other_order = native + torch.finfo(torch.float32).eps * 1e4
    scale = x.double().abs().sum()
    assert not compare(other_order, ref, native, TOL).ok
    assert compare(other_order, ref, native, Tolerance(abs_scale=True), scale).ok
    assert not compare(torch.zeros_like(native), ref, native, Tolerance(abs_scale=True), scale).ok


def test_a_dynamic_scale_may_be_two_ulps_off_but_no_coarser():
    """A GPU's float32 division is not correctly rounded: the scale output allows it, the codes do not."""
    from kernelgenbench.suite.vllm.quant import SCALED_QUANT_TOLERANCE as tol

    truth = torch.tensor([0.012345678901], dtype=torch.float64)
    native = truth.to(torch.float32)
    up = torch.tensor(float("inf"))
    two_off = torch.nextafter(torch.nextafter(native, up), up)
    assert compare(two_off, truth, native, tol.at(1)).ok
    assert not compare(two_off, truth, native, tol.at(0)).ok
    assert not compare(native.to(torch.bfloat16).to(torch.float32), truth, native, tol.at(1)).ok


def test_a_cancelling_subtraction_allows_the_rounding_of_its_product():
    """3 - 2.5 * x near x = 1.2 cancels: a kernel that rounds the product before subtracting (no
    fused multiply-add: the interpreter) is many ulps of the result off, within the error scale
    |other| + |alpha| |self|; a bfloat16 product is not."""
    from kernelgenbench.suite import registry

    op = registry.get("aten::rsub")
    ov = op.overload("rsub.Tensor")
    x = torch.tensor([1.199002981185913], dtype=torch.float32)  # 3 - 2.5 x = 0.0025: 1.2e-7 is ~400 ulps
    other = torch.full_like(x, 3.0)
    truth = other.double() - 2.5 * x.double()
    native = torch.rsub(x, other, alpha=2.5)
    scale = ov.scale(x.double().abs(), other.double().abs(), alpha=2.5)
    unfused = other - (x * 2.5)
    assert compare(unfused, truth, native, op.tolerance, scale).ok
    assert not compare(unfused, truth, native, Tolerance(), None).ok  # the result's magnitude alone
    coarse = other - (x.to(torch.bfloat16) * 2.5).float()
    assert not compare(coarse, truth, native, op.tolerance, scale).ok


def test_a_single_element_within_the_max_bound_passes_whatever_the_native_got():
    """The H200 run of seed 29980415380373: a 0-d logit 1.06e-07 off (allowed 1.78e-07 at most) was
    refused by an RMS bound of 1.05e-07, which on one element is only a stricter max bound."""
    ref = torch.tensor(0.123456789012, dtype=torch.float64)
    native = ref.float()
    ulp = torch.finfo(torch.float32).eps * 0.123456789012
    near = torch.tensor(0.123456789012 + 0.9 * ulp).float()  # a rounding step off, the native exact
    assert compare(near, ref, native, TOL).ok
    assert not compare(torch.tensor(0.123456789012 * 1.001).float(), ref, native, TOL).ok


def test_odd_and_even_draws_never_tie():
    """smooth_l1_loss_backward with beta = 0 draws self odd and target even: at a tie ATen's CPU and
    CUDA kernels disagree (-grad against NaN), and 4M-element draws of two normals tie by chance."""
    from kernelgenbench.suite.inputs import materialize
    from kernelgenbench.suite.spec import TensorSpec

    values = materialize({"a": TensorSpec((1025, 4097), torch.float32, dist="odd"),
                          "b": TensorSpec((1025, 4097), torch.float32, "transposed", dist="even")}, 7, "cpu")
    a, b = values["a"], values["b"]
    assert not bool((a == b).any())
    assert 0.9 < float(a.std()) < 1.1 and 0.9 < float(b.std()) < 1.1 and bool((a > b).any() and (a < b).any())
