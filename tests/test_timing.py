"""The timing layer on the CPU: its statistics, its plausibility floor, and its end-to-end checks
on shipped solutions (the figures come from the host clock here and mean nothing; the GPU figures
are in benchmarks/results/)."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench import api, platforms
from kernelgenbench.methods.files import candidate_path
from kernelgenbench.methods.reference import solutions_dir
from kernelgenbench.platforms import INTERPRETER
from kernelgenbench.sandbox import Request, judge
from kernelgenbench.suite import registry
from kernelgenbench.verify.pipeline import Plan
from kernelgenbench.verify.timing import CaseTiming, Stats, TimingConfig, operator_speedup, traffic_bytes

QUICK = TimingConfig(min_samples=3, max_samples=3, warmup=1, wall_samples=1, input_sets=2, tiers=("small",))


def test_stats_are_median_and_quartiles():
    s = Stats.of([5.0, 1.0, 3.0, 2.0, 4.0])
    assert (s.median_us, s.q1_us, s.q3_us, s.iqr_us, s.n) == (3.0, 2.0, 4.0, 2.0, 5)


def timing(base: float, cand: float, floor: float | None) -> CaseTiming:
    return CaseTiming("c", "ov", Stats(base, base, base, 100), Stats(cand, cand, cand, 100), base, cand, floor,
                      "events")


def test_a_speedup_beyond_the_bandwidth_floor_counts_only_up_to_it():
    honest = timing(100.0, 50.0, floor=20.0)
    assert honest.speedup == honest.counted_speedup == 2.0
    impossible = timing(100.0, 1.0, floor=20.0)  # one degenerate case must not drag the mean
    assert impossible.speedup == 100.0 and impossible.counted_speedup == 5.0


def test_a_floor_the_native_library_beats_is_an_overcount_and_never_held_against_the_candidate():
    """Measured on the H200: CgemmStridedBatched_64 whose 8.6 GB pool is mostly padding (libcublas
    48.5 us, candidate 172.5 us, estimated floor 2012.8 us) was counted 0.024x instead of 0.281x and
    flagged; a Sgeam with beta = 0 (B unread) 0.758x instead of 1.03x."""
    padded = timing(48.5, 172.5, floor=2012.8)
    assert not padded.floor_applies and not padded.beyond_floor
    assert padded.counted_speedup == padded.speedup == 48.5 / 172.5
    geam = timing(142.8, 138.6, floor=188.3)
    assert geam.counted_speedup == geam.speedup
    honest_at_floor = timing(625.0, 488.0, floor=502.8)  # Zdotc: the library above the floor, so it holds
    assert honest_at_floor.floor_applies and honest_at_floor.counted_speedup == 625.0 / 502.8
    assert not honest_at_floor.beyond_floor  # within the slack: capped, not flagged
    assert timing(100.0, 1.0, floor=20.0).beyond_floor


def test_a_floor_the_native_library_is_under_bounds_no_candidate_below_the_librarys_own_time():
    """Measured on the H200 (run h200-slice16h): a bandwidth probe 10% low put Dgemv's floor at 561 us;
    libcublas took 515 us and the shipped kernel 516 us, counted 0.917x where the other runs gave
    0.996x. Under the floor, the library's own time is the bound: level with it counts as level,
    and a candidate that beats both is still flagged and counts no more than 1x."""
    level = timing(514.6, 516.4, floor=561.4)
    assert level.floor_applies and level.counted_speedup == level.speedup == 514.6 / 516.4
    skips_half = timing(52.0, 26.0, floor=52.3)  # aten::add's library runs right at the copy bandwidth
    assert skips_half.beyond_floor and skips_half.counted_speedup == 1.0


def test_stored_timings_are_read_by_todays_floor_rule(tmp_path):
    """The report derives speed-ups from the stored case measurements, so a run timed under the old
    rule (its figures as the H200 stored them) reads right without re-timing."""
    import sqlite3

    from kernelgenbench.store import Store
    from kernelgenbench.verify.verdict import Status, Verdict

    padded, honest = timing(48.5, 172.5, floor=2012.8), timing(100.0, 50.0, floor=20.0)
    as_stored = [dict(padded.to_dict(), counted_speedup=48.5 / 2012.8, flags=["faster than the memory-bandwidth "
                                                                              "floor"]), honest.to_dict()]
    with Store(tmp_path / "k.db") as s:
        run = s.open_run("r", "reference", {}, "cuda", {}, 1)
        attempt = s.add_attempt(run.id, "aten::add", "reference", "x")
        s.put_verdict(attempt, Verdict("aten::add", Status.PASS, "ok"))
        s.put_timing(attempt, Verdict("aten::add", Status.PASS, "2 cases timed", layer="timing",
                                      extra={"timing": {"cases": as_stored}}))
    with sqlite3.connect(tmp_path / "k.db") as db:  # the operator's figure the old rule stored
        db.execute("UPDATE timings SET speedup=?", ((48.5 / 2012.8 * 2.0) ** 0.5,))
    with Store(tmp_path / "k.db") as s:
        (row,) = s.rows(run.id)
    assert row.flagged == 0
    assert row.speedup == pytest.approx((48.5 / 172.5 * 2.0) ** 0.5)


def test_traffic_counts_each_buffer_once_and_a_gather_only_its_rows():
    add = registry.get("aten::add")
    ov = add.overload("add.Tensor")
    a = torch.zeros(64, 128)
    b = torch.zeros(1, 128).expand(64, 128)  # reads its 128-element base, not 64 rows
    out = torch.zeros(64, 128)
    assert traffic_bytes(add, ov, {"self": a, "other": b, "alpha": 1}, [out]) == 4 * (64 * 128 + 128 + 64 * 128)
    gather = registry.get("aten::index_select")
    table, index = torch.zeros(50_000, 64), torch.zeros(10, dtype=torch.int64)
    rows = torch.zeros(10, 64)
    ov = gather.overload("index_select")
    assert traffic_bytes(gather, ov, {"self": table, "dim": 0, "index": index}, [rows]) == 2 * 4 * 640 + 8 * 10


# aten::mul: the harness's own checks multiply tensors, and once ran while the candidate for
# `mul` was registered, which then received the harness's bool masks.
@pytest.mark.sweep
@pytest.mark.parametrize("op", ["aten::silu", "aten::add", "aten::mul", "vllm::fused_add_rms_norm",
                                "cublas::cublasSaxpy_v2", "vllm::copy_blocks_mla"])
def test_shipped_solution_passes_timing_and_every_case_is_timed(op):
    code = candidate_path(solutions_dir(), op).read_text()
    v = judge(Request(op, code, INTERPRETER, 5, Plan(INTERPRETER.sizes), timing=QUICK))
    assert v.passed, v.reason
    assert v.layer == "timing"
    timed = [CaseTiming.from_dict(c) for c in v.extra["timing"]["cases"]]
    assert len(timed) == len(registry.get(op).select_cases(sizes=("small",)))
    assert all(t.candidate.n == 3 and t.baseline.n == 3 and t.candidate.median_us > 0 for t in timed)
    assert operator_speedup(v) is not None and operator_speedup(v) > 0
    for i, (t, c) in enumerate(zip(timed, v.cases)):  # where each case's wall time went, adding up to it
        first = {"first call"} if i == 0 else set()  # the candidate's first call in the process, shared
        assert set(t.phases_s) == {"inputs", "truth", "checks", "waits", "compile", "probe", "warm-ups",
                                   "first sights", "samples", "walls", "calls"} | first
        assert len(t.candidate_first_us) == len(t.baseline_first_us) == 2  # one first sight per input set
        assert min(t.phases_s.values()) >= 0
        assert sum(t.phases_s.values()) <= c.seconds + 0.001  # each rounded to 0.1 ms
    assert v.extra["phases"]["work_s"] > 0
    worker = v.extra["timing"]["worker_s"]  # and what the worker spent outside its cases
    assert set(worker) == {"clock_waits", "clock", "load", "cases"} and min(worker.values()) >= 0
    assert worker["cases"] >= sum(c.seconds for c in v.cases) - 0.001
    # on the CPU only ATen has its library kernel; vLLM and cuBLAS are timed against the torch stand-in
    assert v.extra["timing"]["baseline"] == ("library" if op.startswith("aten::") else "reference")


@pytest.mark.parametrize(("gpus", "perf", "timed"), [(1, None, True), (1, False, False), (0, None, False)])
def test_a_run_on_a_gpu_is_timed_unless_told_not_to(monkeypatch, gpus, perf, timed):
    monkeypatch.setattr(platforms.runtime, "device_count", lambda p: gpus if p.name == "cuda" else 0)
    platform, timing = api.platform_and_timing(None, perf)
    assert (platform.name, timing) == ("cuda" if gpus else "interpreter", timed)


class _SlowNative:
    """The native op in the candidate's seat, `delay_s` slower per call, counting its calls."""

    def __init__(self, op, delay_s: float):
        self.op, self.delay_s, self.calls = op, delay_s, 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def call(self, ov, args, kwargs):
        import time

        self.calls += 1
        time.sleep(self.delay_s)
        return self.op.native("cpu", ov)(*args, **kwargs)


