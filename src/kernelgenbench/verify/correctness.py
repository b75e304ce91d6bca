"""Correctness of one case: fresh inputs, a float64 truth, the native result, and the candidate's.

Order matters for honesty: the reference and the native result are computed before the candidate
is bound, on copies, so the candidate can neither reach them through the dispatcher nor find their
buffers; the inputs it receives are compared bit for bit afterwards.
"""

from __future__ import annotations

import math
import time
import traceback
import zlib
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch

from ..suite.inputs import (
    clone_values,
    generator_seed,
    materialize,
    pointees,
    pointers_intact,
    rebased,
    replica,
    upcast_value,
)
from ..suite.spec import Case, Operator, Overload
from . import statistics
from .bind import Binding, DispatchBypassed
from .launches import POISON_BYTE, SECOND_POISON_BYTE, LaunchMonitor
from .profile import profile_call
from .rules import RULES
from .tolerance import compare
from .trace import OpTrace
from .verdict import CaseResult, ErrorFigures, Status


class CandidateCrash(Exception):
    """The candidate left the device or the process unusable (illegal access, out of memory)."""


def case_seed(seed: int, case: Case) -> int:
    return (seed ^ zlib.crc32(case.name.encode())) & 0x7FFF_FFFF_FFFF


def case_inputs(case: Case, seed: int, device: str, salt: int = 0) -> dict[str, Any]:
    """A case's inputs for a run's seed; `salt` draws further independent sets. The default
    generators are seeded too, for random operators called without a generator."""
    drawn = (case_seed(seed, case) + salt) & 0x7FFF_FFFF_FFFF
    torch.manual_seed(generator_seed(drawn))
    return materialize(case.sample.values, drawn, device, on_device=case.size != "small")


def reseeded(values: dict[str, Any], seed: int, call: int) -> dict[str, Any]:
    """`values` with every generator restarted from `seed`. The default generators restart from
    `seed` too where no generator is given, and from a seed of this `call` alone where one is, so
    a candidate that draws from the default generator instead of the given one is not reproducible."""
    given = any(isinstance(v, torch.Generator) for v in values.values())
    torch.manual_seed(generator_seed(seed + 7919 * call) if given else seed)
    return {k: torch.Generator(device=v.device).manual_seed(seed) if isinstance(v, torch.Generator) else v
            for k, v in values.items()}


def outputs_of(ov: Overload, result: Any, values: dict[str, Any]) -> list[Any]:
    """What an overload produces: its returned values (unless they alias a written argument) and
    every argument it writes, read after the call."""
    produced: list[Any] = []
    if ov.returns_alias is None and result is not None:
        produced.extend(result if isinstance(result, (tuple, list)) else [result])
    for name in ov.writes:
        written = values[name]
        produced.extend(written if isinstance(written, (tuple, list)) else [written])
    return produced


def written(ov: Overload, values: dict[str, Any]) -> list[Any]:
    """The tensors an overload writes, in order, output lists (`Tensor(a!)[] out`) flattened."""
    return outputs_of(ov, None, values)  # with no result, only the written arguments


@dataclass(frozen=True)
class Alias:
    """A native output that is a view of an input: which one, and where in its storage."""

    input: str
    offset: int  # storage offset relative to the input's
    stride: tuple[int, ...]  # of the dims longer than one (a size-one dim's stride addresses nothing)

    def describe(self) -> str:
        return f"a view of `{self.input}` (storage offset {self.offset:+d}, strides {list(self.stride)})"


def alias_of(out: Any, inputs: dict[str, Any]) -> Alias | None:
    """Which input `out` is a view of, if any (compared by storage; `tensors[1]` for a list's)."""
    if not isinstance(out, torch.Tensor) or out.numel() == 0:
        return None
    ptr = out.untyped_storage().data_ptr()
    for name, value in inputs.items():
        listed = isinstance(value, (list, tuple))
        for i, t in enumerate(value if listed else [value]):
            if isinstance(t, torch.Tensor) and t.numel() > 0 and t.untyped_storage().data_ptr() == ptr:
                return Alias(f"{name}[{i}]" if listed else name, out.storage_offset() - t.storage_offset(),
                             _dense_strides(out))
    return None


