"""The semantics ATen part 1 promises are in the grids: each is drawn, so a kernel that gets it
wrong meets it (the reference solutions and the audits then judge them on every commit)."""

from __future__ import annotations

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.spec import DeviceArg, OutputSpec, TensorSpec

INTS = (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64)


def values(op_name, overload=None):
    op = registry.get(op_name)
    return [c.sample.values for c in op.cases if overload is None or c.overload == overload]


def tensors(op_name, overload=None, arg="self"):
    return [v[arg] for v in values(op_name, overload) if isinstance(v.get(arg), TensorSpec)]


def test_scalar_overloads_and_rounding_modes_are_drawn():
    for op, ov in [("sub", "sub.Scalar"), ("rsub", "rsub.Scalar"), ("pow", "pow.Scalar"),
                   ("pow", "pow.Tensor_Scalar"), ("add_", "add_.Scalar"), ("div", "div.Scalar_mode")]:
        assert values(op, ov), ov
    modes = {v.get("rounding_mode") for v in values("div", "div.Tensor_mode")}
    assert {None, "trunc", "floor"} <= modes
    assert {type(v["exponent"]) for v in values("pow", "pow.Tensor_Scalar")} >= {int, float}


def test_integer_and_bool_inputs_where_the_schema_takes_them():
    assert any(t.dtype in INTS and t.low < 0 for t in tensors("floor_divide"))  # Python's sign rule
    assert {torch.bool} <= {t.dtype for t in tensors("bitwise_not")} and any(
        t.dtype in INTS for t in tensors("bitwise_not"))
    assert any(t.dtype == torch.bool for t in tensors("eq"))
    assert any(t.dtype in INTS for t in tensors("div", "div.Tensor_mode"))
    assert any(t.dtype in INTS for t in tensors("cos"))  # an int tensor's cos is float32


def test_broadcasting_and_zero_d_operands_meet_n_d_ones():
    pairs = [(v["self"], v["other"]) for v in values("sub", "sub.Tensor")]
    assert any(a.shape != b.shape for a, b in pairs)
    assert any(len(b.shape) == 0 and len(a.shape) > 0 for a, b in pairs)
    assert any(b.dtype != a.dtype for a, b in pairs)


def test_special_values_are_drawn_where_they_decide_the_result():
    for op in ("fmax", "heaviside", "sgn", "logit", "i0", "special_entr", "div", "logaddexp2", "pow"):
        assert any(t.dist == "special" for v in values(op) for t in v.values() if isinstance(t, TensorSpec)), op
    assert {0, 1, 2, 3} <= {v["n"] for v in values("polygamma")}
    assert {None} < {v.get("eps") for v in values("logit")}


def test_in_place_and_out_forms_write_their_arguments():
    for op in ("add_", "div_", "masked_fill_", "fill_", "zero_", "copy_"):
        assert all("self" in ov.writes for ov in registry.get(op).overloads), op
    for op in ("div", "pow", "eq", "cos", "zeros", "arange", "clone", "_to_copy"):
        assert any(isinstance(v.get("out"), OutputSpec) for v in values(op)), op


def test_creation_takes_dtype_and_device_and_arange_float_steps():
    for op in ("arange", "full", "zeros", "zeros_like", "ones_like", "scalar_tensor"):
        drawn = values(op)
        assert any(isinstance(v.get("device"), DeviceArg) for v in drawn), op
        assert {v.get("dtype") for v in drawn} - {None}, op
    steps = [v["step"] for v in values("arange", "arange.start_step")]
    assert any(isinstance(s, float) and s != int(s) for s in steps) and any(s < 0 for s in steps)


def test_copies_convert_every_kind_of_dtype_pair_with_memory_formats():
    pairs = {(v["self"].dtype, v["dtype"]) for v in values("_to_copy") if v.get("dtype") is not None}
    assert any(a.is_floating_point and b in INTS for a, b in pairs)  # truncation toward zero
    assert any(a in INTS and b.is_floating_point for a, b in pairs)
    assert any(b == torch.bool for _, b in pairs)
    formats = {v.get("memory_format") for v in values("clone")}
    assert {torch.preserve_format, torch.contiguous_format} <= formats
    assert {True, False} <= {v.get("non_blocking") for v in values("to", "to.dtype")}
    assert {True, False} <= {v.get("copy") for v in values("to", "to.dtype")}


def test_views_allocations_and_scalars_are_judged_for_what_they_are():
    for op in ("as_strided", "expand", "expand_as", "narrow", "reshape", "select", "t", "unsqueeze",
               "unsafe_split", "unsafe_split_with_sizes", "resolve_conj", "resolve_neg"):
        o = registry.get(op)
        assert o.work == "view" and not o.timed, op
    for op in ("empty_strided", "new_empty_strided"):
        assert registry.get(op).compare == "strides"
    for op in ("clone", "_to_copy", "to", "contiguous", "zeros_like", "ones_like"):
        assert registry.get(op).compare == "values_and_strides", op
    for op in ("item", "_local_scalar_dense"):
        assert registry.get(op).work == "read"
        assert {torch.float32, torch.int64, torch.bool} <= {t.dtype for t in tensors(op)}
    assert {"conj"} == {t.bit for t in tensors("resolve_conj")} - {""}
    assert {"neg"} == {t.bit for t in tensors("resolve_neg")} - {""}
    assert any(isinstance(v["start"], TensorSpec) for v in values("narrow", "narrow.Tensor"))