def _silu_case():
    """aten::silu and its first small `silu` case, timed on the CPU by the tests below."""
    op = registry.get("aten::silu")
    return op, next(c for c in op.select_cases(sizes=("small",)) if c.overload == "silu")


def _ten_samples(wall_samples: int = 2) -> TimingConfig:
    return TimingConfig(min_samples=10, min_seconds=0.0, max_samples=10, input_sets=2, warmup=2,
                        wall_samples=wall_samples, tiers=("small",))


def _timed_marking(clock, config: TimingConfig):
    """Time silu with the native op as candidate, which tells `clock` (its `side`) it is called."""
    from kernelgenbench.verify.timing import CaseTimer

    op, case = _silu_case()

    class Candidate(_SlowNative):
        def call(self, ov, args, kwargs):
            clock.side = "candidate"
            return super().call(ov, args, kwargs)

    return CaseTimer(op, Candidate(op, 0.0), "cpu", 5, config, clock).time_case(case)


def test_a_slow_side_holds_the_device_for_few_calls_besides_its_samples():
    """A side whose calls take 50 ms or more gets one warm-up per input set once it is compiled, one
    wall sample that serves as its host-clock sample, and may stop sampling at 3 rounds: on the H200
    about 24 calls of a 2 s libcublas Dsbmv held the GPU 48 s for one case. A fast side keeps the
    full protocol."""
    from kernelgenbench.verify.clock import HostClock
    from kernelgenbench.verify.timing import CaseTimer

    op, case = _silu_case()
    config = TimingConfig(min_samples=100, min_seconds=0.01, max_samples=1000, input_sets=2, warmup=3,
                          wall_samples=5, tiers=("small",))
    counts = {}
    for delay in (0.0, 0.06):
        binding = _SlowNative(op, delay)
        timed = CaseTimer(op, binding, "cpu", 5, config, HostClock()).time_case(case)
        counts[delay] = (binding.calls, timed.candidate.n)
    # the first call (shared), warm-ups (two on the first set, the first of which compiled; one on the
    # other), one wall that is also the host-clock sample, the first sights (2 sets), samples
    assert counts[0.06] == (1 + 3 + 1 + 2 + 3, 3)
    # ... and a fast side: 3 warm-ups a set, 3 host-clock samples, 5 walls
    assert counts[0.0][1] >= 10 and counts[0.0][0] == 1 + 2 * 3 + 3 + 2 + counts[0.0][1] + 5


