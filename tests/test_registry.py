"""The suite knows the 210 published operators and reads ATen overloads from the live registry."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.registry import UnknownOperator

SLICE = {
    "aten": {"add", "mul", "silu", "rsqrt", "softmax", "sum", "mean", "cumsum", "mm", "index_select"},
    "vllm": {"rms_norm", "fused_add_rms_norm", "rotary_embedding"},
    "cublas": {"cublasSaxpy_v2", "cublasDgemv_v2", "cublasSgemm_v2"},
}


# Operators with work but nothing at GPU scale to check or time (metadata operators have none either).
UNTIMED_WORK = {"aten::scalar_tensor"}  # a 0-d result: one launch, no data


def test_catalog_has_the_published_counts():
    assert len(registry.all_ids()) == 210
    assert [len(registry.all_ids(s)) for s in ("aten", "vllm", "cublas")] == [110, 50, 50]
    assert len(set(registry.all_ids())) == 210
    assert registry.VIEWS["MC"] == ("aten",)


def test_the_slice_is_specified():
    for source, names in SLICE.items():
        assert names <= {op.name for op in registry.specified(source)}


def test_names_resolve_and_unknown_ones_fail_clearly():
    assert registry.normalize("softmax") == "aten::softmax"
    assert registry.normalize("vllm.rms_norm") == "vllm::rms_norm"
    with pytest.raises(UnknownOperator, match="unknown operator 'softmaxx'"):
        registry.get("softmaxx")


def test_every_published_operator_is_specified():
    assert [e.id for e in registry.entries() if not e.specified] == []
    assert len(registry.specified()) == 210


def test_a_published_operator_without_a_record_is_named_as_such(monkeypatch):
    """The catalog (OPERATORS.md) and the records are separate: one published later than its record
    is reported as not specified, not as unknown."""
    records = dict(registry._factories("vllm"))
    records.pop("rms_norm")
    monkeypatch.setattr(registry, "_factories", lambda source: records if source == "vllm" else {})
    assert not next(e for e in registry.entries("vllm") if e.name == "rms_norm").specified
    with pytest.raises(UnknownOperator, match="not specified yet"):
        registry.get("vllm::rms_norm")


def test_aten_overloads_follow_the_live_schema_registry():
    def in_dispatcher(name, overload):
        try:
            torch._C._dispatch_find_schema_or_throw(name, overload)
            return True
        except RuntimeError:
            return False

    for op in registry.specified("aten"):
        live = {s.overload_name for s in torch._C._jit_get_schemas_for_operator(op.id)
                if any("Tensor" in str(a.real_type) for a in [*s.arguments, *s.returns])
                and "Dimname" not in str(s) and in_dispatcher(op.id, s.overload_name)}
        assert {ov.name.partition(".")[2] for ov in op.overloads} == live
        assert all(ov.func_name == ov.name.replace(".", "_") for ov in op.overloads)


@pytest.mark.parametrize("op", registry.specified(), ids=lambda o: o.id)
def test_every_overload_has_small_public_and_hidden_cases(op):
    small = op.select_cases(sizes=("small",))
    for ov in op.overloads:
        mine = [c for c in small if c.overload == ov.name]
        assert mine, f"{ov.name} has no small cases"
        assert {c.visibility for c in mine} == {"public", "hidden"}
    if op.work in ("compute", "data") and op.id not in UNTIMED_WORK:
        assert op.select_cases(sizes=("large",)) and op.select_cases(sizes=("perf",))
        assert op.timed
    assert len({c.name for c in op.cases}) == len(op.cases), "case names must be unique"


def test_two_samples_with_one_label_are_a_grid_error():
    """A label seeds a case's inputs: two value ranges under one label would silently be one case."""
    from kernelgenbench.suite.aten.family import samples_of
    from kernelgenbench.suite.spec import TensorSpec

    ov = registry.get("aten::silu").overload("silu")
    grid = [{"self": TensorSpec((3,), torch.float32, dist="uniform", low=0, high=1)},
            {"self": TensorSpec((3,), torch.float32, dist="uniform", low=5, high=9)}]
    with pytest.raises(ValueError, match="share the label"):
        list(samples_of(ov, grid))
