"""The backward family: judged against the float64 autograd of the forward, with the semantics that
matter drawn (thresholds, reductions, negative dims and indices, overlapping gradients, the
forward's saved state)."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.aten import backward
from kernelgenbench.suite.inputs import upcast_value
from kernelgenbench.suite.spec import OutputSpec, TensorSpec
from kernelgenbench.verify.correctness import case_inputs, outputs_of

OPS = tuple(backward.OPERATORS)


def values(op_name, overload=None, size=None):
    op = registry.get(op_name)
    return [c.sample.values for c in op.cases
            if (overload is None or c.overload == overload) and (size is None or c.size == size)]


@pytest.mark.parametrize("name", OPS)
def test_every_overload_is_judged_against_autograd_of_the_forward(name):
    """The truth is not the native kernel: every overload has its own reference, and on the small
    cases (float64) it agrees with the native backward where autograd and the kernel agree."""
    op = registry.get(f"aten::{name}")
    assert op.family == "backward" and op.work == "compute"
    for ov in op.overloads:
        packet = getattr(getattr(torch.ops.aten, name), ov.name.partition(".")[2] or "default")
        assert ov.reference is not packet, ov.name
        cases = [c for c in op.cases if c.overload == ov.name and c.size == "small"]
        assert 4 <= len(cases) <= 40, (ov.name, len(cases))
        for case in cases:
            drawn = {k: upcast_value(v) for k, v in case_inputs(case, 7, "cpu").items()}
            native = {k: upcast_value(v) for k, v in drawn.items()}
            args, kwargs = ov.split(drawn)
            truth = outputs_of(ov, ov.reference(*args, **kwargs), drawn)
            args, kwargs = ov.split(native)
            kernel = outputs_of(ov, op.native("cpu", ov)(*args, **kwargs), native)
            for t, k in zip(truth, kernel):
                assert t.dtype == torch.float64 and t.shape == k.shape, case.name
                torch.testing.assert_close(t, k, rtol=1e-12, atol=1e-12, equal_nan=True, msg=case.name)


def test_softplus_draws_the_threshold_region():
    drawn = values("softplus_backward", "softplus_backward", "small")
    assert {v["beta"] for v in drawn} > {1.0} and min(v["threshold"] for v in drawn) <= 1.0
    # values reach past threshold / beta, where the gradient is grad_output itself
    assert all(v["self"].high * v["beta"] > v["threshold"] for v in drawn)
    for v in drawn:
        assert math.log2(v["beta"]).is_integer() and (v["threshold"] * 2).is_integer()  # exact in binary


def test_log_sigmoid_buffer_is_the_cuda_forwards_and_the_cpu_baseline_makes_its_own():
    op = registry.get("aten::log_sigmoid_backward")
    assert all(v["buffer"].shape == (0,) for v in values("log_sigmoid_backward"))
    ov = op.overload("log_sigmoid_backward")
    x, g = torch.randn(5, 7), torch.randn(5, 7)
    got = op.native("cpu", ov)(g, x, torch.empty(0))
    torch.testing.assert_close(got, g * torch.sigmoid(-x))
    assert any(v["self"].high >= 20 for v in values("log_sigmoid_backward"))  # saturated tails
    assert "buffer" in op.notes and "CUDA" in op.notes


def test_smooth_l1_draws_every_reduction_with_its_grad_output_shape_and_beta_zero():
    drawn = values("smooth_l1_loss_backward", size="small")
    assert {v["reduction"] for v in drawn} == {0, 1, 2}
    for v in drawn:
        want = v["self"].shape if v["reduction"] == 0 else ()
        assert v["grad_output"].shape == want
    betas = {(v["beta"], v["self"].dtype) for v in drawn}
    assert (0.0, torch.float32) in betas and all(d == torch.float32 for b, d in betas if b == 0.0)
    assert {b for b, _ in betas} >= {0.0, 0.5, 1.0, 2.0}
    assert any(v["reduction"] == 1 and math.prod(v["self"].shape) > 1 for v in drawn)


def test_select_backward_draws_negative_dims_indices_and_empty_sizes():
    drawn = values("select_backward", size="small")
    assert any(v["dim"] < 0 for v in drawn) and any(v["index"] < 0 for v in drawn)
    assert any(v["dim"] < 0 and v["index"] < 0 for v in drawn) or any(v["index"] == -1 for v in drawn)
    assert any(0 in v["input_sizes"] for v in drawn)
    assert {len(v["input_sizes"]) for v in drawn} >= {1, 2, 3, 4}
    assert any(isinstance(v.get("out"), OutputSpec) for v in drawn)


def _overlap(op_name, v):
    """The reference on a grad_output of ones: an input position hit k times gets k."""
    op = registry.get(op_name)
    ov = op.overloads[0]
    real = {k: (torch.ones(x.shape, dtype=torch.float64) if k == "grad_output" else
                torch.zeros(x.shape, dtype=torch.float64)) if isinstance(x, TensorSpec) else x
            for k, x in v.items() if k in {p.name for p in ov.params}}
    args, kwargs = ov.split(real)
    return ov.reference(*args, **kwargs)


def test_reflection_pad1d_draws_asymmetric_edge_width_and_overlapping_gradients():
    drawn = values("reflection_pad1d_backward", "reflection_pad1d_backward", "small")
    assert any(left != right for left, right in (v["padding"] for v in drawn))
    assert any(max(v["padding"]) == v["self"].shape[-1] - 1 for v in drawn)  # a side of width - 1
    assert any(min(v["padding"]) < 0 for v in drawn)  # a crop
    assert {len(v["self"].shape) for v in drawn} == {2, 3}
    assert any(_overlap("reflection_pad1d_backward", v).max() >= 3 for v in drawn)  # both mirrors + itself


def _f32(x):
    return torch.tensor(x, dtype=torch.float32)


def _forward_source(o, n_in, n_out, scale):
    """ATen's forward (CPU nearest_idx): the input index output index o reads."""
    if n_out == n_in:
        return o
    if n_out == 2 * n_in:
        return o >> 1
    s = _f32(1.0 / scale) if scale else _f32(n_in) / _f32(n_out)
    return min(int(torch.floor(_f32(o) * s)), n_in - 1)