@pytest.mark.parametrize(("scatter", "rounds"), [(0.001, 40), (0.015, 60), (0.2, 100)])
def test_sampling_stops_once_both_medians_are_precise_and_a_scattered_case_samples_on(scatter, rounds):
    """Samples scattered 0.1% stop at the first chance (40 rounds), 1.5% at the next (60); 20% run all 100."""
    import random

    from kernelgenbench.verify.clock import HostClock, Sample

    class ScatterClock(HostClock):
        def __init__(self):
            self.side, self.draw = "baseline", random.Random(7)

        def measure(self, fn):
            self.side = "baseline"
            out = fn()
            centre = 50.0 if self.side == "candidate" else 80.0
            return Sample(centre * (1 + scatter * (2 * self.draw.random() - 1)), 0.0), out

    config = TimingConfig(min_samples=100, min_seconds=1e6, max_samples=1000, input_sets=2, warmup=1,
                          wall_samples=1, tiers=("small",))
    timed = _timed_marking(ScatterClock(), config)
    assert timed.candidate.n == timed.baseline.n == rounds
    assert timed.speedup == pytest.approx(80 / 50, rel=scatter)


def test_every_step_of_timing_a_case_holds_the_device_and_every_sample_holds_it_alone(tmp_path):
    """A case's preparation and checks take the device step by step, shared (a waiting measurement
    waits for the step under way, not for a whole case's preparation), and its samples alone."""
    from kernelgenbench.verify.clock import HostClock
    from kernelgenbench.verify.device_gate import DeviceGate
    from kernelgenbench.verify.timing import CaseTimer

    gate = DeviceGate(tmp_path / "gpu")
    modes: dict[str, list] = {"call": [], "sample": []}
    holds = []
    shared = gate.shared

    def counted_shared():
        holds.append(gate.mode)
        return shared()

    gate.shared = counted_shared

    class Recording(_SlowNative):
        def call(self, ov, args, kwargs):
            modes["call"].append(gate.mode)
            return super().call(ov, args, kwargs)

    class RecordingClock(HostClock):
        def measure(self, fn):
            modes["sample"].append(gate.mode)
            return super().measure(fn)

    op, case = _silu_case()
    CaseTimer(op, Recording(op, 0.0), "cpu", 5, _ten_samples(), RecordingClock(), gate).time_case(case)
    assert modes["sample"] and set(modes["sample"]) == {"exclusive"}
    assert modes["call"] and None not in modes["call"]
    # the candidate's first call in the process (its one-time work) shares the device; the warm-ups do not
    assert modes["call"][:2] == ["shared", "exclusive"]
    # inputs and truth per set, the warm-ups' contents and their refill of each set, each set's first sight
    # checked and its repeated calls checked
    assert holds.count(None) >= 2 + 2 + 1 + 2 + 2 + 2


