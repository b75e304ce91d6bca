"""The semantics the loss and nn records promise are in their grids: each is drawn, so a kernel
that gets one wrong meets it (the reference solutions and the audits then judge them)."""

from __future__ import annotations

import math

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.build import FLOATS, SUM_TOLERANCE
from kernelgenbench.suite.spec import OutputSpec, TensorSpec

LOSSES = ("binary_cross_entropy_with_logits", "huber_loss", "soft_margin_loss", "margin_ranking_loss")
NN = ("pairwise_distance", "im2col", "affine_grid_generator")


def values(op_name, size=None, overload=None):
    op = registry.get(op_name)
    return [c.sample.values for c in op.cases
            if (size is None or c.size == size) and (overload is None or c.overload == overload)]


def first_tensor(v):
    return next(t for t in v.values() if isinstance(t, TensorSpec))


def test_families_and_out_forms():
    for name in LOSSES:
        assert registry.get(name).family == "loss" and registry.get(name).work == "compute"
    for name in NN:
        assert registry.get(name).family == "nn" and registry.get(name).work == "compute"
    for name in ("binary_cross_entropy_with_logits", "huber_loss", "soft_margin_loss", "im2col",
                 "affine_grid_generator"):
        assert any(isinstance(v.get("out"), OutputSpec) for v in values(name)), name


def test_every_reduction_meets_every_dtype_and_empty_inputs():
    for name in LOSSES:
        op = registry.get(name)
        assert op.tolerance == SUM_TOLERANCE, name
        drawn = {(first_tensor(v).dtype, v["reduction"]) for v in values(name, "small")}
        assert drawn >= {(d, r) for d in FLOATS for r in (0, 1, 2)}, name
        empty = {v["reduction"] for v in values(name, "small") if first_tensor(v).shape and
                 0 in first_tensor(v).shape}
        assert empty == {0, 1, 2}, name  # mean of nothing is NaN, sum 0
        assert any(first_tensor(v).shape == () for v in values(name, "small")), name


def test_bce_weights_broadcast_and_extreme_logits():
    drawn = values("binary_cross_entropy_with_logits", "small")
    for arg in ("weight", "pos_weight"):
        assert any(v[arg] is None for v in drawn) and any(v[arg] is not None for v in drawn), arg
        assert any(v[arg] is not None and v[arg].shape != v["self"].shape for v in drawn), arg
    # logits past float32's exp overflow (88) and float16's (11): log(1 + exp(-x)) must be stable
    assert any(v["self"].dtype == torch.float32 and v["self"].dist == "uniform" and v["self"].high > 88
               for v in drawn)
    assert any(v["self"].dtype == torch.float16 and v["self"].dist == "uniform" and v["self"].high > 11
               for v in drawn)
    assert {v["target"].dist for v in drawn} == {"uniform", "index"}  # soft and hard {0, 1} targets
    perf = values("binary_cross_entropy_with_logits", "perf")
    assert {(v["self"].shape, v["self"].dtype) for v in perf} >= {((8192, 32000), torch.float32),
                                                                    ((8192, 32000), torch.bfloat16)}


def test_huber_deltas_soft_margin_and_ranking_targets():
    deltas = {v["delta"] for v in values("huber_loss", "small")}
    assert min(deltas) <= 0.1 and max(deltas) >= 5 and 1.0 in deltas
    for name in ("soft_margin_loss", "margin_ranking_loss"):
        targets = [v["target"] for v in values(name, "small")]
        assert all(t.dist == "index" and (t.low, t.high) == (-1, 2) for t in targets), name
    assert any(v["self"].dist == "uniform" and v["self"].high >= 20 for v in values("soft_margin_loss", "small"))
    margins = {v["margin"] for v in values("margin_ranking_loss", "small")}
    assert 0.0 in margins and any(m > 0 for m in margins) and any(m < 0 for m in margins)


def test_pairwise_distance_norms_broadcasts_and_keepdim():
    drawn = values("pairwise_distance", "small")
    assert {v["p"] for v in drawn} >= {0.0, 1.0, 2.0, 3.5, math.inf}
    assert {v["keepdim"] for v in drawn} == {True, False}
    assert {v["eps"] for v in drawn} >= {0.0, 1e-6, 1e-3}
    assert any(v["x1"].shape != v["x2"].shape for v in drawn)
    assert any(len(v["x1"].shape) == 1 and len(v["x2"].shape) == 2 for v in drawn)
    assert any(len(v["x1"].shape) == 1 and v["x1"].shape == v["x2"].shape for v in drawn)
    # p = 0 counts non-zero differences: some must be exactly zero (integers, eps = 0)
    assert all(v["x1"].dist == "index" and v["eps"] == 0.0 for v in drawn if v["p"] == 0.0)
    assert not any(math.isinf(v["p"]) and 0 in v["x1"].shape[-1:] for v in drawn)  # ATen raises
    assert any(v["x1"].shape == (65536, 256) for v in values("pairwise_distance", "perf"))


def test_im2col_configurations():
    drawn = values("im2col", "small")
    assert any(k[0] != k[1] for k in (v["kernel_size"] for v in drawn))
    for arg in ("dilation", "padding", "stride"):
        assert any(max(v[arg]) > (1 if arg != "padding" else 0) for v in drawn), arg
        assert any(v[arg][0] != v[arg][1] for v in drawn), arg
    assert {len(v["self"].shape) for v in drawn} == {3, 4}
    assert any(v["self"].shape[0] == 0 for v in drawn)
    assert any(v["self"].shape == (32, 64, 56, 56) and v["kernel_size"] == [3, 3]
               for v in values("im2col", "perf"))


def test_affine_grid_dims_alignment_and_unit_sizes():
    drawn = values("affine_grid_generator", "small")
    for spatial in (2, 3):
        same = [v for v in drawn if len(v["size"]) == spatial + 2]
        assert all(v["theta"].shape == (v["size"][0], spatial, spatial + 1) for v in same)
        assert {v["align_corners"] for v in same} == {True, False}, spatial
    assert any(1 in v["size"][2:] for v in drawn)  # a single point sits at 0, not -1
    assert any(v["size"][0] == 0 for v in drawn)
    assert any(v["size"] == [32, 3, 224, 224] for v in values("affine_grid_generator", "perf"))
