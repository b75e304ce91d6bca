"""Timing: the candidate against the native baseline on the performance cases, in one process.

Per case: several input sets are drawn and their truths computed; then, holding the device alone
(other timing workers prepare and check meanwhile: device_gate.py), both sides are warmed up on
other contents written into the same buffers (compilation and autotuning stay outside the timed
region), and each set's own contents are written back, one set at a time, just before its
first-sight calls: each side's first call on contents it has never seen, timed and (the
candidate's) checked. Baseline and candidate samples then alternate in blocks over the sets (the
order flips every block) until each side has `min_samples` samples or `min_seconds` have passed, or,
from `precise_after` samples on, until both medians are known to within `precision` (a case whose
samples scatter little needs fewer of them). A host wall clock cross-checks the events. Afterwards
the outputs of the timed calls are checked.

Memory cannot buy a speed-up: a side's counted time is never below its fastest first-sight call
(less FIRST_SIGHT_SLACK), so an answer kept from an earlier call (by digest, by pointer, in the
output buffer the allocator hands back) gains nothing, and a candidate much faster on repeated
contents than on new ones is `hack_timing`.

A speed-up the memory system cannot deliver (the candidate faster than moving the case's bytes at
the device's measured copy bandwidth) is flagged, and counts only up to that floor (or up to the
baseline's own time, where the library too ran under it). The bytes are an
estimate (every element an input can reach, read once): where the native library itself beats the
floor, the estimate overcounts that case (an operand beta = 0 leaves unread, a pool of matrices
mostly padding) and no floor applies to it.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from ..suite.inputs import clone_values, pointees
from ..suite.spec import Case, Operator, Overload
from .bind import Binding
from .clock import Clock, CudaClock, Sample, tampered
from .correctness import Expected, case_inputs, check_values, expected_outputs, outputs_of
from .device_gate import DeviceGate
from .rules import RULES
from .verdict import Status, Verdict

FLOOR_SLACK = 0.85  # the candidate may be this much under the floor before it is implausible
BEYOND_FLOOR = "faster than the memory-bandwidth floor"
BLOCK = 10  # samples per side before the sides swap
# A call's end-to-idle gap may exceed the baseline's (or a device-only wait's as long as the call, see
# CaseTimer._check_escape) by this much: the host's return from a device synchronize varies, and honest
# single-kernel candidates measured 33-36 us over their baseline on the H200 (awq_gemm,
# cp_gather_cache, awq_marlin_moe_repack), where a side stream hides milliseconds.
ESCAPE_MARGIN_US = 100.0
SET_BUDGET_BYTES = 8 << 30  # input sets of one case together stay under this
# A side whose calls take this long needs few calls besides its samples: one warm-up per input set
# once compiled, and one wall sample that is its host-clock sample too; its samples alternate round by
# round, and may stop at 3 rounds once both sides have run SLOW_SECONDS times the minimum time. On the
# H200 about 24 calls of a 2 s libcublas Dsbmv held the GPU 48 s for one case, then 8 calls 15.5 s.
SLOW_CALL_S = 0.05
SLOW_SECONDS = 10
GIVE_WAY_S = 0.01  # how often a long shared stretch of the harness's own asks whether a measurement waits
# A side's counted time is never below its fastest first-sight call less this share: how much faster
# than a first sight a repeated call may be before memory, not noise, explains it.
FIRST_SIGHT_SLACK = 0.05
# First sights all this many times slower than the repeats' upper quartile (and by CACHE_MARGIN_US, well
# above a launch's jitter), where the baseline's are not, are a cache: hack_timing. The host clock
# times the call's Python too, whose caches the refill before a first sight leaves cold, and the
# interpreter scatters: honest aten::mul and silu in the interpreter had cases whose first sights
# were 1.37x the upper quartile of 3 repeats on an idle 2-core machine, more beside a busy process.
CACHE_RATIO = 1.5
CACHE_MARGIN_US = 20.0
HOST_CACHE_RATIO = 3.0
HOST_CACHE_MARGIN_US = 2000.0
WARMUP_SALT = 0x5A5A5A  # the draw the warm-ups run on: contents no timed call sees again


@dataclass(frozen=True)
class TimingConfig:
    min_samples: int = 100
    min_seconds: float = 1.0
    max_samples: int = 1000
    input_sets: int = 4
    warmup: int = 3
    wall_samples: int = 10
    # Sampling may stop at `precise_after` rounds (then at every second block, so both sides have
    # gone first equally often) once each side's median lies within this fraction either side
    # (its 95% interval from order statistics): on the H200, 247 of the 16-operator slice's 252
    # cases ran all 100 rounds, at about 1 ms a round whatever the call's length.
    precision: float = 0.005
    precise_after: int = 40
    graph: bool = False  # replay CUDA graphs of both sides: for launch-bound operators
    tiers: tuple[str, ...] = ("perf",)  # the size tiers timed (tests time small cases on the CPU)

    @classmethod
    def quick(cls) -> TimingConfig:
        """Fewer samples per case (30, or 0.3 s a side) and two input sets, for sweeps over many
        operators: on the H200 the checks of every set's outputs, not the timed calls, took most of
        a case's 0.3-2 s (benchmarks/profile_timing.py)."""
        return cls(min_samples=30, min_seconds=0.3, wall_samples=5, input_sets=2, precise_after=20)