class Expected(NamedTuple):
    """What a case must produce: the float64 truth, the native result, the error scale of each
    output, and which native outputs are views of inputs (where aliasing is the contract)."""

    reference: list[Any]
    native: list[Any]
    scales: list[Any]
    aliases: list[Alias | None]


def needs_kernel(op: Operator, expected: Expected) -> bool:
    """Whether the case has values a kernel must produce: not when every output is a view of an
    input, a Python scalar, empty, or undefined (`compare="strides"`)."""
    if op.compare == "strides":
        return False
    return any(isinstance(n, torch.Tensor) and n.numel() > 0 and a is None
               for n, a in zip(expected.native, expected.aliases))


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return torch.equal(a, b)


def _unchanged(before: torch.Tensor, now: torch.Tensor) -> bool:
    """An input as it came; a pointer array (whose snapshot points into the snapshot) by its addresses."""
    return pointers_intact(now) if pointees(now) is not None else _same_bits(before, now)


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


def _reference(ov: Overload, values: dict[str, Any], absolute: bool = False,
               host: Callable[[], AbstractContextManager[Any]] = nullcontext) -> list[Any]:
    """The operator on float64 copies, with float64 as the default dtype too, so a float result
    of integer inputs (`int / 2.5`, `torch.zeros(n)`) is float64 where the native one is float32.
    `absolute`: on |inputs|, through the overload's `scale` where it has one (the error scale).

    A case that is float64 already would have the native kernel as its own truth; on a GPU its
    truth is ATen's CPU kernel instead, an independent implementation (CUDA's hardsigmoid, for
    one, scales float64 by a float32 1/6). The error scale stays on the device: it bounds
    magnitudes, where independence buys nothing, and on the host it doubled the cost of every
    float64 case with an accumulation scale (42% of the H200's timing phase went to float64 cases).
    `host` surrounds the host's work (timing lets go of the device meanwhile): the computation, and
    each piece of the copies off the device and of the truth back onto it (`transfer.copy_across`),
    where the checks compare it with the candidate's outputs."""
    home = None if absolute else next((v.device for v in values.values() if isinstance(v, torch.Tensor)
                                        and v.is_cuda and v.dtype in (torch.float64, torch.complex128)), None)
    device = "cpu" if home is not None else None
    ref_values = rebased({k: _abs(upcast_value(v, device)) if absolute else upcast_value(v, device, host)
                          for k, v in values.items()}, values)
    args, kwargs = ov.split(ref_values)
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        fn = ov.scale if absolute and ov.scale is not None else ov.reference
        with host() if home is not None else nullcontext():
            found = outputs_of(ov, fn(*args, **kwargs), ref_values)
    finally:
        torch.set_default_dtype(default)
    if home is None:
        return found
    return [replica(t, t.dtype, home, host) if isinstance(t, torch.Tensor) else t for t in found]


def _native_inputs(ov: Overload, values: dict[str, Any]) -> dict[str, Any]:
    """The native call's arguments: copies of what it may write (written and scratch arguments, the
    tensors sharing their storage, tensor lists and generators), the other tensors as they are. On the
    H200 a copy of a 16 GiB operand that is only read kept a timing job from fitting beside others."""
    mutable = {p.name for p in ov.params if p.writes or p.scratch}
    storages = {values[k].untyped_storage().data_ptr() for k in mutable if isinstance(values.get(k), torch.Tensor)}

    def copied(k: str, v: Any) -> bool:
        return k in mutable or not isinstance(v, torch.Tensor) or v.untyped_storage().data_ptr() in storages

    copies = clone_values({k: v for k, v in values.items() if copied(k, v)})
    return rebased({k: copies[k] if k in copies else v for k, v in values.items()}, values)


