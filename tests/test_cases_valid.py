"""Every case of every tier is a valid call of the reference, checked on meta tensors (no data).

The large and perf tiers only run on a GPU; this catches a malformed case before it costs one.
"""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import upcast_value
from kernelgenbench.suite.spec import OutputSpec, TensorSpec


def _blank(v, device):
    if isinstance(v, (TensorSpec, OutputSpec)):
        if isinstance(v, TensorSpec) and v.dist == "index":
            return torch.zeros(v.shape, dtype=v.dtype, device=device)
        return torch.empty(v.shape, dtype=v.dtype, device=device)
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, TensorSpec) for x in v):
        return type(v)(_blank(x, device) for x in v)
    return v


def _call(ov, case, device):
    values = {k: upcast_value(_blank(v, device)) for k, v in case.sample.values.items()}
    args, kwargs = ov.split(values)
    ov.reference(*args, **kwargs)


@pytest.mark.sweep
@pytest.mark.parametrize("op", registry.specified(), ids=lambda o: o.id)
def test_every_case_is_a_valid_reference_call(op):
    failures = []
    for case in op.cases:
        ov = op.overload(case.overload)
        try:
            try:
                _call(ov, case, "meta")
            except (TypeError, NotImplementedError):
                if case.size != "small":
                    continue  # torch has no working meta kernel here; the small tier checks it for real
                _call(ov, case, "cpu")
        except Exception as e:  # noqa: BLE001 - collect every malformed case
            failures.append(f"{case.name}: {type(e).__name__}: {e}")
    assert not failures, "\n".join(failures[:10])
