"""argmax and sort draw the semantics that decide their index outputs: ties where the first index
(argmax) or the input order (stable sort) is judged, and no ties where the order of ties is
unspecified (an unstable sort), so the exact index comparison is fair to every correct kernel."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import exact_integers, make_tensor, materialize
from kernelgenbench.suite.spec import OutputSpec, TensorSpec


def cases(op_name, size=None):
    return [c for c in registry.get(op_name).cases if size is None or c.size == size]


def drawn(case):
    return materialize(case.sample.values, seed=1234, device="cpu")


def _rows(x, dim):
    """The 1-d slices along `dim`, as the rows of a matrix."""
    if x.dim() == 0:
        return x.reshape(1, 1)
    return x.movedim(dim, -1).reshape(-1, x.shape[dim])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
                                   torch.int32, torch.bool])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_distinct_draws_no_two_equal_values(dtype, layout):
    n = min(exact_integers(dtype), 2048)
    shape = (2, (n - 2) // 4) if layout == "strided" else (4, n // 4)
    t = make_tensor(TensorSpec(shape, dtype, layout, "distinct"), torch.Generator().manual_seed(0), "cpu")
    assert t.shape == shape and t.unique().numel() == t.numel()
    if dtype.is_floating_point:
        assert t.abs().max() <= 1 and t.abs().max() >= 0.25  # scaled into [-1, 1), not crowded at zero
    with pytest.raises(ValueError):  # raised before anything is drawn
        make_tensor(TensorSpec((exact_integers(dtype) + 1,), dtype, dist="distinct"),
                    torch.Generator().manual_seed(0), "cpu")


def test_argmax_draws_every_dim_form_and_integer_inputs():
    values = [c.sample.values for c in cases("aten::argmax")]
    dims = {v["dim"] for v in values}
    assert None in dims and any(d is not None and d < 0 for d in dims) and any(d is not None and d >= 0 for d in dims)
    assert {True, False} <= {v["keepdim"] for v in values}
    assert {torch.int32, torch.int64, torch.float32, torch.float16, torch.bfloat16} <= {v["self"].dtype for v in values}
    assert any(v["self"].dist == "special" for v in values)  # NaN: the first NaN wins
    assert any(isinstance(v.get("out"), OutputSpec) and v["out"].dtype == torch.int64 for v in values)


def test_argmax_meets_ties_at_the_maximum():
    """The first index of a tied maximum is judged, in integers and in 16-bit floats."""
    tied = set()
    for c in cases("aten::argmax", "small"):
        v = drawn(c)
        x, dim = v["self"], v["dim"]
        if x.numel() == 0:
            continue
        rows = x.reshape(1, -1) if dim is None else _rows(x, dim)
        top = rows.max(dim=1, keepdim=True).values
        if ((rows == top).sum(dim=1) > 1).any() and not x.isnan().any():
            tied.add(x.dtype)
    assert {torch.int32, torch.int64, torch.float16, torch.bfloat16} <= tied


def test_sort_draws_stable_flags_directions_and_dims():
    values = [(c.overload, c.sample.values) for c in cases("aten::sort")]
    assert {True, False, None} <= {v.get("stable") for ov, v in values if ov == "sort.stable"}
    assert {True, False} <= {v["descending"] for _, v in values}
    assert any(v["dim"] < 0 for _, v in values) and any(v["dim"] >= 0 for _, v in values)
    assert {"sort", "sort.stable", "sort.values", "sort.values_stable"} <= {ov for ov, _ in values}
    lengths = {v["self"].shape[v["dim"]] if v["self"].shape else 1 for _, v in values}
    assert {1, 2} <= lengths and any(n % 2 for n in lengths if n > 2) and max(lengths) > 4096  # merged runs
    assert any(v["self"].dist == "special" and v["stable"] for _, v in values)  # NaN, +-inf, +-0.0 ties
    assert {torch.bfloat16, torch.float16} <= {v["self"].dtype for _, v in values if v.get("stable")}
    outs = [v for ov, v in values if ov.startswith("sort.values")]
    assert outs and all(v["values"].dtype == v["self"].dtype and v["indices"].dtype == torch.int64 for v in outs)


@pytest.mark.parametrize("size", ["small", "large", "perf"])
def test_unstable_sorts_meet_no_ties_and_stable_ones_do(size):
    """Where the order of ties is unspecified, every sorted slice is tie-free, so the exact index
    comparison is fair; where it is stable, ties are drawn."""
    stable_ties = False
    for c in cases("aten::sort", size):
        v = drawn(c)
        x = v["self"]
        if x.numel() == 0:
            continue
        rows = _rows(x, v["dim"]).double().nan_to_num(nan=float("inf"))
        s = rows.sort(dim=1).values
        ties = bool((s[:, 1:] == s[:, :-1]).any())
        if v.get("stable"):
            stable_ties |= ties
        else:
            assert not ties, c.name
    assert stable_ties or size == "perf"
