"""The local pool's scheduling, without GPUs: verification spreads over every worker slot, timing
puts `timers` candidates on each GPU at a time (their measurements take turns there, see
test_device_gate.py) and keeps every GPU busy; a job timed again alone has its GPU to itself."""

from __future__ import annotations

import threading
import time

from kernelgenbench.execute.local import LocalPool
from kernelgenbench.platforms import INTERPRETER, Platform

TWO_GPUS = Platform("cuda", "cuda", "CUDA", ("small", "large"), {}, device_count=2)


class Recorder:
    """A judging function that notes which device each job held, and when."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: list[tuple[int | None, float, float]] = []

    def __call__(self, job: int, device: int | None) -> int:
        start = time.perf_counter()
        time.sleep(0.05)
        with self.lock:
            self.spans.append((device, start, time.perf_counter()))
        return job * 10


def _overlap(a: tuple[int | None, float, float], b: tuple[int | None, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def _most_at_once(spans: list[tuple[int | None, float, float]], device: int | None) -> int:
    mine = [s for s in spans if s[0] == device]
    return max(sum(1 for o in mine if o[1] <= s[1] < o[2]) for s in mine)


def test_timing_puts_timers_jobs_on_each_gpu_and_uses_every_gpu():
    record = Recorder()
    results = dict(LocalPool(TWO_GPUS, workers=8, timers=3).time_each(record, list(range(12))))
    assert results == {j: 10 * j for j in range(12)}
    assert {d for d, _, _ in record.spans} == {0, 1}
    assert _most_at_once(record.spans, 0) == _most_at_once(record.spans, 1) == 3


def test_a_job_timed_alone_has_its_gpu_to_itself():
    record = Recorder()
    list(LocalPool(TWO_GPUS, workers=8, timers=3).time_each(record, list(range(8)), lambda _: 3))
    spans = record.spans
    assert {d for d, _, _ in spans} == {0, 1}
    assert not any(_overlap(a, b) for i, a in enumerate(spans) for b in spans[i + 1:] if a[0] == b[0])
    assert any(_overlap(a, b) for i, a in enumerate(spans) for b in spans[i + 1:] if a[0] != b[0])


def test_a_job_whose_inputs_need_more_memory_holds_more_timing_slots_and_is_not_overtaken():
    """On the H200 a 16 GiB case never finished timing beside three other timers: a job that needs two
    of a GPU's three slots times beside at most one other there, and the lighter jobs given after it
    start no earlier than it does."""
    spans: dict[int, tuple[float, float]] = {}

    def record(job: int, device: int | None) -> None:
        start = time.perf_counter()
        time.sleep(0.05)
        spans[job] = (start, time.perf_counter())

    one_gpu = Platform("cuda", "cuda", "CUDA", ("small", "large"), {}, device_count=1)
    heavy = 4
    list(LocalPool(one_gpu, workers=8, timers=3).time_each(record, list(range(10)), lambda j: 2 if j == heavy else 1))
    h_start, h_end = spans[heavy]
    moments = [h_start] + [start for start, _ in spans.values() if h_start < start < h_end]
    assert all(sum(1 for j, (start, end) in spans.items() if j != heavy and start <= t < end) <= 1 for t in moments)
    assert all(spans[j][0] >= spans[heavy][0] for j in range(heavy + 1, 10))
    assert max(sum(1 for o in spans.values() if o[0] <= s[0] < o[1]) for s in spans.values()) == 3


def test_verification_runs_every_worker_slot_at_once():
    record = Recorder()
    list(LocalPool(TWO_GPUS, workers=6).map(record, list(range(6))))
    first_end = min(end for _, _, end in record.spans)
    assert sum(start < first_end for _, start, _ in record.spans) == 6  # six at once, three per GPU


def test_the_interpreter_times_one_candidate_at_a_time():
    record = Recorder()
    list(LocalPool(INTERPRETER, workers=4).time_each(record, list(range(4))))
    spans = sorted(record.spans, key=lambda s: s[1])
    assert all(a[2] <= b[1] for a, b in zip(spans, spans[1:])) and {d for d, _, _ in spans} == {None}


def test_a_caller_that_stops_early_starts_no_further_job():
    record = Recorder()
    jobs = LocalPool(INTERPRETER).time_each(record, list(range(20)))
    next(jobs)
    jobs.close()
    assert len(record.spans) <= 2


def test_a_timing_workers_cpu_threads_do_not_depend_on_how_many_time_at_once(monkeypatch):
    """vLLM's torch references do host work: on the H200 one baseline ran 3.4x slower timed beside
    three others (3 threads) than alone (8), so speed-ups moved with --timers. Now they cannot."""
    monkeypatch.setattr("os.cpu_count", lambda: 32)
    threads = {timers: LocalPool(TWO_GPUS, workers=8, timers=timers).timing_threads for timers in (1, 2, 4, 8)}
    assert len(set(threads.values())) == 1 and threads[1] >= 1
