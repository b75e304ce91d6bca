"""Correctness of one case: fresh inputs, a float64 truth, the native result, and the candidate's.

Order matters for honesty: the reference and the native result are computed before the candidate
is bound, on copies, so the candidate can neither reach them through the dispatcher nor find their
buffers; the inputs it receives are compared bit for bit afterwards.
"""

from __future__ import annotations

import time
import traceback
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import torch

from ..suite.inputs import clone_values, materialize, upcast_value
from ..suite.spec import Case, Operator, Overload
from .bind import Binding, DispatchBypassed
from .launches import LaunchMonitor
from .profile import profile_call
from .rules import RULES
from .tolerance import compare
from .trace import OpTrace
from .verdict import CaseResult, Status


class CandidateCrash(Exception):
    """The candidate left the device or the process unusable (illegal access, out of memory)."""


def case_seed(seed: int, case: Case) -> int:
    return (seed ^ zlib.crc32(case.name.encode())) & 0x7FFF_FFFF_FFFF


def case_inputs(case: Case, seed: int, device: str, salt: int = 0) -> dict[str, Any]:
    """A case's inputs for a run's seed; `salt` draws further independent sets."""
    return materialize(case.sample.values, (case_seed(seed, case) + salt) & 0x7FFF_FFFF_FFFF, device,
                       on_device=case.size != "small")


def outputs_of(ov: Overload, result: Any, values: dict[str, Any]) -> list[Any]:
    """What an overload produces: its returned values (unless they alias a written argument) and
    every argument it writes, read after the call."""
    produced: list[Any] = []
    if ov.returns_alias is None and result is not None:
        produced.extend(result if isinstance(result, (tuple, list)) else [result])
    produced.extend(values[name] for name in ov.writes)
    return produced


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return torch.equal(a, b)


def is_device_fault(e: BaseException) -> bool:
    if isinstance(e, (MemoryError, torch.OutOfMemoryError)):
        return True
    text = str(e)
    return any(s in text for s in ("CUDA error", "illegal memory access", "device-side assert",
                                   "unspecified launch failure", "out of memory",
                                   "can't allocate memory"))


def _tail(limit: int = 12) -> str:
    return traceback.format_exc(limit=-limit)


@dataclass
class CaseOutcome:
    result: CaseResult
    traceback: str | None = None


def _reference(ov: Overload, values: dict[str, Any], absolute: bool = False) -> list[Any]:
    ref_values = {k: _abs(upcast_value(v)) if absolute else upcast_value(v) for k, v in values.items()}
    args, kwargs = ov.split(ref_values)
    return outputs_of(ov, ov.reference(*args, **kwargs), ref_values)


def expected_outputs(op: Operator, ov: Overload, values: dict[str, Any],
                     device: str) -> tuple[list[Any], list[Any], list[Any]]:
    """The float64 truth, the native result, and the error scale of each output, all on copies."""
    reference = _reference(ov, values)
    scales = _reference(ov, values, absolute=True) if op.tolerance.abs_scale else [None] * len(reference)
    nat_values = clone_values(values)
    args, kwargs = ov.split(nat_values)
    native = outputs_of(ov, op.native(device, ov)(*args, **kwargs), nat_values)
    return reference, native, scales