def expected_outputs(op: Operator, ov: Overload, values: dict[str, Any], device: str,
                     host: Callable[[], AbstractContextManager[Any]] = nullcontext) -> Expected:
    """The float64 truth, the native result, and the error scale of each output, all on copies
    (`host`: around a truth computed on the host, see `_reference`).
    A random operator has no truth to compare with: its law judges the outputs (`check_values`),
    and the native draws stand in for the truth's shapes and dtypes."""
    nat_values = _native_inputs(ov, values)
    args, kwargs = ov.split(nat_values)
    native = outputs_of(ov, op.native(device, ov)(*args, **kwargs), nat_values)
    if op.compare == "distribution":
        reference = native
        scales = [None] * len(native)
    else:
        reference = _reference(ov, values, host=host)
        scales = (_reference(ov, values, absolute=True) if op.tolerance.of_case(values).abs_scale
                  else [None] * len(reference))
    returned = len(native) - len(written(ov, nat_values))
    read_only = {k: v for k, v in nat_values.items() if k not in ov.writes}
    aliases = [alias_of(n, read_only) if i < returned else None for i, n in enumerate(native)]
    return Expected(reference, native, scales, aliases)



@dataclass(frozen=True)
class ValueCheck:
    ok: bool
    reason: str = ""
    figures: ErrorFigures | None = None


def check_values(op: Operator, ov: Overload, inputs: dict[str, Any], produced: list[Any], expected: Expected,
                 seed: int) -> ValueCheck:
    """The values of a call's outputs (shapes and dtypes already checked): within the tolerance of
    the truth, or, for a random operator, drawn from its law (`inputs` as they were before the call;
    `seed` randomises the statistical test)."""
    if op.compare == "strides":
        return ValueCheck(True)
    if op.compare == "distribution":
        assert op.law is not None, f"{op.id}: a distribution-judged operator needs a law"
        found = statistics.judge(op.law(ov, inputs, produced), seed)
        return ValueCheck(found.ok, found.reason)
    worst = None
    tolerance = op.tolerance.of_case(inputs)
    coded = op.codes.outputs if op.codes is not None else ()
    for i, (got, ref, nat, scale) in enumerate(zip(produced, expected.reference, expected.native, expected.scales)):
        if not isinstance(got, torch.Tensor) or i in coded:
            continue
        verdict = compare(got, ref, nat, tolerance.at(i), scale)
        if not verdict.ok:
            return ValueCheck(False, f"output {i}: {verdict.reason}", verdict.figures)
        if verdict.figures is not None and (worst is None or verdict.figures.ratio > worst.ratio):
            worst = verdict.figures
    problem = op.codes.check(ov, inputs, produced) if op.codes is not None else None
    if problem:
        return ValueCheck(False, problem)
    return ValueCheck(True, "", worst)


