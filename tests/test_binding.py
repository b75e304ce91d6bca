"""The candidate is called through the dispatcher, and a skipped registration is never a pass."""

from __future__ import annotations

import torch

from kernelgenbench.suite import registry
from kernelgenbench.verify.bind import DispatcherBinding, load_module, required_functions
from kernelgenbench.verify.correctness import CaseRunner
from kernelgenbench.verify.verdict import Status


def _runner(candidate, key):
    op = registry.get("aten::silu")
    functions = required_functions(op, load_module(candidate("silu_good")))
    return op, CaseRunner(op, DispatcherBinding(functions, key), "cpu", seed=3)


def test_candidate_answers_through_the_dispatcher(candidate):
    op, runner = _runner(candidate, "CPU")
    outcome = runner.run(op.cases[10])
    assert outcome.result.status is Status.PASS
    assert runner.binding.calls["silu"] == 1


def test_registration_on_the_wrong_key_is_an_infra_error(candidate):
    # Negative control: the native kernel answers, so the harness must refuse to call it a pass.
    op, runner = _runner(candidate, "CUDA")
    outcome = runner.run(op.cases[10])
    assert outcome.result.status is Status.INFRA_ERROR
    assert "without reaching the candidate" in outcome.result.reason


def test_registration_ends_with_the_case(candidate):
    op, runner = _runner(candidate, "CPU")
    runner.run(op.cases[10])
    x = torch.randn(8)
    assert torch.allclose(torch.nn.functional.silu(x), x * torch.sigmoid(x))
    assert runner.binding.calls["silu"] == 1
