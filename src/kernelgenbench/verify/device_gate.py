"""Several timing workers on one device, and every measurement alone on it.

A timing worker's measured section (warm-ups, which autotune, and the timed samples) holds its
device exclusively; everything else it does there (drawing inputs, computing truths, checking
outputs) holds it shared, so the workers' preparation and checks overlap while no measurement ever
shares the device with other work. Workers meet through two lock files per device (flock, released
by the kernel when a process dies): a gate a measurement closes while it waits, so a stream of
shared holders cannot starve it, and the hold itself. The files are named by the device's identity
(a GPU's UUID), so every worker that times on that device takes part, whichever run it belongs to.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

WAIT_LIMIT_S = 900.0  # a hold this long is a stuck neighbour, not a busy device (KGB_GATE_WAIT_S)


class GateTimeout(RuntimeError):
    """The device stayed held by another worker beyond the wait limit: the harness's trouble, not the
    candidate's (the campaign times such a candidate again, alone)."""


def gate_path(device: str) -> Path:
    """Where the lock files of `device` live: one name per physical device."""
    root = Path(os.environ.get("KGB_GATE_DIR") or tempfile.gettempdir())
    return root / f"kernelgenbench-gate-{_identity(device)}"


def _identity(device: str) -> str:
    if device.startswith("cuda"):
        import torch

        index = torch.device(device).index or 0
        return str(torch.cuda.get_device_properties(index).uuid)
    return "host"


class DeviceGate:
    """Shared and exclusive holds of one device, across processes. Not re-entrant across modes: a
    shared hold inside an exclusive one is a no-op, and `released` lets the host work alone."""

    def __init__(self, path: Path, wait_limit_s: float | None = None):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._gate = os.open(f"{path}.gate", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        self._hold = os.open(f"{path}.hold", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        self.wait_limit_s = wait_limit_s or float(os.environ.get("KGB_GATE_WAIT_S") or WAIT_LIMIT_S)
        self.mode: str | None = None
        self.waited_s = 0.0  # time spent waiting for other workers

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

    @contextmanager
    def shared(self) -> Iterator[None]:
        if self.mode is not None:
            yield
            return
        self._take(self._gate, fcntl.LOCK_SH)  # only to pass: a waiting measurement has it closed
        try:
            self._take(self._hold, fcntl.LOCK_SH)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        self.mode = "shared"
        try:
            yield
        finally:
            self.mode = None
            fcntl.flock(self._hold, fcntl.LOCK_UN)

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        assert self.mode is None, "an exclusive hold cannot be taken inside another hold"
        self._take(self._gate, fcntl.LOCK_EX)
        try:
            self._take(self._hold, fcntl.LOCK_EX)
            self.mode = "exclusive"
            try:
                yield
            finally:
                self.mode = None
                fcntl.flock(self._hold, fcntl.LOCK_UN)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)

    @contextmanager
    def released(self) -> Iterator[None]:
        """Inside a shared hold: let go while only the host works (a float64 truth on the CPU), so a
        measurement need not wait for it; hold again afterwards."""
        if self.mode != "shared":
            yield
            return
        self.mode = None
        fcntl.flock(self._hold, fcntl.LOCK_UN)
        try:
            yield
        finally:
            self._take(self._gate, fcntl.LOCK_SH)
            try:
                self._take(self._hold, fcntl.LOCK_SH)
            finally:
                fcntl.flock(self._gate, fcntl.LOCK_UN)
            self.mode = "shared"

    def close(self) -> None:
        os.close(self._gate)
        os.close(self._hold)