def median_spread(values: list[float]) -> float:
    """Half the width of the median's 95% interval from order statistics (no assumption about the
    distribution), relative to the median."""
    xs = sorted(values)
    n = len(xs)
    reach = 0.98 * math.sqrt(n)  # 1.96 standard deviations of Binomial(n, 1/2), which are sqrt(n)/2
    low, high = max(math.floor(n / 2 - reach), 1), min(math.ceil(n / 2 + 1 + reach), n)
    middle = statistics.median(xs)
    return (xs[high - 1] - xs[low - 1]) / (2 * middle) if middle > 0 else math.inf


@dataclass(frozen=True)
class Stats:
    median_us: float
    q1_us: float
    q3_us: float
    n: int

    @property
    def iqr_us(self) -> float:
        return self.q3_us - self.q1_us

    @classmethod
    def of(cls, values: list[float]) -> Stats:
        if len(values) < 2:
            v = values[0] if values else float("nan")
            return cls(v, v, v, len(values))
        q = statistics.quantiles(values, n=4, method="inclusive")
        return cls(statistics.median(values), q[0], q[2], len(values))


@dataclass(frozen=True)
class CaseTiming:
    case: str
    overload: str
    baseline: Stats
    candidate: Stats
    baseline_wall_us: float
    candidate_wall_us: float
    floor_us: float | None
    mode: str
    # Wall seconds of the case by phase (inputs drawn, float64 truths holding the device and those
    # computed on the host without it, output checks, waits for other timing workers' holds of the
    # device, Triton compiling; the candidate's first call in the process, shared, in an operator's
    # first case; the measured section alone on the device as its bandwidth probe (an operator's
    # first case), warm-ups with host-clock samples, samples and wall samples; and the other calls:
    # the checked calls after it, refills), so a run shows where its timing goes.
    phases_s: dict[str, float] = field(default_factory=dict)
    # Each side's first-sight calls, one per input set: its first call on contents it had never seen
    # (none in records timed before them).
    baseline_first_us: tuple[float, ...] = ()
    candidate_first_us: tuple[float, ...] = ()

    @property
    def baseline_us(self) -> float:
        return counted_us(self.baseline, self.baseline_first_us)

    @property
    def candidate_us(self) -> float:
        return counted_us(self.candidate, self.candidate_first_us)

    @property
    def speedup(self) -> float:
        return self.baseline_us / self.candidate_us

    @property
    def repeats_faster(self) -> str | None:
        """Why the candidate's speed on repeated contents is memory, not compute: every first sight
        the clock's ratio slower than most of its repeats (and by the clock's margin), where the
        baseline's first sights are not. A cache slow on some repeats escapes the flag, not the
        counted time (`counted_us`)."""
        if not self.candidate_first_us:
            return None
        first, repeat = min(self.candidate_first_us), self.candidate.median_us
        base = min(self.baseline_first_us) / self.baseline.median_us if self.baseline_first_us else 1.0
        ratio, margin = (HOST_CACHE_RATIO, HOST_CACHE_MARGIN_US) if self.mode == "host" else \
            (CACHE_RATIO, CACHE_MARGIN_US)
        if first - repeat < margin or first < ratio * max(base, 1.0) * self.candidate.q3_us:
            return None
        return (f"faster on repeated inputs than on new ones (a cache): {repeat:.1f} us on repeats, "
                f"{first:.1f} us at the fastest of {len(self.candidate_first_us)} first sights "
                f"({first / repeat:.1f}x slower; the baseline's {base:.2f}x)")

    @property
    def floor_applies(self) -> bool:
        """Whether the floor is plausible: the native library does not beat it (measured on the H200,
        a `Sgeam` with beta = 0 and the _64 cases whose pools are mostly padding did, by up to 40x)."""
        return bool(self.floor_us) and self.baseline_us >= FLOOR_SLACK * self.floor_us

    @property
    def beyond_floor(self) -> bool:
        """Faster than moving the case's bytes allows: implausible, so flagged."""
        return self.floor_applies and self.candidate_us < FLOOR_SLACK * self.floor_us

    @property
    def flags(self) -> tuple[str, ...]:
        """Derived, never stored: a stored case reads by today's rules."""
        return (BEYOND_FLOOR,) if self.beyond_floor else ()

    @property
    def counted_speedup(self) -> float:
        """The speed-up aggregates use: never more than moving the case's bytes allows, which is the
        floor, or the baseline's own time where that is under the floor (the library did it, so the
        floor is high: on the H200 one timing job's bandwidth probe came out 10% low, and an honest
        Dgemv level with libcublas, both under that floor, was counted 0.92x instead of 1.00x)."""
        floor = self.floor_us
        if floor is not None and self.floor_applies:
            bound = min(floor, self.baseline_us)
            if self.candidate_us < bound:
                return self.baseline_us / bound
        return self.speedup

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["speedup"] = self.speedup
        d["counted_speedup"] = self.counted_speedup
        d["flags"] = list(self.flags)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CaseTiming:
        return cls(case=d["case"], overload=d["overload"], baseline=Stats(**d["baseline"]),
                   candidate=Stats(**d["candidate"]), baseline_wall_us=d["baseline_wall_us"],
                   candidate_wall_us=d["candidate_wall_us"], floor_us=d.get("floor_us"), mode=d["mode"],
                   phases_s=d.get("phases_s", {}), baseline_first_us=tuple(d.get("baseline_first_us", ())),
                   candidate_first_us=tuple(d.get("candidate_first_us", ())))