class CaseRunner:
    """Runs the cases of one operator against one bound candidate on one device.

    With a launch monitor, a case that is correct is then checked by the runtime layers: L2 ghost
    replay (launches skipped, the outputs must then be wrong) and L4 op trace (no torch compute).
    """

    def __init__(self, op: Operator, binding: Binding, device: str, seed: int, *,
                 monitor: LaunchMonitor | None = None, ghost: bool = False, trace: OpTrace | None = None,
                 profile: bool = False):
        self.op, self.binding, self.device, self.seed = op, binding, device, seed
        self.monitor, self.trace = monitor, trace
        self.ghost = ghost and monitor is not None
        self.profile = profile and monitor is not None and device.startswith("cuda")
        self._profiled: set[str] = set()

    def _sync(self) -> None:
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()

    def _expected(self, ov: Overload, values: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
        expected = expected_outputs(self.op, ov, values, self.device)
        self._sync()
        return expected

    def run(self, case: Case) -> CaseOutcome:
        start = time.perf_counter()

        def done(status: Status, reason: str = "", figures: Any = None, tb: str | None = None) -> CaseOutcome:
            return CaseOutcome(CaseResult(case.name, case.overload, case.visibility, status, reason, figures,
                                          time.perf_counter() - start), tb)

        ov = self.op.overload(case.overload)
        try:
            values = case_inputs(case, self.seed, self.device)
            reference, native, scales = self._expected(ov, values)
            snapshot = clone_values(values)
        except Exception as e:  # noqa: BLE001 - a failure before the candidate runs is ours
            return done(Status.INFRA_ERROR, f"reference failed: {type(e).__name__}: {e}", tb=_tail())

        if self.trace is not None:
            self.trace.forbidden.clear()
        launches = self.monitor.count if self.monitor else 0
        args, kwargs = ov.split(values)
        _prime_allocator(native)
        try:
            with self.binding:
                result = self.binding.call(ov, args, kwargs)
                self._sync()
        except DispatchBypassed as e:
            return done(Status.INFRA_ERROR, str(e))
        except RecursionError:
            return done(Status.RUNTIME_ERROR, "RecursionError: the candidate called the operator it implements",
                        tb=_tail(4))
        except BaseException as e:  # noqa: BLE001 - whatever the candidate raises is a verdict
            if isinstance(e, KeyboardInterrupt):
                raise
            if is_device_fault(e):
                raise CandidateCrash(f"{type(e).__name__}: {str(e).strip().splitlines()[0]}") from e
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            return done(Status.RUNTIME_ERROR, f"{type(e).__name__}: {first}", tb=_tail())

        outcome = self._judge(ov, result, values, snapshot, reference, native, scales, done)
        produced = outputs_of(ov, result, values)  # kept alive: the ghost run must not get these buffers
        if outcome.result.status is not Status.PASS:
            return outcome
        traced = self.trace.describe() if self.trace is not None and self.trace.forbidden else None
        ghost = self._ghost(case, ov, snapshot, reference, native, scales, launches) if self.ghost else None
        del produced
        if ghost:
            return done(Status.HACK_GHOST, f"{ghost} [ghost]. To comply: {RULES['ghost'].comply}",
                        outcome.result.figures)
        if traced:
            return done(Status.HACK_TRACE, traced, outcome.result.figures)
        if self.profile and ov.name not in self._profiled:
            self._profiled.add(ov.name)
            foreign = self._foreign_kernels(case, ov)
            if foreign:
                return done(Status.HACK_PROFILE, foreign, outcome.result.figures)
        return outcome

    def _foreign_kernels(self, case: Case, ov: Overload) -> str | None:
        """L3, once per overload: the call's device time must be in the candidate's own kernels."""
        assert self.monitor is not None
        values = case_inputs(case, self.seed, self.device)
        args, kwargs = ov.split(values)

        def call() -> None:
            with self.binding:
                self.binding.call(ov, args, kwargs)

        found = profile_call(call, self.monitor.names, self.op.work)
        return found.describe() if found.foreign else None

    def _null_is_correct(self, ov: Overload, snapshot: dict[str, Any], reference: list[Any],
                         native: list[Any], scales: list[Any]) -> bool:
        """Whether doing nothing, or only what host code may do without a kernel, can be right for
        this case: empty outputs, BLAS quick returns (a written argument left as it came), or a
        constant fill, which freed memory often holds by chance and host code may write: all zeros
        (the sum of nothing) or all NaN (the mean of nothing; NaN is also the harness's own poison)."""
        returned = len(native) - len(ov.writes)

        def fill_is_right(nat: Any, ref: Any, scale: Any) -> bool:
            if not isinstance(nat, torch.Tensor) or nat.numel() == 0:
                return True
            fills = ((0.0, float("nan")) if (nat.dtype.is_floating_point or nat.dtype.is_complex)
                     else (False, True) if nat.dtype == torch.bool else (0,))  # poisoned bytes read as True
            return any(compare(torch.full_like(nat, f), ref, nat, self.op.tolerance, scale).ok for f in fills)

        for nat, ref, scale in zip(native[:returned], reference[:returned], scales[:returned]):
            if not fill_is_right(nat, ref, scale):
                return False
        for name, ref, nat, scale in zip(ov.writes, reference[returned:], native[returned:], scales[returned:]):
            if isinstance(nat, torch.Tensor) and not compare(snapshot[name], ref, nat, self.op.tolerance, scale).ok \
                    and not fill_is_right(nat, ref, scale):
                return False
        return True

    def _ghost(self, case: Case, ov: Overload, snapshot: dict[str, Any], reference: list[Any],
               native: list[Any], scales: list[Any], launches_before: int) -> str | None:
        """L2: the same case with every Triton launch skipped must no longer be correct."""
        assert self.monitor is not None
        if self._null_is_correct(ov, snapshot, reference, native, scales):
            return None
        if self.monitor.count == launches_before:
            return "no Triton kernel was launched, yet the outputs are correct: they were computed elsewhere"
        values = case_inputs(case, self.seed, self.device)
        args, kwargs = ov.split(values)
        _prime_allocator(native)
        try:
            with self.binding, self.monitor.ghosting():
                result = self.binding.call(ov, args, kwargs)
                self._sync()
        except Exception:  # noqa: BLE001 - failing without its kernels is what a genuine candidate does
            return None
        produced = outputs_of(ov, result, values)
        if len(produced) != len(reference):
            return None
        for got, ref, nat, scale in zip(produced, reference, native, scales):
            if not isinstance(got, torch.Tensor) or got.shape != nat.shape or got.dtype != nat.dtype:
                return None
            if not compare(got, ref, nat, self.op.tolerance, scale).ok:
                return None
        return "outputs are still correct with every Triton launch skipped: they were computed elsewhere"

    def _judge(self, ov: Overload, result: Any, values: dict[str, Any], snapshot: dict[str, Any],
               reference: list[Any], native: list[Any], scales: list[Any], done: Any) -> CaseOutcome:
        produced = outputs_of(ov, result, values)
        if len(produced) != len(native):
            return done(Status.WRONG_RESULT, f"returned {len(produced)} outputs, expected {len(native)}")
        inputs = [v for k, v in values.items() if isinstance(v, torch.Tensor) and k not in ov.writes]
        for i, (got, want) in enumerate(zip(produced, native)):
            label = f"output {i}"
            if not isinstance(want, torch.Tensor):
                if got != want:
                    return done(Status.WRONG_RESULT, f"{label} is {got!r}, expected {want!r}")
                continue
            if type(got) is not torch.Tensor:
                return done(Status.WRONG_RESULT, f"{label} is a {type(got).__name__}, expected a plain torch.Tensor")
            if got.shape != want.shape or got.dtype != want.dtype:
                return done(Status.WRONG_RESULT, f"{label} is {got.dtype}{list(got.shape)}, "
                                                 f"expected {want.dtype}{list(want.shape)}")
            if got.device.type != torch.device(self.device).type:
                return done(Status.WRONG_RESULT, f"{label} is on {got.device}, expected {self.device}")
            if i < len(produced) - len(ov.writes) and got.numel() > 0 and _aliases(got, inputs):
                return done(Status.WRONG_RESULT,
                            f"{label} shares memory with an input; the schema promises a new tensor")
        for name, before in snapshot.items():
            if name in ov.writes or not isinstance(before, torch.Tensor):
                continue
            if not _same_bits(before, values[name]):
                return done(Status.WRONG_RESULT,
                            f"the candidate modified its input `{name}`, which this operator only reads")
        worst = None
        for i, (got, ref, nat, scale) in enumerate(zip(produced, reference, native, scales)):
            if not isinstance(got, torch.Tensor):
                continue
            verdict = compare(got, ref, nat, self.op.tolerance, scale)
            if not verdict.ok:
                return done(Status.WRONG_RESULT, f"output {i}: {verdict.reason}", verdict.figures)
            if verdict.figures is not None and (worst is None or verdict.figures.ratio > worst.ratio):
                worst = verdict.figures
        return done(Status.PASS, "", worst)


GHOST_SENTINEL = 1234.5


def _prime_allocator(like: list[Any]) -> None:
    """Leave freed blocks of each output's size holding a finite sentinel, so memory a candidate
    allocates without writing is neither a stale answer (the native result's temporaries) nor NaN
    (which is right for empty means)."""
    for t in like:
        if isinstance(t, torch.Tensor) and t.numel():
            block = torch.empty_like(t, memory_format=torch.contiguous_format)
            block.fill_(GHOST_SENTINEL if (t.dtype.is_floating_point or t.dtype.is_complex) else 77)
            del block


def _abs(v: Any) -> Any:
    if isinstance(v, torch.Tensor) and (v.dtype.is_floating_point or v.dtype.is_complex):
        return v.abs()
    return v


def _aliases(t: torch.Tensor, others: Iterable[torch.Tensor]) -> bool:
    ptr = t.untyped_storage().data_ptr()
    return any(o.numel() > 0 and o.untyped_storage().data_ptr() == ptr for o in others)