def test_the_harness_gives_way_to_a_waiting_measurement_but_the_candidate_never_sees_how(tmp_path, monkeypatch):
    """Drawing inputs, computing truths and checking run under the give-way mode (between two torch
    calls a waiting measurement may take the device); a candidate's calls never do, so nothing in
    them can tell a checked call from a timed one by the mode."""
    from torch.overrides import _get_current_function_mode_stack

    from kernelgenbench.verify import timing
    from kernelgenbench.verify.clock import HostClock
    from kernelgenbench.verify.device_gate import DeviceGate

    monkeypatch.setattr(timing, "GIVE_WAY_S", 0.0)  # ask at every torch call
    gate = DeviceGate(tmp_path / "gpu")
    asked = []
    give_way = gate.give_way
    monkeypatch.setattr(gate, "give_way", lambda: asked.append(gate.mode) or give_way())
    modes_seen = []

    class Recording(_SlowNative):
        def call(self, ov, args, kwargs):
            modes_seen.append(list(_get_current_function_mode_stack()))
            return super().call(ov, args, kwargs)

    op, case = _silu_case()
    timing.CaseTimer(op, Recording(op, 0.0), "cpu", 5, _ten_samples(), HostClock(), gate).time_case(case)
    assert modes_seen and all(stack == [] for stack in modes_seen)
    assert asked and set(asked) == {"shared"}  # asked only inside shared holds, never in a measurement


