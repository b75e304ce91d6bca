"""Where candidates run: the runtime `Platform` record, and finding it on this machine.

The interpreter platform is how every machine without an accelerator (CI included) runs Triton:
on the CPU, with `TRITON_INTERPRET=1`, on the small size tier only.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from ..suite.spec import Size
from .profiles import ACCELERATORS, PROFILES, PlatformError, Profile, names, profile


@dataclass(frozen=True)
class Platform:
    name: str
    device: str
    dispatch_key: str
    sizes: tuple[Size, ...]
    env: dict[str, str] = field(default_factory=dict)
    device_count: int = 1

    @property
    def profile(self) -> Profile:
        return PROFILES[self.name]


def platform_of(p: Profile, device_count: int = 1) -> Platform:
    return Platform(p.name, p.torch_device, p.dispatch_key, p.sizes, dict(p.env), device_count)


INTERPRETER = platform_of(PROFILES["interpreter"])


def device_count(p: Profile) -> int:
    """How many of `p`'s devices this machine has: 0 when its torch extension or device is missing,
    and for `cuda`/`hip` when torch is built for the other one (ROCm's torch also says `cuda`)."""
    if not p.accelerated:
        return 1
    import torch

    if p.module is not None:
        try:
            importlib.import_module(p.module)
        except ImportError:
            return 0
    if p.torch_device == "cuda":
        if not torch.cuda.is_available() or (torch.version.hip is not None) != (p.name == "hip"):
            return 0
        return torch.cuda.device_count()
    backend = getattr(torch, p.torch_device, None)
    if backend is None or not backend.is_available():
        return 0
    return int(backend.device_count())


def device_memory(p: Platform) -> int | None:
    """Bytes of memory of the platform's smallest device (None on the interpreter, or when the
    backend does not say)."""
    if not p.profile.accelerated:
        return None
    import torch

    try:
        backend = getattr(torch, p.device)
        sizes = [getattr(backend.get_device_properties(i), "total_memory", None) for i in range(p.device_count)]
    except (AttributeError, AssertionError, RuntimeError):  # no such backend or device on this machine
        return None
    return min(sizes) if sizes and None not in sizes else None


def _usable_interpreter() -> Platform:
    from .probe import interpreter_problem

    problem = interpreter_problem()
    if problem:
        raise PlatformError(problem)
    return INTERPRETER


def detect(requested: str | None = None) -> Platform:
    """The platform asked for (`cpu` is the interpreter) when this machine has it; without a request,
    the first accelerator found, else the interpreter."""
    if requested in (None, "auto"):
        for name in ACCELERATORS:
            count = device_count(PROFILES[name])
            if count:
                return platform_of(PROFILES[name], count)
        return _usable_interpreter()
    try:
        chosen = profile(requested)
    except PlatformError:
        raise PlatformError(f"unknown device {requested!r}: use {names()}") from None
    count = device_count(chosen)
    if count == 0:
        article = "an" if chosen.label[0] in "AEIOU" else "a"
        raise PlatformError(f"platform {requested} needs {article} {chosen.label}, "
                            "and none is visible on this machine")
    return _usable_interpreter() if chosen.name == "interpreter" else platform_of(chosen, count)
