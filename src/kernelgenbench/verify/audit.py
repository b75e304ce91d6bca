"""`kgbench audit`: proof that the tolerance rejects null candidates on the suite's own cases.

For every case, the outputs of five null candidates are judged exactly as a candidate's would be:
zeros, uninitialised memory, a copy of an input (for in-place outputs: left unchanged), a constant
equal to the reference's mean, and the native op computed in a lower precision; for a perturbed
twin also its original's contract (the original's native op on the twin's inputs: a recited
answer), which must fail too, or the twin could not tell recall from derivation. A null may pass a
degenerate case (a dimension of size one, a BLAS quick return) where its answer is the right one;
it must never pass every case of an overload, or the suite could not tell it from a kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from ..suite import registry
from ..suite.inputs import clone_values, rebased
from ..suite.spec import Case, Operator, Overload
from .correctness import case_inputs, check_values, expected_outputs, outputs_of, scalar_problem, written

LOWER = {torch.float32: torch.bfloat16, torch.float64: torch.float32}


@dataclass(frozen=True)
class NullPass:
    case: str
    null: str


@dataclass
class OperatorAudit:
    op: str
    cases: int = 0
    passes: list[NullPass] = field(default_factory=list)
    holes: list[tuple[str, str]] = field(default_factory=list)  # (overload, null) passing every case
    skipped: str = ""  # why no null can be judged (the values are undefined)

    @property
    def ok(self) -> bool:
        return not self.holes


def _first_input_like(values: dict[str, Any], writes: tuple[str, ...], want: torch.Tensor) -> torch.Tensor | None:
    """The first floating input's values, in order, cut or repeated to the output's shape."""
    for name, v in values.items():
        if name in writes or not isinstance(v, torch.Tensor) or not v.dtype.is_floating_point or not v.numel():
            continue
        flat = v.reshape(-1).to(want.dtype)
        reps = -(-want.numel() // flat.numel())
        return flat.repeat(reps)[: want.numel()].reshape(want.shape).clone()
    return None


def _lower_precision(op: Operator, ov: Overload, values: dict[str, Any], device: str) -> list[Any] | None:
    """The native op on inputs rounded to a lower precision, rounded back: a precision downgrade."""
    lowered = [k for k, v in values.items()
               if isinstance(v, torch.Tensor) and v.dtype in LOWER and k not in ov.writes and v.numel()]
    if not lowered:
        return None
    low = clone_values(values)
    for k, v in low.items():
        if isinstance(v, torch.Tensor) and v.dtype in LOWER and k not in ov.writes:
            low[k] = v.to(LOWER[v.dtype]).to(v.dtype)
    low = rebased(low, values)
    args, kwargs = ov.split(low)
    try:
        return outputs_of(ov, op.native(device, ov)(*args, **kwargs), low)
    except (RuntimeError, TypeError, ValueError):
        return None


def _original_contract(op: Operator, ov: Overload, values: dict[str, Any], device: str) -> list[Any] | None:
    """A twin's original, natively, on the twin's inputs: what a candidate that recites it returns."""
    original = registry.get(op.twin_of)
    try:
        mine = original.overload(ov.name)
        given = rebased(clone_values(values), values)
        args, kwargs = mine.split(given)
        return outputs_of(mine, original.native(device, mine)(*args, **kwargs), given)
    except (KeyError, RuntimeError, TypeError, ValueError):
        return None


def null_outputs(op: Operator, ov: Overload, values: dict[str, Any], reference: list[Any], native: list[Any],
                 device: str) -> Iterator[tuple[str, list[Any]]]:
    before = written(ov, values)
    returned = len(native) - len(before)
    tensors = [t for t in native if isinstance(t, torch.Tensor)]
    if not tensors:  # Python numbers (`item`): zero, and the right value as a float
        yield "zero", [type(n)(0) for n in native]
        if any(not isinstance(n, float) for n in native):
            yield "float", [float(n) for n in native]
        return
    if len(tensors) != len(native):
        return
    yield "zeros", [torch.zeros_like(t) for t in native]
    yield "uninitialised", [torch.empty_like(t) for t in native]
    copies = [_first_input_like(values, ov.writes, t) for t in native[:returned]]
    copies += [t.clone() for t in before]
    if all(c is not None for c in copies):
        yield "input copy", copies
    if all(r.is_floating_point() or r.is_complex() for r in reference) and any(
            r.numel() > 1 and not bool((r == r.reshape(-1)[0]).all()) for r in reference):
        # where the reference is one value, its mean is the answer, not a null
        means = [complex(r.mean()).real if r.is_complex() else float(r.double().mean()) if r.numel() else 0.0
                 for r in reference]
        if all(abs(m) <= torch.finfo(t.dtype).max for m, t in zip(means, native)):  # else it overflows
            yield "reference mean", [torch.full_like(t, m) if t.numel() else torch.empty_like(t)
                                     for t, m in zip(native, means)]
    low = None if op.compare == "distribution" else _lower_precision(op, ov, values, device)  # draws are no null
    if low is not None:
        yield "lower precision", low
    recited = _original_contract(op, ov, values, device) if op.twin_of else None
    if recited is not None:
        yield "original contract", recited


def _is_answer(out: Any, native: Any) -> bool:
    """Whether a null's output is bit for bit the native result (and that result has values)."""
    if not isinstance(native, torch.Tensor):
        return scalar_problem(out, native) is None
    return native.numel() > 0 and out.shape == native.shape and out.dtype == native.dtype and bool(
        torch.equal(out, native) or (out.is_floating_point() and torch.equal(out.isnan(), native.isnan())
                                     and bool((out.double().nan_to_num() == native.double().nan_to_num()).all())))


def audit_operator(op: Operator, device: str, sizes: tuple[str, ...], seed: int,
                   progress: Callable[[str], None] = lambda _: None) -> OperatorAudit:
    result = OperatorAudit(op.id)
    if op.compare == "strides":
        result.skipped = "values undefined: judged on shape, dtype and strides, and by the host-code rule"
        return result
    failed_once: dict[tuple[str, str], bool] = {}
    cases: list[Case] = list(op.select_cases(sizes=sizes))  # type: ignore[arg-type]
    for case in cases:
        progress(case.name)
        ov = op.overload(case.overload)
        values = case_inputs(case, seed, device)
        expected = expected_outputs(op, ov, values, device)
        reference, native = expected.reference, expected.native
        if all(isinstance(t, torch.Tensor) and t.numel() == 0 for t in native):
            continue
        result.cases += 1
        views = any(a is not None for a in expected.aliases)  # a null is a new tensor, never the view
        for null, outs in null_outputs(op, ov, values, reference, native, device):
            if not views and all(_is_answer(o, n) for o, n in zip(outs, native)):
                continue  # a constant is the whole answer here (zeros); no tolerance can tell it apart
            passed = not views and all(
                scalar_problem(o, n) is None for o, n in zip(outs, native) if not isinstance(n, torch.Tensor)
            ) and check_values(op, ov, values, outs, expected, seed).ok
            key = (ov.name, null)
            failed_once[key] = failed_once.get(key, False) or not passed
            if passed:
                result.passes.append(NullPass(case.name, null))
    result.holes = sorted(key for key, failed in failed_once.items() if not failed)
    return result