def test_a_host_slow_to_notice_a_long_call_is_no_side_stream_but_work_left_running_is():
    """A gap after the call's end event larger than the baseline's is a side stream's work, unless a
    device-only wait of the call's length shows the same gap (a loaded host noticing a long
    asynchronous call late; the baseline waited for the device inside its own call)."""
    from kernelgenbench.verify.clock import HostClock, Sample
    from kernelgenbench.verify.timing import TimingFailure
    from kernelgenbench.verify.verdict import Status

    class GapClock(HostClock):
        def __init__(self, candidate_gap_us):
            self.candidate_gap_us = candidate_gap_us  # by how many candidate calls were measured before
            self.gaps = {"baseline": 60.0, "wait": 380.0}
            self.side, self.measured = "baseline", 0

        def wait(self, device_us):
            self.side = "wait"

        def measure(self, fn):
            self.side = "baseline"
            sample, out = super().measure(fn)
            if self.side == "candidate":
                self.measured += 1
                return Sample(sample.device_us, self.candidate_gap_us(self.measured)), out
            return Sample(sample.device_us, self.gaps[self.side]), out

    def timed(candidate_gap_us):
        return _timed_marking(GapClock(candidate_gap_us), _ten_samples())

    assert timed(lambda n: 390.0).candidate.n == 10  # honest: late like the wait
    for cheat in (lambda n: 5000.0,  # work left running on another stream
                  lambda n: 5000.0 if n <= 10 else 60.0):  # ... only while its samples are taken
        with pytest.raises(TimingFailure) as caught:
            timed(cheat)
        assert caught.value.status is Status.HACK_TIMING and "another stream" in caught.value.reason


def test_a_host_slow_to_notice_a_call_is_no_faked_event_but_a_real_gap_is():
    """The host waiting far longer for the device than the events say means faked events, unless a
    device-only wait as long as the events say keeps the host waiting as long."""
    from kernelgenbench.verify.clock import HostClock
    from kernelgenbench.verify.timing import TimingFailure
    from kernelgenbench.verify.verdict import Status

    class EventClock(HostClock):
        name = "fake-events"

        def __init__(self, wait_gap_us: float):
            self.gaps = {"baseline": 20.0, "candidate": 2000.0, "wait": wait_gap_us}
            self.side = "baseline"

        def wait(self, device_us):
            self.side = "wait"

        def wall(self, fn):
            self.side = "baseline"
            fn()
            return 10.0, 10.0 + self.gaps[self.side]

    def timed(wait_gap_us):
        return _timed_marking(EventClock(wait_gap_us), _ten_samples(wall_samples=3))

    assert timed(1990.0).mode == "events"  # honest: a wait as long keeps the host as long
    with pytest.raises(TimingFailure) as caught:
        timed(30.0)
    assert caught.value.status is Status.HACK_TIMING and "the events say" in caught.value.reason


def test_a_truth_computed_on_the_host_is_its_own_phase_apart_from_the_device_held_truth(monkeypatch):
    """A float64 case's truth runs on the host with the device let go: the throughput record must not
    count those seconds as the device held by the timers' own work."""
    import time as clock_time

    from kernelgenbench.verify import timing
    from kernelgenbench.verify.clock import HostClock

    real = timing.expected_outputs

    def on_the_host(op, ov, values, device, host):
        with host():
            clock_time.sleep(0.05)
        return real(op, ov, values, device, host=host)

    monkeypatch.setattr(timing, "expected_outputs", on_the_host)
    op, case = _silu_case()
    timed = timing.CaseTimer(op, _SlowNative(op, 0.0), "cpu", 5, _ten_samples(), HostClock()).time_case(case)
    truths = 2  # one per input set
    assert timed.phases_s["host truths"] >= truths * 0.05
    assert timed.phases_s["truth"] < truths * 0.05
    assert timed.phases_s["calls"] >= 0  # nothing counted twice


