"""The libcublas binding's Python side, run without a GPU: every routine of every small case reaches
its C function with the prototype's argument count and types (ctypes converts each one as the real
call would). The library itself is judged on the H200 (benchmarks/cublas_agreement.py)."""

from __future__ import annotations

import contextlib
import ctypes

import pytest

from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas import library
from kernelgenbench.verify.correctness import case_inputs

ROUTINES = [o for o in registry.specified() if o.source == "cublas"]


class Recorder(library.Cublas):
    """The binding with each C function replaced by a check of what it is handed."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def _handle(self, device):
        return ctypes.c_void_p()

    def _call(self, name, *args):
        types = library.PROTOTYPES[name]
        assert len(args) == len(types), f"{name}: {len(args)} arguments for a prototype of {len(types)}"
        for i, (arg, t) in enumerate(zip(args, types)):
            try:
                t.from_param(arg)
            except (TypeError, ctypes.ArgumentError) as e:
                raise AssertionError(f"{name} argument {i}: {arg!r} is no {t.__name__}: {e}") from None
        self.calls.append(name)


@pytest.mark.parametrize("op", ROUTINES, ids=[o.name for o in ROUTINES])
def test_every_case_reaches_its_c_function(op, monkeypatch):
    monkeypatch.setattr(library.torch.cuda, "device", lambda index: contextlib.nullcontext())
    binding = Recorder()
    for case in op.select_cases(sizes=("small",)):
        ov = op.overload(case.overload)
        args, kwargs = ov.split(case_inputs(case, 1, "cpu"))
        getattr(binding, ov.name)(*args, **kwargs)
    assert op.name in binding.calls or op.name.removesuffix("_v2") + "_v2" in binding.calls, binding.calls
