"""Timing workers sharing a device: a measurement (exclusive hold) never overlaps any other hold, the
workers' preparation and checks (shared holds) overlap freely, a waiting measurement is not starved
by a stream of shared holds, and a host-only stretch lets a measurement in. Real processes, real locks."""

from __future__ import annotations

import multiprocessing as mp
import time
from pathlib import Path

import pytest

from kernelgenbench.verify.device_gate import DeviceGate, GateTimeout


def _worker(path: str, kind: str, hold_s: float, rounds: int, log: str) -> None:
    gate = DeviceGate(Path(path))
    with open(log, "a") as out:
        for _ in range(rounds):
            with getattr(gate, kind)():
                start = time.time()
                time.sleep(hold_s)
                out.write(f"{kind} {start} {time.time()}\n")
                out.flush()


def _spans(log: Path) -> list[tuple[str, float, float]]:
    return [(k, float(a), float(b)) for k, a, b in (line.split() for line in log.read_text().splitlines())]


def _overlap(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def test_a_measurement_never_overlaps_another_hold_while_shared_holds_overlap(tmp_path):
    path, log = str(tmp_path / "gpu"), tmp_path / "log"
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(path, kind, 0.05, 8, str(log)))
             for kind in ("exclusive", "exclusive", "shared", "shared", "shared")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    spans = _spans(log)
    assert sum(k == "exclusive" for k, _, _ in spans) == 16 and sum(k == "shared" for k, _, _ in spans) == 24
    exclusive = [s for s in spans if s[0] == "exclusive"]
    assert not any(_overlap(e, o) for e in exclusive for o in spans if o is not e)
    shared = [s for s in spans if s[0] == "shared"]
    assert any(_overlap(a, b) for i, a in enumerate(shared) for b in shared[i + 1:])


def test_a_waiting_measurement_is_not_starved_by_shared_holds(tmp_path):
    """Three workers hold the device shared back to back for 3 s; a measurement asked for after 0.2 s
    gets it long before they are done."""
    path, log = str(tmp_path / "gpu"), tmp_path / "log"
    ctx = mp.get_context("spawn")
    readers = [ctx.Process(target=_worker, args=(path, "shared", 0.1, 30, str(log))) for _ in range(3)]
    for p in readers:
        p.start()
    time.sleep(0.2)
    gate = DeviceGate(Path(path))
    asked = time.time()
    with gate.exclusive():
        got = time.time()
    for p in readers:
        p.join(60)
    assert got - asked < 1.0


def test_a_host_only_stretch_lets_a_measurement_in(tmp_path):
    path = tmp_path / "gpu"
    reader, writer = DeviceGate(path), DeviceGate(path, wait_limit_s=0.3)
    with reader.shared():
        with pytest.raises(GateTimeout, match="held by another timing worker"):
            with writer.exclusive():
                pass
        with reader.released():
            with writer.exclusive():
                pass
        assert reader.mode == "shared"  # held again after the host's stretch
        with pytest.raises(GateTimeout):
            with writer.exclusive():
                pass
    with writer.exclusive():
        assert writer.mode == "exclusive"


def test_a_measurement_lets_go_of_the_device_while_triton_compiles(tmp_path):
    """Compiling is host work: Triton's pre-compile hook pauses the hold, its post-compile hook takes
    it again in the same mode, so a neighbour measures meanwhile instead of waiting seconds."""
    from triton import knobs

    from kernelgenbench.verify.device_gate import compile_outside

    path = tmp_path / "gpu"
    mine, neighbour = DeviceGate(path), DeviceGate(path, wait_limit_s=0.3)
    saved = knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook
    try:
        compile_outside(mine)
        with mine.exclusive():
            assert knobs.runtime.jit_cache_hook(key="k", repr="kernel") is False  # compile as usual
            with neighbour.exclusive():  # free while mine compiles
                pass
            time.sleep(0.05)
            knobs.runtime.jit_post_compile_hook(key="k", repr="kernel")
            assert mine.mode == "exclusive"
            assert mine.compiled_s >= 0.05  # a case's timing counts its compile time apart
            with pytest.raises(GateTimeout):
                with neighbour.shared():
                    pass
        with neighbour.exclusive():
            pass
    finally:
        knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook = saved


def test_a_hold_is_let_go_only_once_this_processs_device_work_is_done(tmp_path):
    """Work still running when a hold ends or pauses (a float64 truth's native call, kernels launched
    before Triton compiles the next) would run on into a neighbour's measurement: on the H200 a
    shipped paged_attention_v1 was called a timing hack so. The wait runs while the hold is held."""
    path = tmp_path / "gpu"
    held_at_idle = []
    gate = DeviceGate(path, idle=lambda: held_at_idle.append(gate.mode))
    neighbour = DeviceGate(path, wait_limit_s=0.3)
    with gate.shared():
        with gate.released():
            with neighbour.exclusive():  # the device is free while the host works
                pass
    with gate.exclusive():
        gate.pause()
        gate.resume()
    assert held_at_idle == ["shared", "shared", "exclusive", "exclusive"]


def test_a_long_truth_that_loops_in_python_lets_a_waiting_measurement_in(tmp_path):
    """A reference that loops in Python holds the device shared for seconds: between two of its torch
    calls it gives way to a measurement that waits, holds the device again afterwards, and computes
    the same result. Without giving way the measurement would wait for the whole loop."""
    import threading

    import torch

    from kernelgenbench.verify.timing import GivingWay

    path = tmp_path / "gpu"
    mine, neighbour = DeviceGate(path), DeviceGate(path)
    measured = threading.Event()
    modes_after = []

    def measure() -> None:
        with neighbour.exclusive():
            assert mine.mode is None  # nothing else holds the device meanwhile
            measured.set()

    x = torch.arange(8, dtype=torch.float64)
    total = torch.zeros_like(x)
    with mine.shared():
        waiting = threading.Thread(target=measure)
        waiting.start()
        with GivingWay(mine):
            for step in range(1, 3001):
                total = total + x * step
                if measured.is_set():
                    modes_after.append(mine.mode)
                    break
                time.sleep(0.001)
        waiting.join(10)
        assert mine.mode == "shared"
    assert measured.is_set() and step < 3000  # got in long before the loop's 3+ s were over
    assert modes_after == ["shared"]
    assert torch.equal(total, x * (step * (step + 1) / 2))
    assert mine.waited_s > 0  # the wait for the measurement counts as a wait