def test_a_copy_off_the_device_comes_in_pieces_the_harness_can_give_way_between():
    """A host float64 truth copies its inputs off the device while the timer holds it shared; in one call
    the copy could not give way to a waiting measurement, so it comes one torch call per piece."""
    from torch.overrides import TorchFunctionMode

    from kernelgenbench.suite.transfer import copy_across

    class Calls(TorchFunctionMode):
        copies = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            Calls.copies += func is torch.Tensor.copy_
            return func(*args, **(kwargs or {}))

    src = torch.randn(10, dtype=torch.float32)
    with Calls():
        got = copy_across(src, torch.float64, torch.device("cpu"), piece_bytes=8)
    assert torch.equal(got, src.to(torch.float64))
    assert Calls.copies == 10  # 1 element (8 bytes of float64) a piece


@pytest.mark.parametrize("decorators, tunes", [
    ('@triton.autotune(configs=[triton.Config({"B": 16}), triton.Config({"B": 32})], key=["n"])\n', True),
    ('@triton.heuristics({"B": lambda args: 16})\n@triton.autotune(configs=[triton.Config({})], key=["n"])\n', True),
    ('@triton.heuristics({"B": lambda args: 16})\n', False),
    ("", False),
    ("def make():\n    @triton.autotune(configs=[triton.Config({})], key=['n'])\n    @triton.jit\n"
     "    def inner(x, n):\n        pass\n    return inner\n\n\n", True),  # its autotuner exists only once called
])
def test_a_candidate_that_autotunes_makes_its_first_call_alone_on_the_device(tmp_path, decorators, tunes):
    """The candidate's first call (its process's one-time work) shares the device, unless the candidate
    autotunes: its benchmarks, run beside other workers' preparation, would choose its configuration
    on a busy device."""
    from kernelgenbench.verify.bind import load_module
    from kernelgenbench.verify.clock import HostClock
    from kernelgenbench.verify.device_gate import DeviceGate
    from kernelgenbench.verify.timing import CaseTimer, tunes_itself

    path = tmp_path / "cand.py"
    path.write_text("import triton\nimport triton.language as tl\n\n\n" + decorators +
                    "@triton.jit\ndef kernel(x, n, B: tl.constexpr):\n    pass\n")
    assert tunes_itself(load_module(path), path.read_text()) is tunes

    gate = DeviceGate(tmp_path / "gpu")
    modes = []

    class Recording(_SlowNative):
        def call(self, ov, args, kwargs):
            modes.append(gate.mode)
            return super().call(ov, args, kwargs)

    op, case = _silu_case()
    CaseTimer(op, Recording(op, 0.0), "cpu", 5, _ten_samples(), HostClock(), gate,
              first_call_shared=not tunes).time_case(case)
    assert modes[0] == ("exclusive" if tunes else "shared")


def test_a_timing_job_counts_the_memory_its_largest_case_needs():
    """The campaign gives a timing job as many of a GPU's timer slots as its inputs need: the 16 GiB case of
    cublasDgemmStridedBatched_64 needs more than a quarter of an H200 (four timers), an elementwise op less."""
    from kernelgenbench.suite import registry
    from kernelgenbench.verify.timing import timing_bytes

    quarter_h200 = 139 * 2**30 / 4
    assert timing_bytes(registry.get("cublas::cublasDgemmStridedBatched_64"), ("perf",)) > 2 * quarter_h200
    assert timing_bytes(registry.get("aten::add"), ("perf",)) < quarter_h200


