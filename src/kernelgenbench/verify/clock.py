"""Clocks that time one call: the CUDA one the benchmark reports, and a host one for tests.

The CUDA clock's sample, in order: the L2 is flushed by writing a buffer twice its size, the
persisting-L2 lines are reset, the GPU is kept busy by a short sleep kernel so the host's launch
work is hidden behind it, then start event, the call, end event; a device-wide synchronize and a
second end event follow. A call that leaves work running on another stream shows as a gap between
the two end events, which the timing layer compares with the baseline's.

Everything the clock uses is bound when this module is imported, before any candidate is, so a
candidate that patches `torch.cuda.Event` or `time.perf_counter` does not reach it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import torch

_perf_counter = time.perf_counter
_Event = torch.cuda.Event
_record = torch.cuda.Event.record
_elapsed = torch.cuda.Event.elapsed_time
_synchronize = torch.cuda.synchronize
_sleep = torch.cuda._sleep
_CAPTURED = {
    "time.perf_counter": (lambda: time.perf_counter, _perf_counter),
    "torch.cuda.Event": (lambda: torch.cuda.Event, _Event),
    "torch.cuda.Event.record": (lambda: torch.cuda.Event.record, _record),
    "torch.cuda.Event.elapsed_time": (lambda: torch.cuda.Event.elapsed_time, _elapsed),
    "torch.cuda.synchronize": (lambda: torch.cuda.synchronize, _synchronize),
}


def tampered() -> list[str]:
    """The timing functions a candidate has replaced since this module was imported."""
    return [name for name, (now, then) in _CAPTURED.items() if now() is not then]

@dataclass(frozen=True)
class Sample:
    device_us: float  # start event to the call's end event
    escaped_us: float  # end event to the device being idle: sync latency, or work left on another stream


class Clock(Protocol):
    """What the timing layer needs of a clock; CudaClock is the one results come from."""

    name: str

    def hide_launch(self, host_us: float) -> None: ...
    def measure(self, fn: Callable[[], Any]) -> tuple[Sample, Any]: ...
    def wait(self, device_us: float) -> None: ...
    def wall(self, fn: Callable[[], Any]) -> tuple[float, float]: ...
    def bandwidth(self) -> float | None: ...
    def describe(self) -> dict[str, Any]: ...


@cache
def cuda_runtime() -> Any | None:
    """The CUDA runtime torch already loaded, for what torch does not expose (resetting persisting
    L2 lines) or should not see (the flush: a memset that never passes through the dispatcher,
    where a candidate for a fill operator is registered while it is timed)."""
    names = ["libcudart.so.13", "libcudart.so.12", "libcudart.so"]
    found = ctypes.util.find_library("cudart")
    if found:
        names.append(found)
    root = os.path.dirname(os.path.dirname(torch.__file__))
    names += sorted(glob.glob(os.path.join(root, "nvidia", "**", "libcudart.so*"), recursive=True))
    for name in names:
        try:
            lib = ctypes.CDLL(name)
            lib.cudaCtxResetPersistingL2Cache.restype = ctypes.c_int
            lib.cudaMemsetAsync.restype = ctypes.c_int
            lib.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
            return lib
        except (OSError, AttributeError):
            continue
    return None


class CudaClock:
    """Device time of one call, with cold caches and the launch overhead hidden."""

    name = "cuda-events"

    def __init__(self, device: str = "cuda"):
        self.device = torch.device(device)
        props = torch.cuda.get_device_properties(self.device)
        self.l2_bytes = int(props.L2_cache_size)
        self.flush_buffer = torch.empty(max(2 * self.l2_bytes, 1 << 24), dtype=torch.uint8, device=self.device)
        self._cudart = self._working_cudart()
        self.cycles_per_us = self._calibrate_sleep()
        self.sleep_us = 50.0

    def _working_cudart(self) -> Any | None:
        """The runtime, if its memset really clears the flush buffer on torch's stream; else None
        (the flush then goes through torch)."""
        lib = cuda_runtime()
        if lib is None:
            return None
        self.flush_buffer.fill_(1)
        stream = torch.cuda.current_stream(self.device).cuda_stream
        ok = lib.cudaMemsetAsync(self.flush_buffer.data_ptr(), 0, self.flush_buffer.numel(), stream) == 0
        _synchronize()
        if not ok or bool(self.flush_buffer.any()) or lib.cudaCtxResetPersistingL2Cache() != 0:
            return None
        return lib

    def _calibrate_sleep(self) -> float:
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        cycles = 2_000_000
        _sleep(cycles)  # the first launch loads the kernel
        _synchronize()
        _record(start)
        _sleep(cycles)
        _record(end)
        _synchronize()
        return cycles / (_elapsed(start, end) * 1e3)

    def hide_launch(self, host_us: float) -> None:
        """Sleep long enough before each call that its host work is done before the GPU starts it: a
        launch that outlasts the sleep leaves the GPU idle after the start event, and that idle time
        would count as the call's. The margin covers a host slowed by other timing workers' CPU work
        (the sleep costs device time only, tens of microseconds a sample)."""
        self.sleep_us = min(max(3.0 * host_us + 100.0, 100.0), 5000.0)

    def prepare(self) -> None:
        if self._cudart is None:
            self.flush_buffer.zero_()
            return
        stream = torch.cuda.current_stream(self.device).cuda_stream
        self._cudart.cudaMemsetAsync(self.flush_buffer.data_ptr(), 0, self.flush_buffer.numel(), stream)
        self._cudart.cudaCtxResetPersistingL2Cache()

    def measure(self, fn: Callable[[], Any]) -> tuple[Sample, Any]:
        start, end, after = (_Event(enable_timing=True) for _ in range(3))
        self.prepare()
        _sleep(int(self.sleep_us * self.cycles_per_us))
        _record(start)
        out = fn()
        _record(end)
        _synchronize()
        _record(after)
        _synchronize()
        own = _elapsed(start, end) * 1e3
        return Sample(own, max(_elapsed(start, after) * 1e3 - own, 0.0)), out

    def wait(self, device_us: float) -> None:
        """Device-only work of this length on the current stream, launched at once: an honest
        asynchronous call, whose end a loaded host notices as late as the candidate's."""
        _sleep(max(int(device_us * self.cycles_per_us), 1))

    def wall(self, fn: Callable[[], Any]) -> tuple[float, float]:
        """(host time until the call returns, host time until the device is idle), in us."""
        self.prepare()
        _synchronize()
        t0 = _perf_counter()
        fn()
        t1 = _perf_counter()
        _synchronize()
        t2 = _perf_counter()
        return (t1 - t0) * 1e6, (t2 - t0) * 1e6

    def bandwidth(self) -> float:
        """Device memory bandwidth in bytes/s: the best of ten 2 GiB device-to-device copies
        (bytes read plus written). The best, since the floor must never be above what is possible."""
        n = 2 << 30
        src = torch.empty(n, dtype=torch.uint8, device=self.device)
        dst = torch.empty_like(src)
        dst.copy_(src)
        best = min(self.measure(lambda: dst.copy_(src))[0].device_us for _ in range(10))
        return 2 * n / (best * 1e-6)

    def describe(self) -> dict[str, Any]:
        return {"clock": self.name, "l2_bytes": self.l2_bytes, "flush_bytes": self.flush_buffer.numel(),
                "persisting_l2_reset": self._cudart is not None,
                "flush": "cudaMemsetAsync" if self._cudart is not None else "torch zero_",
                "device": torch.cuda.get_device_name(self.device)}


class HostClock:
    """Host wall time around a call: for exercising the timing logic on the CPU, never reported."""

    name = "host"

    def hide_launch(self, host_us: float) -> None:
        return None

    def wait(self, device_us: float) -> None:
        return None

    def measure(self, fn: Callable[[], Any]) -> tuple[Sample, Any]:
        t0 = _perf_counter()
        out = fn()
        return Sample((_perf_counter() - t0) * 1e6, 0.0), out

    def wall(self, fn: Callable[[], Any]) -> tuple[float, float]:
        t0 = _perf_counter()
        fn()
        t = (_perf_counter() - t0) * 1e6
        return t, t

    def bandwidth(self) -> float | None:
        return None

    def describe(self) -> dict[str, Any]:
        return {"clock": self.name}


def clock_for(device: str) -> Clock:
    return CudaClock(device) if device.startswith("cuda") else HostClock()