def counted_us(repeats: Stats, first_us: tuple[float, ...]) -> float:
    """A side's time: the median of its repeated calls, never below its fastest first sight less
    FIRST_SIGHT_SLACK (an answer kept from an earlier call gains nothing; the slack keeps the noise of
    a few first sights from slowing an honest side)."""
    if not first_us:
        return repeats.median_us
    return max(repeats.median_us, min(first_us) / (1 + FIRST_SIGHT_SLACK))


def operator_speedup(timing: Verdict) -> float | None:
    """An operator's speed-up: the geometric mean of its cases' counted speed-ups, when timing passed."""
    return speedup_of_cases(timing.extra.get("timing", {}).get("cases", []), timing.passed)[0]


def speedup_of_cases(cases: list[dict[str, Any]], passed: bool) -> tuple[float | None, int]:
    """From stored case timings, by today's rules: the operator's speed-up (when timing passed) and how
    many cases were faster than a plausible bandwidth floor."""
    from ..metrics import geomean

    timed = [CaseTiming.from_dict(c) for c in cases]
    speedup = geomean(c.counted_speedup for c in timed) if passed and timed else None
    return speedup, sum(1 for c in timed if c.beyond_floor)


class TimingFailure(Exception):
    def __init__(self, status: Status, reason: str):
        if status is Status.HACK_TIMING:
            reason = f"{reason} [timing]. To comply: {RULES['timing'].comply}"
        super().__init__(reason)
        self.status, self.reason = status, reason


def traffic_bytes(op: Operator, ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """The fewest bytes a case must move: each input read once, each output written once."""
    if op.traffic is not None:
        return op.traffic(ov, values, outputs)
    seen: set[int] = set()
    total = 0
    for t in [v for k, v in values.items() if k not in ov.writes] + list(outputs):
        if isinstance(t, torch.Tensor) and t.numel() and t.untyped_storage().data_ptr() not in seen:
            seen.add(t.untyped_storage().data_ptr())
            total += _footprint(t)
    return total


def _footprint(t: torch.Tensor) -> int:
    """Bytes of the elements a tensor can reach (an expanded tensor reads its small base)."""
    span = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()) if st > 0)
    return min(span, t.numel()) * t.element_size()