def _cuda_backward_sources(n_in, n_out, scale):
    """ATen's CUDA backward: input i collects outputs [ceil(i * s), ceil((i + 1) * s)), s = scale or
    out / in in float32."""
    s = _f32(scale) if scale else _f32(n_out) / _f32(n_in)
    src = {}
    for i in range(n_in):
        lo, hi = (min(int(torch.ceil(_f32(k) * s)), n_out) for k in (i, i + 1))
        src.update(dict.fromkeys(range(lo, hi), i))
    return src


def test_upsample_nearest2d_draws_scales_and_accumulation_where_both_devices_agree():
    drawn = values("upsample_nearest2d_backward")
    assert {v["scales_h"] is None for v in drawn} == {True, False}
    assert any(s is not None and not float(s).is_integer() for v in drawn for s in (v["scales_h"], v["scales_w"]))
    assert any(v["output_size"][0] < v["input_size"][2] for v in drawn)  # downsampling skips rows
    assert any(v["input_size"][0] == 0 for v in drawn)
    small = values("upsample_nearest2d_backward", "upsample_nearest2d_backward", "small")
    assert any(_overlap("upsample_nearest2d_backward", v).max() >= 6 for v in small)  # several pixels each
    for v in drawn:
        for axis, scale in ((0, v["scales_h"]), (1, v["scales_w"])):
            n_in, n_out = v["input_size"][2 + axis], v["output_size"][axis]
            if scale is not None:
                assert n_out == math.floor(n_in * scale)  # as F.interpolate passes them
            cuda = _cuda_backward_sources(n_in, n_out, scale)
            assert all(cuda.get(o) == _forward_source(o, n_in, n_out, scale) for o in range(n_out)), v


def test_rrelu_draws_training_both_ways_self_is_result_and_the_degenerate_range():
    drawn = values("rrelu_with_noise_backward", size="small")
    flags = {(v["training"], v["self_is_result"]) for v in drawn}
    assert flags == {(True, False), (True, True), (False, False), (False, True)}
    assert any(v["training"] and v["lower"] == v["upper"] for v in drawn)
    assert any(not v["training"] and v["lower"] + v["upper"] < 0 for v in drawn)  # a negative slope
    assert not any(v["self_is_result"] and v["lower"] + v["upper"] < 0 for v in drawn)  # ATen raises
    for v in drawn:
        assert (v["noise"].low, v["noise"].high) == (v["lower"], v["upper"])


def test_perf_tiers_are_realistic_and_functional_only():
    for name in OPS:
        op = registry.get(f"aten::{name}")
        perf = op.select_cases(sizes=("perf",))
        assert perf and all(not op.overload(c.overload).writes for c in perf), name
        shapes = [t.shape if isinstance(t, TensorSpec) else t for c in perf for k, t in c.sample.values.items()
                  if isinstance(t, TensorSpec) or k == "input_sizes"]  # select_backward's output
        big = max(math.prod(s) for s in shapes)
        assert big >= 10**8, name  # (8192, 14336) activations, (32, 64, 224, 224) images, ...


def test_reflection_pad_backward_floor_counts_no_read_of_self() -> None:
    """`self` gives the backward its shape only: its bytes are no part of the bandwidth floor (they
    put the floor above an honest kernel on the H200)."""
    from kernelgenbench.verify.timing import traffic_bytes

    op = registry.get("aten::reflection_pad1d_backward")
    ov = op.overloads[0]
    grad, x = torch.zeros(4, 8, 40), torch.zeros(4, 8, 32)
    assert traffic_bytes(op, ov, {"grad_output": grad, "self": x, "padding": [4, 4]}, [torch.zeros(4, 8, 32)]) == \
        (4 * 8 * 40 + 4 * 8 * 32) * 4
