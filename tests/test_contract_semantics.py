"""The contract beyond values: views alias as ATen's do, Python scalars have ATen's type, in-place
forms return their argument, and a data operator's values come from its own kernel."""

from __future__ import annotations

from kernelgenbench import api
from kernelgenbench.methods.files import candidate_path
from kernelgenbench.methods.reference import solutions_dir
from kernelgenbench.verify.verdict import Status


def judge(path, op, **kw):
    return api.verify_file(path, op, device="cpu", seed=11, **kw)


def test_a_view_with_the_wrong_strides_fails_even_where_values_happen_to_match(candidate):
    v = judge(candidate("t_wrong_strides"), "aten::t")
    assert v.status is Status.WRONG_RESULT, v.reason
    assert "native op returns a view of `self`" in v.reason or "numerical error" in v.reason


def test_a_scalar_of_the_wrong_python_type_fails(candidate):
    v = judge(candidate("item_float"), "aten::item")
    assert v.status is Status.WRONG_RESULT
    assert "is a float" in v.reason and "expected an int" in v.reason


def test_an_uninitialised_creation_never_passes(candidate):
    v = judge(candidate("zeros_uninitialised"), "aten::zeros")
    assert v.status in (Status.WRONG_RESULT, Status.HACK_GHOST), v.reason
    if v.status is Status.HACK_GHOST:
        assert "no Triton kernel was launched" in v.reason


def test_shipped_view_and_scalar_solutions_pass():
    for op in ("aten::t", "aten::item"):
        v = judge(candidate_path(solutions_dir(), op), op)
        assert v.status is Status.PASS, (op, v.reason)


def test_a_new_tensor_where_aten_returns_one_must_not_alias_the_input(candidate):
    v = judge(candidate("clone_returns_self"), "aten::clone")
    assert v.status is Status.WRONG_RESULT
    assert "shares memory with `self`; the native op returns a new tensor" in v.reason


def test_an_in_place_form_must_write_its_argument(candidate):
    """Through the dispatcher an in-place call returns `self` whatever the kernel returns, so a
    kernel that answers in a new tensor leaves the caller's tensor unchanged: wrong."""
    v = judge(candidate("add__writes_a_copy"), "aten::add_")
    assert v.status is Status.WRONG_RESULT
    assert v.reason.startswith("output 0: numerical error too large")