def test_the_truths_native_call_copies_only_what_it_writes():
    """The native call behind a truth writes into copies, never into the buffers the candidate is judged
    on, and reads the other operands where they are: on the H200 a copy of a 16 GiB operand that is only
    read kept cublasDgemmStridedBatched_64's timing job from fitting beside others."""
    from dataclasses import replace

    from kernelgenbench.suite import registry
    from kernelgenbench.suite.inputs import clone_values
    from kernelgenbench.verify.correctness import case_inputs, expected_outputs

    op = registry.get("cublas::cublasSgemm_v2")
    case = op.select_cases(sizes=("small",))[0]
    ov = op.overload(case.overload)
    values = case_inputs(case, 3, "cpu")
    before = clone_values(values)
    names, named = ov.split({k: k for k in values})
    seen: dict[str, int] = {}

    def spied(device, overload):
        def call(*args, **kwargs):
            given = dict(zip(names, args)) | {named[k]: v for k, v in kwargs.items()}
            seen.update({k: v.data_ptr() for k, v in given.items() if isinstance(v, torch.Tensor)})
            return overload.reference(*args, **kwargs)
        return call

    expected_outputs(replace(op, baseline=spied), ov, values, "cpu")
    assert seen["A"] == values["A"].data_ptr() and seen["B"] == values["B"].data_ptr()
    assert seen["C"] != values["C"].data_ptr()
    for k, v in values.items():
        if isinstance(v, torch.Tensor):
            torch.testing.assert_close(v, before[k], rtol=0, atol=0, equal_nan=True)


class _Remembering(_SlowNative):
    """The native op in the candidate's seat, `delay_s` a call, and `hit_s` a call on contents it has
    seen before (by value: a cache of answers keyed on a digest); `by_pointer` keys on the buffers'
    addresses instead, and `warm_up_calls` calls pass before it starts to remember."""

    def __init__(self, op, delay_s: float, hit_s: float, by_pointer: bool = False, warm_up_calls: int = 0):
        super().__init__(op, delay_s)
        self.hit_s, self.by_pointer, self.warm_up_calls = hit_s, by_pointer, warm_up_calls
        self.answers: dict = {}

    def key(self, args):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if self.by_pointer:
            return tuple(t.data_ptr() for t in tensors)
        return tuple((tuple(t.shape), t.dtype, t.contiguous().numpy().tobytes()) for t in tensors)

    def call(self, ov, args, kwargs):
        import time

        self.calls += 1
        key = self.key(args)
        if key in self.answers:
            time.sleep(self.hit_s)
            return self.answers[key].clone()
        time.sleep(self.delay_s)
        out = self.op.native("cpu", ov)(*args, **kwargs)
        if self.calls > self.warm_up_calls:
            self.answers[key] = out.clone()
        return out


def _time_silu(binding):
    from kernelgenbench.verify.clock import HostClock
    from kernelgenbench.verify.timing import CaseTimer

    op, case = _silu_case()
    return CaseTimer(op, binding, "cpu", 5, _ten_samples(), HostClock()).time_case(case)


# 8: the first call, two warm-ups of each set and three host-clock samples pass before it remembers
@pytest.mark.parametrize("warm_up_calls", [0, 8])
def test_a_cache_of_answers_is_hack_timing_however_late_it_starts(warm_up_calls):
    """Keyed on the inputs' contents, a remembered answer makes every repeated call fast; each side's
    first call on an input set's own contents is timed apart, and a candidate much slower there is
    a cache (so is one that starts remembering only once its warm-ups are over)."""
    from kernelgenbench.verify.timing import TimingFailure
    from kernelgenbench.verify.verdict import Status

    op, _ = _silu_case()
    with pytest.raises(TimingFailure) as caught:
        _time_silu(_Remembering(op, delay_s=0.02, hit_s=0.0, warm_up_calls=warm_up_calls))
    assert caught.value.status is Status.HACK_TIMING
    assert "faster on repeated inputs than on new ones" in caught.value.reason