# A timed case's tensors a timing job holds at once, counted in copies of its inputs: two input sets,
# their pristine copies, the warm-ups' contents, and the native call's and the error scale's copies
# while a truth is computed.
# On the H200 cublasDgemmStridedBatched_64 (a 16 GiB case) never finished timing beside three other timers.
TIMING_COPIES = 7


def timing_bytes(op: Operator, tiers: tuple[str, ...]) -> int:
    """About the most device memory a timing job of `op` holds: its largest timed case's tensors,
    TIMING_COPIES times (read from the spec: nothing is drawn)."""
    return TIMING_COPIES * max((c.nbytes for c in op.select_cases(sizes=tiers)), default=0)  # type: ignore[arg-type]


def _set_count(values: dict[str, Any], wanted: int) -> int:
    size = sum(v.numel() * v.element_size() for v in values.values() if isinstance(v, torch.Tensor))
    return max(2, min(wanted, SET_BUDGET_BYTES // max(size, 1)))


def _check(op: Operator, ov: Overload, inputs: dict[str, Any], produced: list[Any], expected: Expected,
           seed: int) -> str | None:
    native = expected.native
    if len(produced) != len(native):
        return f"returned {len(produced)} outputs, expected {len(native)}"
    for i, (got, nat) in enumerate(zip(produced, native)):
        if not isinstance(nat, torch.Tensor):
            continue
        if type(got) is not torch.Tensor or got.shape != nat.shape or got.dtype != nat.dtype:
            return f"output {i} is not a {nat.dtype}{list(nat.shape)} tensor"
    found = check_values(op, ov, inputs, produced, expected, seed)
    return None if found.ok else found.reason


def _refill(values: dict[str, Any], fresh: dict[str, Any]) -> None:
    """Write new contents into the same buffers (same pointers, shapes and strides), in lists too (a
    KV cache per layer); an array of device pointers keeps its own addresses (the same offsets into the
    refilled backing)."""
    def refill(t: Any, new: Any) -> None:
        if isinstance(t, (list, tuple)):
            for a, b in zip(t, new):
                refill(a, b)
        elif isinstance(t, torch.Tensor) and t.numel() and 0 not in t.stride() and pointees(t) is None:
            t.copy_(new)

    for name, t in values.items():
        refill(t, fresh[name])


SELF_TUNING_WORDS = ("autotune", "do_bench")  # Triton's autotuner, and a benchmark a candidate runs itself


def tunes_itself(module: Any, source: str = "") -> bool:
    """Whether a candidate autotunes: a Triton autotuner among its module's names, or under a decorator
    Triton stacks on one (heuristics), or its source names one (an autotuned kernel defined inside a
    function has no autotuner until the call; a word in a comment only costs a first call alone)."""
    from triton.runtime.autotuner import Autotuner

    if any(word in source for word in SELF_TUNING_WORDS):
        return True
    for value in vars(module).values():
        while value is not None:
            if isinstance(value, Autotuner):
                return True
            value = getattr(value, "fn", None) if type(value).__module__.startswith("triton.") else None
    return False


class GivingWay(TorchFunctionMode):
    """Around the harness's own device work in a shared hold (inputs, truths and native calls, checks):
    between two torch calls, at most every GIVE_WAY_S, a waiting measurement gets the device
    (DeviceGate.give_way), instead of waiting for the step to end. On the H200 the references that
    loop in Python (selective_scan_fwd, the Marlin repacks, the batched cuBLAS pools) held the device
    shared for 1-28 s a truth, and the measurements filled under half the timing phase while the
    held device mostly waited for the host. Never around a candidate's call, which must not see the
    mode."""

    def __init__(self, gate: DeviceGate):
        super().__init__()
        self.gate = gate
        self.next = time.perf_counter() + GIVE_WAY_S

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if time.perf_counter() >= self.next:
            self.gate.give_way()
            self.next = time.perf_counter() + GIVE_WAY_S
        return func(*args, **(kwargs or {}))


class CaseTimer:
    """Times the perf cases of one operator: native baseline against the bound candidate."""

    def __init__(self, op: Operator, binding: Binding, device: str, seed: int, config: TimingConfig,
                 clock: Clock, gate: DeviceGate | None = None, first_call_shared: bool = True):
        self.op, self.binding, self.device, self.seed = op, binding, device, seed
        self.config, self.clock, self.gate = config, clock, gate
        # The candidate's first call in this process, before the operator's first measured section, in
        # a shared hold: on the H200 an operator's first case held the GPU alone a median 0.73 s beyond
        # compiling (its later cases 0.01 s), the process's one-time work for its kernels. Not for a
        # candidate that autotunes (`tunes_itself`): its benchmarks must run alone on the device.
        self._first_call = first_call_shared

    @cached_property
    def bandwidth(self) -> float | None:
        """Measured once per operator, on first need."""
        return self.clock.bandwidth()

    def _candidate(self, ov: Overload, values: dict[str, Any]) -> Callable[[], Any]:
        """The candidate's call; run it inside `with self.binding` (ATen: registered there)."""
        args, kwargs = ov.split(values)
        return lambda: self.binding.call(ov, args, kwargs)

    def _native(self, ov: Overload, values: dict[str, Any]) -> Callable[[], Any]:
        args, kwargs = ov.split(values)
        native = self.op.native(self.device, ov)
        return lambda: native(*args, **kwargs)

    def _graphed(self, fn: Callable[[], Any]) -> tuple[Callable[[], Any], Any]:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            fn()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = fn()
        return graph.replay, out

    def _call(self, fn: Callable[[], Any]) -> Any:
        """One candidate call with its registration in place, and nothing else: the harness's own
        tensor work (checks, refills) must never reach the candidate through the dispatcher."""
        with self.binding:
            out = fn()
            self._sync()
        return out

    def _side(self, side: str) -> AbstractContextManager[Any]:
        """The candidate runs with its registration in place; the baseline never does. Sides
        alternate in blocks, so registering stays outside every timed region."""
        return self.binding if side == "candidate" else nullcontext()

    def _shared(self) -> AbstractContextManager[Any]:
        """The gate lets a hold go only once the device is idle (its `idle`), so nothing this worker
        started runs on into another worker's measurement."""
        return self.gate.shared() if self.gate else nullcontext()

    def _exclusive(self) -> AbstractContextManager[Any]:
        return self.gate.exclusive() if self.gate else nullcontext()

    def _on_device(self, fn: Callable[..., Any], *args: Any) -> Any:
        """One step of preparing or checking, in its own shared hold: a measurement waiting for the
        device waits for the steps under way, not for a whole case's preparation (on the H200 the
        measured sections filled under half the timing phase while four timers took turns)."""
        with self._shared():
            return fn(*args)

    def time_case(self, case: Case) -> CaseTiming:
        start = time.perf_counter()
        phases: dict[str, float] = {}
        threads = threading.active_count()

        def waited() -> float:
            return self.gate.waited_s if self.gate else 0.0

        def compiled() -> float:
            return self.gate.compiled_s if self.gate else 0.0

        waited_before, compiled_before = waited(), compiled()

        def on_host() -> float:
            return phases.get("host truths", 0.0)

        def timed_as(phase: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            """The harness's own work (never a candidate's call), giving way to a waiting measurement."""
            t0, w0, h0 = time.perf_counter(), waited(), on_host()
            try:
                with GivingWay(self.gate) if self.gate else nullcontext():
                    return fn(*args, **kwargs)
            finally:  # a wait for the device inside (a host truth holding it again) counts as a wait
                spent = time.perf_counter() - t0 - (waited() - w0) - (on_host() - h0)
                phases[phase] = phases.get(phase, 0.0) + spent

        @contextmanager
        def host() -> Iterator[None]:
            """A float64 truth computed on the host, the device let go meanwhile: a phase of its own,
            so the truths' seconds that held the device stand apart."""
            t0, w0 = time.perf_counter(), waited()
            try:
                with self.gate.released() if self.gate else nullcontext():
                    yield
            finally:
                phases["host truths"] = on_host() + time.perf_counter() - t0 - (waited() - w0)

        def inputs(salt: int = 0) -> dict[str, Any]:
            return timed_as("inputs", case_inputs, case, self.seed, self.device, salt=salt)

        def truth_of(values: dict[str, Any]) -> Expected:
            def computed() -> Expected:
                found = expected_outputs(self.op, ov, values, self.device, host=host)
                self._sync()
                return found
            return timed_as("truth", computed)

        def check(*args: Any) -> str | None:
            return timed_as("checks", _check, *args)

        ov = self.op.overload(case.overload)
        first = self._on_device(inputs)
        sets = [first] + [self._on_device(inputs, k) for k in range(1, _set_count(first, self.config.input_sets))]
        pristine = self._on_device(timed_as, "inputs", lambda: [clone_values(v) for v in sets])
        expected = [self._on_device(truth_of, v) for v in sets]
        candidate = [self._candidate(ov, v) for v in sets]
        native = [self._native(ov, v) for v in sets]
        # Until its first sights, every set's buffers hold one other draw: what the warm-ups (and the
        # first call, and the host-clock samples) see is never what a timed call is checked on.
        warm = self._on_device(inputs, WARMUP_SALT)
        for values in sets:
            self._on_device(_refill, values, warm)
        contents = [warm] * len(sets)

        def restore(i: int) -> None:
            """An in-place call overwrites its inputs: each call gets the set's contents back."""
            if ov.writes:
                _refill(sets[i], contents[i])

        def reveal(i: int) -> None:
            """Set i's own contents, written back into its buffers: new to both sides."""
            contents[i] = pristine[i]
            _refill(sets[i], pristine[i])

        def keep(i: int, out: Any) -> list[Any]:
            """A first sight's outputs, copied before a later call overwrites them."""
            return [x.clone() if isinstance(x, torch.Tensor) else x for x in outputs_of(ov, out, sets[i])]

        if self._first_call:
            self._first_call = False
            t0, w0, c0 = time.perf_counter(), waited(), compiled()
            def first_call() -> None:
                restore(0)
                self._call(candidate[0])
            self._on_device(first_call)
            phases["first call"] = time.perf_counter() - t0 - (waited() - w0) - (compiled() - c0)
        t0, w0, c0 = time.perf_counter(), waited(), compiled()
        with self._exclusive():
            measured = self._measure(ov, candidate, native, len(sets), restore, reveal, keep)
        del warm  # every set shows its own contents now
        samples, firsts, seen, last, graph_outputs, walls_c, walls_n, mode, parts = measured
        # the measured section by part; the warm-ups (which compile, letting go of the device) are
        # what is left of it once compiling and the waits to hold the device again are taken out
        parts["warm-ups"] = time.perf_counter() - t0 - (waited() - w0) - (compiled() - c0) - \
            parts["probe"] - parts["first sights"] - parts["samples"] - parts["walls"]
        phases.update(parts)
        cand = Stats.of([s.device_us for s in samples["candidate"]])
        base = Stats.of([s.device_us for s in samples["baseline"]])
        wall_c, wall_n = (statistics.median(w[1] for w in walls) for walls in (walls_c, walls_n))

        for i, outputs in enumerate(seen):  # the first sights' outputs
            problem = self._on_device(check, self.op, ov, pristine[i], outputs, expected[i], self.seed)
            if problem:
                raise TimingFailure(Status.WRONG_RESULT, f"on its first sight of input set {i} (new contents in "
                                                         f"the buffers its warm-ups used), {problem} (a result "
                                                         f"cached across calls?)")

        def timed_output(i: int) -> str | None:
            if ov.writes or i not in last:
                restore(i)
                out = self._call(candidate[i])
            else:
                out = graph_outputs[i] if graph_outputs else last[i]
            return check(self.op, ov, pristine[i], outputs_of(ov, out, sets[i]), expected[i], self.seed)

        for i in range(len(sets)):  # the repeated calls' own outputs
            problem = self._on_device(timed_output, i)
            if problem:
                raise TimingFailure(Status.WRONG_RESULT, f"after timing (input set {i}), {problem}")
        if threading.active_count() > threads:
            raise TimingFailure(Status.HACK_TIMING, f"{threading.active_count() - threads} thread(s) started "
                                                    "by the candidate's calls")
        floor = None
        if self.bandwidth:
            moved = self._on_device(traffic_bytes, self.op, ov, sets[0], seen[0])
            floor = moved / self.bandwidth * 1e6
        phases["waits"] = waited() - waited_before  # for other timing workers' holds of the device
        phases["compile"] = compiled() - compiled_before
        phases["calls"] = time.perf_counter() - start - sum(phases.values())
        timing = CaseTiming(case.name, case.overload, base, cand, wall_n, wall_c, floor, mode,
                            {k: round(v, 4) for k, v in phases.items()},
                            tuple(firsts["baseline"]), tuple(firsts["candidate"]))
        cache = timing.repeats_faster
        if cache:
            raise TimingFailure(Status.HACK_TIMING, cache)
        return timing

    def _measure(self, ov: Overload, candidate: list[Callable[[], Any]], native: list[Callable[[], Any]],
                 n_sets: int, restore: Callable[[int], None], reveal: Callable[[int], None],
                 keep: Callable[[int, Any], list[Any]]) -> tuple[Any, ...]:
        """The measured section, alone on the device: warm-ups (compiles and autotunes), the first
        sights, the interleaved samples of both sides, and the host-clock samples."""
        marks = [time.perf_counter()]
        self.bandwidth  # noqa: B018 - measured once per operator, alone on the device
        marks.append(time.perf_counter())
        threads = threading.active_count()
        slow_c = False
        for i in range(n_sets):  # warm-up: compiles and autotunes (its outputs are checked afterwards)
            for k in range(1 if slow_c else self.config.warmup):
                restore(i)
                t0 = time.perf_counter()
                self._call(candidate[i])
                slow_c = time.perf_counter() - t0 >= SLOW_CALL_S
                if k >= 1 and slow_c:  # the first call compiled and autotuned; a slow one needs no more
                    break
        first_n = self.clock.wall(native[0])[1] * 1e-6  # the baseline's first warm-up call, timed
        slow_n = first_n >= SLOW_CALL_S
        for i, call in enumerate(native):
            for _ in range((1 if slow_n else self.config.warmup) - (i == 0)):
                call()
        self._sync()
        # a slow side's one wall sample is also its host-clock sample (its launch is hidden anyway)
        with self.binding:
            once_c = [self.clock.wall(candidate[0])] if slow_c else []
            host_c = once_c[0][0] if slow_c else statistics.median(self.clock.wall(candidate[0])[0] for _ in range(3))
        once_n = [self.clock.wall(native[0])] if slow_n else []
        host_n = once_n[0][0] if slow_n else statistics.median(self.clock.wall(native[0])[0] for _ in range(3))
        self.clock.hide_launch(max(host_c, host_n))
        slow = slow_c or slow_n

        mode = "events" if self.clock.name != "host" else "host"
        timed = {"candidate": candidate, "baseline": native}
        graph_outputs: list[Any] = []
        if self.config.graph and isinstance(self.clock, CudaClock):
            with self.binding:
                pairs = [self._graphed(c) for c in candidate]
            timed = {"candidate": [p[0] for p in pairs], "baseline": [self._graphed(n)[0] for n in native]}
            graph_outputs = [p[1] for p in pairs]
            mode = "graph"

        marks.append(time.perf_counter())
        # One set at a time its own contents, then each side's first call on them (the order flips
        # every set): a candidate that reads every set's buffers at its first sight of one finds the
        # others still holding the warm-ups' contents.
        firsts: dict[str, list[float]] = {"baseline": [], "candidate": []}
        seen = []
        for i in range(n_sets):
            for side in ("candidate", "baseline") if i % 2 == 0 else ("baseline", "candidate"):
                reveal(i)
                with self._side(side):
                    sample, out = self.clock.measure(timed[side][i])
                firsts[side].append(sample.device_us)
                if side == "candidate":
                    seen.append(keep(i, graph_outputs[i] if graph_outputs else out))
        marks.append(time.perf_counter())
        samples: dict[str, list[Sample]] = {"baseline": [], "candidate": []}
        last: dict[int, Any] = {}
        elapsed_us = 0.0
        rounds = 0
        while rounds < self.config.max_samples:
            block = range(rounds, min(rounds + (1 if slow else BLOCK), self.config.max_samples))
            order = ("baseline", "candidate") if (rounds // BLOCK) % 2 == 0 else ("candidate", "baseline")
            for side in order:
                with self._side(side):
                    for r in block:
                        i = r % n_sets
                        sample, out = self.clock.measure(timed[side][i])
                        samples[side].append(sample)
                        elapsed_us += sample.device_us
                        if side == "candidate":
                            last[i] = out
            rounds = block.stop
            if rounds >= self.config.min_samples or (elapsed_us >= self.config.min_seconds * 1e6 and rounds >= 10) \
                    or (slow and elapsed_us >= SLOW_SECONDS * self.config.min_seconds * 1e6 and rounds >= 3) \
                    or (rounds >= self.config.precise_after and rounds % (2 * BLOCK) == 0
                        and all(median_spread([s.device_us for s in side]) <= self.config.precision
                                for side in samples.values())):
                break
        marks.append(time.perf_counter())
        self._check_escape(samples, timed["candidate"], n_sets, slow_c)
        patched = tampered()
        if patched:
            raise TimingFailure(Status.HACK_TIMING, f"the candidate replaced {', '.join(patched)}")
        if threading.active_count() > threads:
            raise TimingFailure(Status.HACK_TIMING, f"{threading.active_count() - threads} thread(s) started "
                                                    "during the timed calls")
        with self.binding:
            walls_c = once_c or [self.clock.wall(candidate[k % n_sets]) for k in range(self.config.wall_samples)]
        walls_n = once_n or [self.clock.wall(native[k % n_sets]) for k in range(self.config.wall_samples)]
        if mode == "events":
            self._check_host_clock(samples, walls_c, walls_n)
        marks.append(time.perf_counter())
        parts = {part: b - a for part, a, b in zip(("probe", "warm-ups", "first sights", "samples", "walls"),
                                                    marks, marks[1:])}
        return samples, firsts, seen, last, graph_outputs, walls_c, walls_n, mode, parts

    def _check_host_clock(self, samples: dict[str, list[Sample]], walls_c: list[tuple[float, float]],
                          walls_n: list[tuple[float, float]]) -> None:
        """Events the candidate made say less than the host waited for the device. What a synchronize
        costs beyond the device time is the baseline's, or, where that calls the candidate out, a
        device-only wait's as long as the events say (a host slow to notice a long asynchronous
        call, where the baseline waited for the device inside its own call: see _check_escape)."""
        def waited(walls: list[tuple[float, float]]) -> float:
            return statistics.median(w[1] for w in walls) - statistics.median(w[0] for w in walls)

        events_us = statistics.median(s.device_us for s in samples["candidate"])
        latency = max(waited(walls_n) - statistics.median(s.device_us for s in samples["baseline"]), 0.0)
        if events_us >= 0.5 * (waited(walls_c) - latency) - 50.0:
            return
        waits = [self.clock.wall(lambda: self.clock.wait(events_us)) for _ in range(max(len(walls_c), 2))]
        latency = max(latency, waited(waits) - events_us)
        if events_us < 0.5 * (waited(walls_c) - latency) - 50.0:
            raise TimingFailure(Status.HACK_TIMING, f"the events say {events_us:.1f} us but the host clock "
                                                    f"waited {waited(walls_c) - latency:.1f} us for the device")

    def _check_escape(self, samples: dict[str, list[Sample]], candidate: list[Callable[[], Any]], n_sets: int,
                      slow: bool) -> None:
        """Work left on another stream shows as device time after the call's end event. So does a
        host slow to notice the end of a long asynchronous call, which a baseline that waits for the
        device inside its own call (vLLM's torch references) never shows: on the H200, beside three
        other timers, a shipped paged_attention_v1 came out 326 us over its baseline so. A suspect
        is therefore measured again, alternating with a device-only wait of its own length, and is
        a hack if its gap in the timed samples or in these exceeds that wait's (a candidate that
        behaves only once it has been timed gains nothing)."""
        device_us = statistics.median(s.device_us for s in samples["candidate"])
        margin = max(ESCAPE_MARGIN_US, 0.1 * device_us)
        own = statistics.median(s.escaped_us for s in samples["candidate"])
        usual = statistics.median(s.escaped_us for s in samples["baseline"])
        if own <= usual + margin:
            return
        again, waits = [], []
        with self.binding:
            for r in range(3 if slow else BLOCK):
                again.append(self.clock.measure(candidate[r % n_sets])[0].escaped_us)
                waits.append(self.clock.measure(lambda: self.clock.wait(device_us))[0].escaped_us)
        own, usual = max(own, statistics.median(again)), max(usual, statistics.median(waits))
        if own > usual + margin:
            raise TimingFailure(Status.HACK_TIMING, f"device work ran {own - usual:.0f} us past the call's end "
                                                    f"event (median, {own:.0f} us against {usual:.0f} us for the "
                                                    f"baseline and for a device-only wait as long as the call): "
                                                    f"the candidate left work on another stream")

    def _sync(self) -> None:
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()