def differing_expected(draws: statistics.Draws) -> float:
    """About how many elements two independent calls are expected to draw differently: each
    element's 1 - P(the value drawn), whose mean is 1 - sum_k p_k^2."""
    return float((1.0 - (draws.cdf_at - draws.cdf_below).double().clamp(0.0, 1.0)).sum())


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

    def _expected(self, ov: Overload, values: dict[str, Any]) -> Expected:
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
            expected = self._expected(ov, values)
            reference, native, scales = expected.reference, expected.native, expected.scales
            snapshot = clone_values(values)
        except Exception as e:  # noqa: BLE001 - a failure before the candidate runs is ours
            return done(Status.INFRA_ERROR, f"reference failed: {type(e).__name__}: {e}", tb=_tail())

        if self.trace is not None:
            self.trace.forbidden.clear()
        launches = self.monitor.count if self.monitor else 0
        self._seed_defaults(case)
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

        outcome = self._judge(ov, result, values, snapshot, expected, done, case)
        produced = outputs_of(ov, result, values)  # kept alive: the ghost run must not get these buffers
        if outcome.result.status is not Status.PASS:
            return outcome
        if self.op.compare == "distribution":
            problem = self._generator_problem(case, ov, snapshot, produced)
            if problem:
                return done(Status.WRONG_RESULT, problem)
        traced = self.trace.describe() if self.trace is not None and self.trace.forbidden else None
        ghost = (self._ghost(case, ov, snapshot, reference, native, scales, launches)
                 if self.ghost and needs_kernel(self.op, expected) else None)
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

    def _seed(self, case: Case) -> int:
        return generator_seed(case_seed(self.seed, case))

    def _seed_defaults(self, case: Case) -> None:
        """Restart the default generators as the case's inputs left them (the native call drew
        from them), so a random candidate called without a generator draws reproducibly."""
        if self.op.compare == "distribution":
            torch.manual_seed(self._seed(case))

    def _call_fresh(self, ov: Overload, snapshot: dict[str, Any], seed: int, call: int) -> list[Any]:
        values = reseeded(clone_values(snapshot), seed, call)
        args, kwargs = ov.split(values)
        with self.binding:
            result = self.binding.call(ov, args, kwargs)
            self._sync()
        return outputs_of(ov, result, values)

    def _generator_problem(self, case: Case, ov: Overload, snapshot: dict[str, Any],
                           produced: list[Any]) -> str | None:
        """A random operator honours its generator (the default one where none is given): the
        same seed again gives the same outputs bit for bit, another seed different ones."""
        assert self.op.law is not None
        seed = self._seed(case)
        try:
            again = self._call_fresh(ov, snapshot, seed, 1)
            other = self._call_fresh(ov, snapshot, seed + 1, 2)
        except Exception as e:  # noqa: BLE001 - a candidate that fails when called again is wrong
            if is_device_fault(e):
                raise CandidateCrash(f"{type(e).__name__}: {str(e).strip().splitlines()[0]}") from e
            return f"a second call with the same generator seed raised {type(e).__name__}: {e}"
        tensors = [(a, b) for a, b in zip(produced, again) if isinstance(a, torch.Tensor)]
        if not all(isinstance(b, torch.Tensor) and _same_bits(a, b) for a, b in tensors):
            return ("the generator is not honoured: two calls with generators in the same state gave different "
                    "outputs (draw the kernel's seed from the `generator` argument, or from the device's "
                    "default generator when it is None)")
        if differing_expected(self.op.law(ov, snapshot, produced)) >= 20 and all(
                _same_bits(a, b) for a, b in zip(produced, other)
                if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return ("the generator is not honoured: generators seeded differently gave the same outputs (a fixed "
                    "seed, or one taken from somewhere other than the `generator` argument)")
        return None

    def _foreign_kernels(self, case: Case, ov: Overload) -> str | None:
        """L3, once per overload: the call's device time must be in the candidate's own kernels."""
        assert self.monitor is not None
        values = case_inputs(case, self.seed, self.device)
        args, kwargs = ov.split(values)

        def call() -> None:
            with self.binding:
                self.binding.call(ov, args, kwargs)

        found = profile_call(call, self.monitor.names, self.op.work, self.op.size_reads > 0)
        return found.describe() if found.foreign else None

    def _null_is_correct(self, ov: Overload, snapshot: dict[str, Any], reference: list[Any],
                         native: list[Any], scales: list[Any]) -> bool:
        """Whether doing nothing, or only what host code may do without a kernel, can be right for
        this case: empty outputs, BLAS quick returns (a written argument left as it came), or a
        constant fill, which freed memory often holds by chance and host code may write: all zeros
        (the sum of nothing) or all NaN (the mean of nothing; NaN is also the harness's own poison)."""
        before = written(ov, snapshot)
        returned = len(native) - len(before)
        if self.op.compare == "distribution":
            expected = Expected(reference, native, scales, [])
            zeros = [torch.zeros_like(n) if isinstance(n, torch.Tensor) else n for n in native]
            nans = [torch.full_like(n, float("nan")) if isinstance(n, torch.Tensor) and n.is_floating_point()
                    else z for n, z in zip(native, zeros)]
            return any(check_values(self.op, ov, snapshot, outs, expected, 0).ok
                       for outs in (zeros, nans, zeros[:returned] + before))

        tolerance = self.op.tolerance.of_case(snapshot)

        def fill_is_right(i: int, nat: Any, ref: Any, scale: Any) -> bool:
            if not isinstance(nat, torch.Tensor) or nat.numel() == 0:
                return True
            fills = ((0.0, float("nan")) if (nat.dtype.is_floating_point or nat.dtype.is_complex)
                     else (False, True) if nat.dtype == torch.bool else (0,))  # poisoned bytes read as True
            return any(compare(torch.full_like(nat, f), ref, nat, tolerance.at(i), scale).ok for f in fills)

        for i, (nat, ref, scale) in enumerate(zip(native[:returned], reference[:returned], scales[:returned])):
            if not fill_is_right(i, nat, ref, scale):
                return False
        for i, (given, ref, nat, scale) in enumerate(zip(before, reference[returned:], native[returned:],
                                                         scales[returned:]), start=returned):
            if isinstance(nat, torch.Tensor) and not compare(given, ref, nat, tolerance.at(i), scale).ok \
                    and not fill_is_right(i, nat, ref, scale):
                return False
        return True

    def _ghost(self, case: Case, ov: Overload, snapshot: dict[str, Any], reference: list[Any],
               native: list[Any], scales: list[Any], launches_before: int) -> str | None:
        """L2: the same case with every Triton launch skipped must no longer be correct."""
        assert self.monitor is not None
        launched = self.monitor.count != launches_before
        if self.op.work == "data" and not launched:
            return ("no Triton kernel was launched for an operator whose work is writing data: "
                    "the values were left to chance (uninitialised memory) or written elsewhere")
        if self._null_is_correct(ov, snapshot, reference, native, scales):
            return None
        if not launched:
            return "no Triton kernel was launched, yet the outputs are correct: they were computed elsewhere"
        # Twice, with two poison bytes: one byte of poison can be the answer of a one-byte output.
        for byte in (POISON_BYTE, SECOND_POISON_BYTE):
            if not self._correct_without_kernels(case, ov, reference, native, scales, byte):
                return None
        return "outputs are still correct with every Triton launch skipped: they were computed elsewhere"

    def _correct_without_kernels(self, case: Case, ov: Overload, reference: list[Any], native: list[Any],
                                 scales: list[Any], byte: int) -> bool:
        assert self.monitor is not None
        values = case_inputs(case, self.seed, self.device)
        snapshot = clone_values(values)
        args, kwargs = ov.split(values)
        _prime_allocator(native)
        try:
            with self.binding, self.monitor.ghosting(byte):
                result = self.binding.call(ov, args, kwargs)
                self._sync()
        except Exception:  # noqa: BLE001 - failing without its kernels is what a genuine candidate does
            return False
        produced = outputs_of(ov, result, values)
        if len(produced) != len(reference):
            return False
        for got, nat in zip(produced, native):
            if not isinstance(got, torch.Tensor) or got.shape != nat.shape or got.dtype != nat.dtype:
                return False
        return check_values(self.op, ov, snapshot, produced, Expected(reference, native, scales, []),
                            self._seed(case)).ok

    def _judge(self, ov: Overload, result: Any, values: dict[str, Any], snapshot: dict[str, Any],
               expected: Expected, done: Any, case: Case) -> CaseOutcome:
        native = expected.native
        produced = outputs_of(ov, result, values)
        if len(produced) != len(native):
            return done(Status.WRONG_RESULT, f"returned {len(produced)} outputs, expected {len(native)}")
        read_only = {k: v for k, v in values.items() if k not in ov.writes}
        for i, (got, want, alias) in enumerate(zip(produced, native, expected.aliases)):
            label = f"output {i}"
            if not isinstance(want, torch.Tensor):
                problem = scalar_problem(got, want)
                if problem:
                    return done(Status.WRONG_RESULT, f"{label} {problem}")
                continue
            if type(got) is not torch.Tensor:
                return done(Status.WRONG_RESULT, f"{label} is a {type(got).__name__}, expected a plain torch.Tensor")
            if got.shape != want.shape or got.dtype != want.dtype:
                return done(Status.WRONG_RESULT, f"{label} is {got.dtype}{list(got.shape)}, "
                                                 f"expected {want.dtype}{list(want.shape)}")
            if got.device.type != torch.device(self.device).type:
                return done(Status.WRONG_RESULT, f"{label} is on {got.device}, expected {self.device}")
            if self.op.compare in ("values_and_strides", "strides") and got.numel() > 1 \
                    and _dense_strides(got) != _dense_strides(want):
                return done(Status.WRONG_RESULT, f"{label} has strides {list(got.stride())}, expected "
                                                 f"{list(want.stride())} (the memory format is part of the contract)")
            if i < len(produced) - len(ov.writes) and got.numel() > 0:
                problem = _aliasing_problem(got, alias, read_only)
                if problem:
                    return done(Status.WRONG_RESULT, f"{label} {problem}")
        scratch = {p.name for p in ov.params if p.scratch}
        for name, before in snapshot.items():
            if name in ov.writes or name in scratch:
                continue
            pairs = (zip(before, values[name]) if isinstance(before, (list, tuple))
                     else [(before, values[name])])
            if any(isinstance(b, torch.Tensor) and not _unchanged(b, v) for b, v in pairs):
                return done(Status.WRONG_RESULT,
                            f"the candidate modified its input `{name}`, which this operator only reads")
        found = check_values(self.op, ov, snapshot, produced, expected, self._seed(case))
        if not found.ok:
            return done(Status.WRONG_RESULT, found.reason, found.figures)
        return done(Status.PASS, "", found.figures)


GHOST_SENTINEL = 1234.5


def _prime_allocator(like: list[Any]) -> None:
    """Leave freed blocks of each output's size holding a finite sentinel, so memory a candidate
    allocates without writing is neither a stale answer (the native result's temporaries) nor NaN
    (which is right for empty means)."""
    for t in like:
        if isinstance(t, torch.Tensor) and t.numel():
            block = torch.empty_like(t, memory_format=torch.contiguous_format)
            if t.dtype.is_floating_point:  # 8-bit floats top out below the sentinel (e4m3fn: 448)
                block.fill_(min(GHOST_SENTINEL, torch.finfo(t.dtype).max))
            else:
                block.fill_(GHOST_SENTINEL if t.dtype.is_complex else 77)
            del block


def _abs(v: Any) -> Any:
    """|v| of an upcast copy, which has a storage of its own: a real one in place, over that whole
    storage (an expanded view cannot be written in place), which spares a second copy of an operand of
    gigabytes; a negated view, whose storage holds -v, and a complex one, which turns real, are copied."""
    if not isinstance(v, torch.Tensor) or not (v.dtype.is_floating_point or v.dtype.is_complex):
        return v
    if v.dtype.is_complex or v.is_neg():
        return v.abs()
    whole = torch.empty(0, dtype=v.dtype, device=v.device).set_(v.untyped_storage(), 0,
                                                                (v.untyped_storage().nbytes() // v.element_size(),))
    whole.abs_()
    return v


def _aliasing_problem(got: torch.Tensor, want: Alias | None, inputs: dict[str, Any]) -> str | None:
    """A returned tensor must be a view exactly where the native one is (same input, storage
    offset and strides), and a new tensor everywhere else."""
    have = alias_of(got, inputs)
    if want is None:
        return None if have is None else f"shares memory with `{have.input}`; the native op returns a new tensor"
    if have is None:
        return f"is a new tensor; the native op returns {want.describe()}"
    if have != want:
        return f"is {have.describe()}; the native op returns {want.describe()}"
    return None


def _dense_strides(t: torch.Tensor) -> tuple[int, ...]:
    """Strides, with those of size-1 dimensions (which never address anything) left out."""
    return tuple(st for st, n in zip(t.stride(), t.shape) if n != 1)


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def scalar_problem(got: Any, want: Any) -> str | None:
    """Python scalars (`item`) must have the native's type and value (NaN equal to NaN)."""
    if type(got) is not type(want):
        return f"is {_a(type(got).__name__)} ({got!r}), expected {_a(type(want).__name__)} ({want!r})"
    if got != want and not (isinstance(want, float) and math.isnan(want) and math.isnan(got)):
        return f"is {got!r}, expected {want!r}"
    return None
