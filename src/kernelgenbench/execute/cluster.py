"""A Ray executor: each judging job is a Ray task that judges one candidate in its own sandboxed worker
process on the node that runs it, and returns the verdict to the driver, which alone writes the store.

A task asks for one CPU and, on an accelerator, one device of the platform's Ray resource (`GPU` on
CUDA, ROCm and XPU, `NPU` on Ascend: Ray sets the visible-devices variable, which the sandboxed
worker inherits), so verification holds its device as on the local pool; a timing task asks for a
share of one, and its measurements take turns with its neighbours' there (verify/device_gate.py).
MUSA and MLU have no resource built into Ray: their clusters declare `MUSA`/`MLU`
per node, and then pinning within a node is not done (run on CUDA for real only). Every node needs
kernelgenbench installed (the same version as the driver's).
Ray is optional (`pip install 'kernelgenbench[ray]'`) and imported only when this executor is made.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from ..platforms import Platform, Profile
from .local import TIMERS_PER_DEVICE

J = TypeVar("J")
R = TypeVar("R")


class ExecutorError(RuntimeError):
    """The executor cannot be set up (Ray missing, cluster unreachable or without GPUs)."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError("--executor ray needs Ray, which is not installed: "
                            "pip install 'kernelgenbench[ray]'") from None
    return ray


def check_reachable(address: str | None, timeout_s: float = 5.0) -> None:
    """Fail at once on a `host:port` nothing listens on (Ray itself retries for minutes)."""
    if not address or address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ExecutorError(f"--address {address!r} is not HOST:PORT (or ray://HOST:PORT, auto)")
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise ExecutorError(f"cannot reach the Ray cluster at {address}: {e}") from None


def _on_node(fn: Callable[[J, int | None], R], job: J) -> R:
    """In the Ray task: the device Ray gave it is already in this process's visible-devices variable."""
    return fn(job, None)


def task_options(profile: Profile, share: float = 1.0) -> dict[str, Any]:
    """What one judging task asks Ray for: a CPU, and `share` of one device of the platform's resource
    (a timing task 1/timers: its measurements take turns with its neighbours' on the device)."""
    device = profile.ray_resource
    if device == "GPU":
        return {"num_cpus": 1, "num_gpus": share}
    return {"num_cpus": 1, "resources": {device: share}} if device else {"num_cpus": 1}


class RayExecutor:
    """Connects to the Ray cluster at `address` (None: RAY_ADDRESS, else a new local one); `workers`
    caps jobs in flight (default: the cluster's GPUs on CUDA, its CPUs on the interpreter)."""

    def __init__(self, platform: Platform, address: str | None = None, workers: int | None = None,
                 timers: int | None = None):
        ray = import_ray()
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            check_reachable(address)
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False,
                         logging_level="warning")
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise ExecutorError(f"cannot reach the Ray cluster at {address or 'RAY_ADDRESS'}: {e}") from None
            self._started = True
        device = platform.profile.ray_resource  # GPU, NPU, or a custom resource the cluster declares
        resources = ray.cluster_resources()
        slots = int(resources.get(device or "CPU", 0))
        if slots < 1:
            self.close()
            raise ExecutorError(f"the Ray cluster has no {device or 'CPU'} for {platform.name} jobs")
        self.workers = max(1, workers or slots)
        self.threads = self.timing_threads = 1  # each task holds one CPU
        self.timers = max(1, timers or (TIMERS_PER_DEVICE if device else 1))
        self._remote = ray.remote(_on_node)
        self._profile = platform.profile
        self._task = self._remote.options(**task_options(platform.profile))

    def call(self, fn: Callable[[J, int | None], R], job: J) -> R:
        return self._ray.get(self._task.remote(fn, job))

    def map(self, fn: Callable[[J, int | None], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        return self._as_tasks(lambda _: self._task, fn, jobs)

    def _as_tasks(self, task_of: Callable[[J], Any], fn: Callable[[J, int | None], R],
                  jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        pending = {task_of(job).remote(fn, job): job for job in jobs}
        while pending:
            done, _ = self._ray.wait(list(pending), num_returns=1)
            for ref in done:
                yield pending.pop(ref), self._ray.get(ref)

    def time_each(self, fn: Callable[[J, int | None], R], jobs: Iterable[J],
                  slots: Callable[[J], int] | None = None) -> Iterator[tuple[J, R]]:
        """A timing task holds `slots(job)` timers' shares of a GPU (default one: 1/timers; `timers`: a
        whole one), so Ray runs up to `timers` per GPU at a time; on the node their measurements take
        turns (verify/device_gate.py)."""
        def task_of(job: J) -> Any:
            n = min(max(1, slots(job) if slots else 1), self.timers)
            return self._remote.options(**task_options(self._profile, n / self.timers))

        return self._as_tasks(task_of, fn, jobs)

    def close(self) -> None:
        """Shut down the local cluster this executor started, if it started one."""
        if self._started:
            self._ray.shutdown()
            self._started = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