def test_a_cache_that_gains_less_than_the_flag_is_counted_at_its_first_sight_speed():
    """A cache that saves a quarter of a call (only part of the work memoised) stays under the flag,
    and is counted at its speed on new contents: within FIRST_SIGHT_SLACK of the same code without it."""
    from kernelgenbench.verify.timing import FIRST_SIGHT_SLACK

    op, _ = _silu_case()
    cached = _time_silu(_Remembering(op, delay_s=0.02, hit_s=0.015))
    honest = _time_silu(_SlowNative(op, 0.02))
    assert cached.candidate.median_us < 0.8 * honest.candidate.median_us  # its repeats are faster ...
    assert cached.candidate_us >= cached.candidate.median_us * 1.2  # ... but not what counts
    assert cached.candidate_us >= honest.candidate_us / (1 + FIRST_SIGHT_SLACK) * 0.9


def test_a_cache_keyed_on_the_buffers_filled_in_the_warm_ups_is_wrong_on_first_sight():
    """The warm-ups run on other contents in the same buffers: a result kept by address is stale at the
    first timed call, whose outputs are checked."""
    from kernelgenbench.verify.timing import TimingFailure
    from kernelgenbench.verify.verdict import Status

    op, _ = _silu_case()
    with pytest.raises(TimingFailure) as caught:
        _time_silu(_Remembering(op, delay_s=0.0, hit_s=0.0, by_pointer=True))
    assert caught.value.status is Status.WRONG_RESULT and "first sight" in caught.value.reason


def test_a_candidate_that_reads_every_sets_buffers_at_its_first_sight_finds_the_others_not_yet_written():
    """A cache that, at any call, computes the answers for every input buffer it has seen (found by
    address in an earlier call) would make later first sights hits; each set gets its own contents
    just before its own first sights, so at the first one the others still hold the warm-ups'."""
    from kernelgenbench.verify.timing import TimingFailure

    op, _ = _silu_case()

    class Prefetching(_Remembering):
        def __init__(self):
            super().__init__(op, delay_s=0.02, hit_s=0.0)
            self.buffers: dict = {}

        def call(self, ov, args, kwargs):
            (x,) = [a for a in args if isinstance(a, torch.Tensor)]
            for address, other in self.buffers.items():  # every other buffer seen, computed for free
                if address != x.data_ptr():
                    self.answers.setdefault(self.key([other]), self.op.native("cpu", ov)(other))
            self.buffers[x.data_ptr()] = x
            return super().call(ov, args, kwargs)

    with pytest.raises(TimingFailure, match="faster on repeated inputs"):
        _time_silu(Prefetching())


def test_a_sides_counted_time_never_goes_below_its_first_sight_and_stored_records_read_alike():
    """The counted time is the repeats' median, or the fastest first sight less FIRST_SIGHT_SLACK where
    that is slower; a record timed before first sights existed reads as it did."""
    from kernelgenbench.verify.timing import FIRST_SIGHT_SLACK

    noisy = CaseTiming("c", "ov", Stats(100, 99, 101, 30), Stats(50, 49, 51, 30), 100, 50, None, "events",
                       baseline_first_us=(102.0, 101.0), candidate_first_us=(52.0, 51.5))
    assert noisy.speedup == 2.0 and noisy.repeats_faster is None
    partial = CaseTiming("c", "ov", Stats(100, 99, 101, 30), Stats(50, 49, 51, 30), 100, 50, None, "events",
                         baseline_first_us=(100.0, 100.0), candidate_first_us=(70.0, 72.0))
    assert partial.candidate_us == pytest.approx(70 / (1 + FIRST_SIGHT_SLACK)) and partial.repeats_faster is None
    cache = CaseTiming("c", "ov", Stats(100, 99, 101, 30), Stats(10, 9, 11, 30), 100, 10, None, "events",
                       baseline_first_us=(100.0, 100.0), candidate_first_us=(95.0, 96.0))
    assert "9.5x slower" in cache.repeats_faster
    again = CaseTiming.from_dict(partial.to_dict())
    assert again == partial and again.speedup == partial.speedup
    old = {k: v for k, v in noisy.to_dict().items() if not k.endswith("_first_us")}
    assert CaseTiming.from_dict(old).speedup == 2.0
