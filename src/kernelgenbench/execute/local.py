"""The default executor: a pool of worker threads, each driving one sandboxed process on one device."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Protocol, TypeVar

from ..platforms import Platform

J = TypeVar("J")
R = TypeVar("R")


class Executor(Protocol):
    """Runs judging jobs. `fn` is a module-level function bound with functools.partial and `job` a
    frozen dataclass, so both pickle: an executor may run them in another process or on another
    machine, whose sandbox judges there; results come back to the caller, which alone writes the store."""

    workers: int  # jobs at once
    threads: int  # CPU threads each job's worker may use
    timers: int  # timing jobs at once per device (their measurements take turns: verify/device_gate.py)
    timing_threads: int  # CPU threads each timing job's worker may use

    def call(self, fn: Callable[[J, int | None], R], job: J) -> R:
        """Run fn(job, device_index) in the calling thread once a worker slot is free."""
        ...

    def map(self, fn: Callable[[J, int | None], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        """Run fn(job, device_index) for every job; yield results as they complete."""
        ...

    def time_each(self, fn: Callable[[J, int | None], R], jobs: Iterable[J],
                  slots: Callable[[J], int] | None = None) -> Iterator[tuple[J, R]]:
        """Like map, for timing, once verification is over: each device has `timers` timing slots and
        every device is kept busy. A job holds `slots(job)` of its device's (default one; `timers`: the
        device to itself, for a job the first pass could not time beside others, or one whose inputs
        need most of its memory); jobs start in their given order."""
        ...


TIMERS_PER_DEVICE = 4  # on an accelerator; see benchmarks/results/README.md (parallel timing on the H200)


class LocalPool:
    def __init__(self, platform: Platform, workers: int | None = None, timers: int | None = None):
        self.platform = platform
        accelerated = platform.profile.accelerated
        devices = platform.device_count if accelerated else 1
        self._slots: list[int | None] = list(range(devices)) if accelerated else [None]
        self.workers = max(1, workers or devices)
        self.threads = max(1, (os.cpu_count() or 1) // self.workers)
        self.timers = max(1, timers or (TIMERS_PER_DEVICE if accelerated else 1))
        # A timing worker's CPU threads do not depend on --timers: a baseline with host work (vLLM's
        # torch references build index tensors on the CPU) ran 3.4x slower with four timers' 3 threads
        # than serially with 8. The default timers' share, with a core left for the one measuring.
        slots = devices * (TIMERS_PER_DEVICE if accelerated else 1)
        self.timing_threads = max(1, (os.cpu_count() or 1) // (slots + 1))
        self._devices: queue.Queue[int | None] = queue.Queue()
        for i in range(self.workers):
            self._devices.put(i % devices if accelerated else None)

    def call(self, fn: Callable[[J, int | None], R], job: J) -> R:
        return _holding(self._devices, fn, job)

    def map(self, fn: Callable[[J, int | None], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        return _pooled(self.workers, self._devices, fn, jobs)

    def time_each(self, fn: Callable[[J, int | None], R], jobs: Iterable[J],
                  slots: Callable[[J], int] | None = None) -> Iterator[tuple[J, R]]:
        bank = _SlotBank(self._slots, self.timers)
        need = slots or (lambda _: 1)

        def run(turn: int, job: J) -> R:
            device, n = bank.take(turn, need(job))
            try:
                return fn(job, device)
            finally:
                bank.give(device, n)

        return _in_threads(len(self._slots) * self.timers, run, jobs)


class _SlotBank:
    """Each device's timing slots, given out in the jobs' order: a job that needs several waits for them
    all at once, and the jobs after it wait behind it, so lighter ones cannot starve it."""

    def __init__(self, devices: list[int | None], per_device: int):
        self.free = dict.fromkeys(devices, per_device)
        self.given = dict.fromkeys(devices, 0)
        self.per_device = per_device
        self.turn = 0
        self.changed = threading.Condition()

    def take(self, turn: int, wanted: int) -> tuple[int | None, int]:
        n = min(max(1, wanted), self.per_device)
        with self.changed:
            while True:
                # the least busy device; of equals, the one given fewest jobs, so every device is used
                device = max(self.free, key=lambda d: (self.free[d], -self.given[d]))
                if turn == self.turn and self.free[device] >= n:
                    self.free[device] -= n
                    self.given[device] += 1
                    self.turn += 1
                    self.changed.notify_all()
                    return device, n
                self.changed.wait()

    def give(self, device: int | None, n: int) -> None:
        with self.changed:
            self.free[device] += n
            self.changed.notify_all()


def _holding(devices: queue.Queue[int | None], fn: Callable[[J, int | None], R], job: J) -> R:
    """fn(job, device) with a device taken from `devices` for the whole call."""
    device = devices.get()
    try:
        return fn(job, device)
    finally:
        devices.put(device)


def _pooled(workers: int, devices: queue.Queue[int | None], fn: Callable[[J, int | None], R],
            jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
    """fn(job, device) for every job on `workers` threads, each job holding a device from `devices`
    for its whole run; results as they complete."""
    return _in_threads(workers, lambda _, job: _holding(devices, fn, job), jobs)


def _in_threads(workers: int, run: Callable[[int, J], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
    """run(i, job) for the i-th job, on `workers` threads, started in order; results as they complete."""
    pool = ThreadPoolExecutor(workers, thread_name_prefix="kgb-judge")
    try:
        pending: dict[Future[R], J] = {pool.submit(run, i, job): job for i, job in enumerate(jobs)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield pending.pop(fut), fut.result()
    finally:  # a caller that stops early (Ctrl-C) starts no further job
        pool.shutdown(wait=True, cancel_futures=True)
