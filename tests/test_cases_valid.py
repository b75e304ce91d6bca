"""Every case of every tier is a valid call of the reference, checked on meta tensors (no data).

The large and perf tiers only run on a GPU; this catches a malformed case before it costs one.
"""

from __future__ import annotations

import pytest

from kernelgenbench.suite import registry
from kernelgenbench.suite.aten.family import blank
from kernelgenbench.suite.cublas.pointers import is_pointers
from kernelgenbench.suite.inputs import rebased, upcast_value


def _call(ov, case, device):
    blanks: dict = {}
    for k, v in case.sample.values.items():  # pointer arrays address the blanks of their pools
        blanks[k] = v.draw(None, *(blanks[o] for o in v.of)) if is_pointers(v) else blank(v, device)
    values = rebased({k: upcast_value(v) for k, v in blanks.items()}, blanks)
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
            except (TypeError, NotImplementedError, RuntimeError) as e:  # no meta kernel (or `item` of one)
                if case.size != "small":
                    if isinstance(e, RuntimeError) and not isinstance(e, NotImplementedError):
                        raise
                    continue  # no meta kernel (or a data-dependent shape); the small tier checks it for real
                _call(ov, case, "cpu")
        except Exception as e:  # noqa: BLE001 - collect every malformed case
            failures.append(f"{case.name}: {type(e).__name__}: {e}")
    assert not failures, "\n".join(failures[:10])
