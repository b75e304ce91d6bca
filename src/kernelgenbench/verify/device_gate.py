"""Several timing workers on one device, and every measurement alone on it.

A timing worker's measured section (warm-ups, which autotune, and the timed samples) holds its
device exclusively; everything else it does there (drawing inputs, computing truths, checking
outputs) holds it shared, so the workers' preparation and checks overlap while no measurement ever
shares the device with other work. Workers meet through two lock files per device (flock, released
by the kernel when a process dies): a gate a measurement closes while it waits, so a stream of
shared holders cannot starve it, and the hold itself. Both are opened read-only, which flock needs
no more than, so workers of other users take part too. The files are named by the device's identity
(a GPU's UUID), so every worker that times on that device takes part, whichever run it belongs to.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

WAIT_LIMIT_S = 900.0  # a hold this long is a stuck neighbour, not a busy device (KGB_GATE_WAIT_S)


class GateTimeout(RuntimeError):
    """The device stayed held by another worker beyond the wait limit: the harness's trouble, not the
    candidate's (the campaign times such a candidate again, alone)."""


def gate_dir() -> Path:
    """The folder of every device's lock files: one per machine, which confined workers reach by
    name (their own temporary folder is private), so the parent sets it for them."""
    return Path(os.environ.get("KGB_GATE_DIR") or Path(tempfile.gettempdir()) / "kernelgenbench-gates")


def gate_path(device: str) -> Path:
    """Where the lock files of `device` live: one name per physical device."""
    return gate_dir() / f"kernelgenbench-gate-{_identity(device)}"


def _identity(device: str) -> str:
    if device.startswith("cuda"):
        import torch

        index = torch.device(device).index or 0
        return str(torch.cuda.get_device_properties(index).uuid)
    return "host"


class DeviceGate:
    """Shared and exclusive holds of one device, across processes. Not re-entrant across modes: a
    shared hold inside an exclusive one is a no-op; `released` and `pause`/`resume` let the host
    work alone (a truth on the CPU, a compilation) and then hold the device as before."""

    def __init__(self, path: Path, wait_limit_s: float | None = None, idle: Callable[[], None] | None = None):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._gate = os.open(f"{path}.gate", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self._hold = os.open(f"{path}.hold", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self.wait_limit_s = wait_limit_s or float(os.environ.get("KGB_GATE_WAIT_S") or WAIT_LIMIT_S)
        # waits until this process's work on the device is done: run before every hold is let go
        # (its end, and a pause for host work), so no kernel of ours runs on into a neighbour's
        # measurement. On the H200 a shipped paged_attention_v1 was called a timing hack while
        # timers let go without it.
        self._idle = idle or (lambda: None)
        self.mode: str | None = None
        self._paused: str | None = None  # the hold given up for host-only work, to take again
        self.waited_s = 0.0  # time spent waiting for other workers
        self.compiled_s = 0.0  # time Triton spent compiling, the device let go (compile_outside)

    def _take(self, fd: int, kind: int) -> None:
        start = time.perf_counter()
        pause = 0.0002
        while True:
            try:
                fcntl.flock(fd, kind | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.perf_counter() - start > self.wait_limit_s:
                    raise GateTimeout(f"the device stayed held by another timing worker for over "
                                      f"{self.wait_limit_s:.0f} s") from None
                time.sleep(pause)
                pause = min(pause * 2, 0.005)
        self.waited_s += time.perf_counter() - start

    def _lock(self, mode: str) -> None:
        if mode == "exclusive":
            self._take(self._gate, fcntl.LOCK_EX)
            try:
                self._take(self._hold, fcntl.LOCK_EX)
            except BaseException:
                fcntl.flock(self._gate, fcntl.LOCK_UN)
                raise
        else:
            self._take(self._gate, fcntl.LOCK_SH)  # only to pass: a waiting measurement has it closed
            try:
                self._take(self._hold, fcntl.LOCK_SH)
            finally:
                fcntl.flock(self._gate, fcntl.LOCK_UN)
        self.mode = mode

    def _unlock(self) -> None:
        if self.mode is None:
            return
        try:
            self._idle()
        finally:
            fcntl.flock(self._hold, fcntl.LOCK_UN)
            if self.mode == "exclusive":
                fcntl.flock(self._gate, fcntl.LOCK_UN)
            self.mode = None

    @contextmanager
    def _holding(self, mode: str) -> Iterator[None]:
        self._lock(mode)
        try:
            yield
        finally:
            self._unlock()
            self._paused = None

    def shared(self) -> AbstractContextManager[None]:
        return nullcontext() if self.mode is not None else self._holding("shared")

    def exclusive(self) -> AbstractContextManager[None]:
        assert self.mode is None and self._paused is None, "an exclusive hold cannot be taken inside another hold"
        return self._holding("exclusive")

    def pause(self) -> None:
        """Host-only work begins inside a hold (Triton compiling a kernel the call is about to launch):
        let go of the device until `resume`, so neither a measurement nor other workers wait for it."""
        if self.mode is not None:
            self._paused = self.mode
            self._unlock()

    def resume(self) -> None:
        if self._paused is not None:
            mode, self._paused = self._paused, None
            self._lock(mode)

    def measurement_waiting(self) -> bool:
        """Inside a shared hold: whether another worker's measurement waits for the device (it has
        closed the gate)."""
        assert self.mode == "shared", "only a shared holder can see a measurement wait"
        try:
            fcntl.flock(self._gate, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(self._gate, fcntl.LOCK_UN)
        return False

    def give_way(self) -> None:
        """Inside a long shared stretch (a reference that loops in Python): let a waiting measurement
        have the device now, and hold it shared again once that is done. One shared holder that
        never let go stalled every timer: the measurement waited for it, and the others, behind the
        closed gate, for the measurement (on the H200 the GPU measured under half the timing phase)."""
        if self.mode == "shared" and self.measurement_waiting():
            self.pause()
            self.resume()

    @contextmanager
    def released(self) -> Iterator[None]:
        """Inside a shared hold: let go while only the host works (a float64 truth on the CPU), so a
        measurement need not wait for it; hold again afterwards."""
        if self.mode != "shared":
            yield
            return
        self.pause()
        try:
            yield
        finally:
            self.resume()

    def close(self) -> None:
        os.close(self._gate)
        os.close(self._hold)


def compile_outside(gate: DeviceGate) -> None:
    """Triton compiles a kernel on its first launch with new specializations (the perf cases' shapes
    make many): host work, which would otherwise hold the device (on the H200, 101 of the 263 s that
    113 operators' measured sections took). Let go of it while Triton compiles."""
    from triton import knobs

    started: list[float] = []

    def before(**_: object) -> bool:
        started.append(time.perf_counter())
        gate.pause()
        return False  # compile as usual

    def after(**_: object) -> None:
        if started:
            gate.compiled_s += time.perf_counter() - started.pop()
        gate.resume()

    knobs.runtime.jit_cache_hook = before
    knobs.runtime.jit_post_compile_hook = after
