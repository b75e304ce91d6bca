"""Watching Triton launches from inside the worker: counted, named, and skippable on demand.

The op trace ignores torch operators issued while a launch is in progress (the interpreter
copies tensors to and from the host), and the ghost replay turns every launch into a no-op.
Both hook the one entry every launch goes through: `run` of a jit or interpreted function (and the
autotuner's benchmarking, whose buffers are Triton's own).
During the ghost replay, memory the candidate allocates uninitialised is poisoned as well.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

UNINITIALISED = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted"}
POISON_BYTE = 0x7F  # float32/bfloat16 3.4e38, float16 NaN, int32 2.1e9: never a plausible answer
SECOND_POISON_BYTE = 0xA5  # for a second replay: one byte of poison can be a one-byte answer (int8 127)


@dataclass
class LaunchMonitor:
    count: int = 0
    names: set[str] = field(default_factory=set)
    ghost: bool = False
    depth: int = 0
    poison_byte: int = POISON_BYTE

    @property
    def inside(self) -> bool:
        return self.depth > 0

    def poison_fresh_memory(self) -> AbstractContextManager[Any]:
        """Entered inside the candidate: while ghosting, its uninitialised allocations hold the
        poison. A freed block may hold anything, and on the CPU the allocator's own bookkeeping
        overwrites a small block's first bytes, so with the kernels skipped a 0-d output could
        read as right by chance."""
        return _PoisonFresh(self.poison_byte) if self.ghost else nullcontext()

    @contextmanager
    def ghosting(self, poison_byte: int = POISON_BYTE) -> Iterator[None]:
        self.ghost, self.poison_byte = True, poison_byte
        try:
            yield
        finally:
            self.ghost, self.poison_byte = False, POISON_BYTE

    def _wrap(self, original: Any) -> Any:
        monitor = self

        def run(fn_self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
            if warmup:
                return original(fn_self, *args, grid=grid, warmup=warmup, **kwargs)
            monitor.count += 1
            monitor.names.add(getattr(fn_self, "__name__", None) or fn_self.fn.__name__)
            if monitor.ghost:
                return None
            monitor.depth += 1
            try:
                return original(fn_self, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                monitor.depth -= 1

        run.__wrapped__ = original  # type: ignore[attr-defined]
        return run

    def _wrap_internal(self, original: Any) -> Any:
        """Triton's own work around launches (the autotuner's benchmarking allocates and zeroes an
        L2-flush buffer): the launcher's, not the candidate's, like the launches themselves."""
        monitor = self

        def internal(*args: Any, **kwargs: Any) -> Any:
            monitor.depth += 1
            try:
                return original(*args, **kwargs)
            finally:
                monitor.depth -= 1

        internal.__wrapped__ = original  # type: ignore[attr-defined]
        return internal


def op_name(func: Any) -> str:
    """`empty` for aten::empty.memory_format: what a dispatch mode sees, without namespace and overload."""
    return func._schema.name.split("::", 1)[-1]


class _PoisonFresh(TorchDispatchMode):
    def __init__(self, byte: int) -> None:
        super().__init__()
        self.byte = byte

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001 - torch's protocol
        out = func(*args, **(kwargs or {}))
        if op_name(func) in UNINITIALISED and isinstance(out, torch.Tensor):
            poison(out, self.byte)
        return out


def poison(t: torch.Tensor, byte: int = POISON_BYTE) -> None:
    """Overwrite a tensor's whole storage byte by byte without the dispatcher (where the candidate
    of a fill or copy operator may be registered)."""
    storage = t.untyped_storage()
    if not storage.nbytes():
        return
    if t.device.type == "cpu":
        ctypes.memset(storage.data_ptr(), byte, storage.nbytes())
        return
    from .clock import cuda_runtime

    lib = cuda_runtime()
    if lib is None:
        raise RuntimeError("no CUDA runtime to poison device memory with")
    stream = torch.cuda.current_stream(t.device).cuda_stream
    if lib.cudaMemsetAsync(storage.data_ptr(), byte, storage.nbytes(), stream) != 0:
        raise RuntimeError("cudaMemsetAsync failed")


_MONITOR: LaunchMonitor | None = None


def install() -> LaunchMonitor:
    """Hook every kernel class's launch entry, once per process, before the candidate is imported."""
    global _MONITOR
    if _MONITOR is None:
        from triton.runtime.autotuner import Autotuner
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction

        _MONITOR = LaunchMonitor()
        for cls in (JITFunction, InterpretedFunction):
            cls.run = _MONITOR._wrap(cls.run)
        Autotuner._bench = _MONITOR._wrap_internal(Autotuner._bench)
    return _MONITOR
