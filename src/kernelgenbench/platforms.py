"""Where candidates run: detection and the per-platform profile.

The interpreter platform is how every machine without a GPU (CI included) runs Triton: on the
CPU, with `TRITON_INTERPRET=1`, on the small size tier only.
"""

from __future__ import annotations

import os
import platform as _platform
import subprocess
from dataclasses import dataclass, field

from .suite.spec import Size


class PlatformError(Exception):
    """The requested platform is not available on this machine."""


@dataclass(frozen=True)
class Platform:
    name: str
    device: str
    dispatch_key: str
    sizes: tuple[Size, ...]
    env: dict[str, str] = field(default_factory=dict)
    device_count: int = 1


INTERPRETER = Platform("interpreter", "cpu", "CPU", ("small",), {"TRITON_INTERPRET": "1"})


def _cuda_count() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def detect(requested: str | None = None) -> Platform:
    """`cuda` or `cpu` when asked; otherwise the GPU when there is one, else the interpreter."""
    if requested not in (None, "auto", "cpu", "cuda", "interpreter"):
        raise PlatformError(f"unknown device {requested!r}: use cpu or cuda")
    if requested in ("cpu", "interpreter"):
        return INTERPRETER
    count = _cuda_count()
    if count == 0:
        if requested == "cuda":
            raise PlatformError("--device cuda needs a CUDA GPU, and none is visible on this machine")
        return INTERPRETER
    return Platform("cuda", "cuda", "CUDA", ("small", "large"), {}, device_count=count)


def _driver() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


def environment(p: Platform) -> dict[str, str | None]:
    """What a recorded result must say about where it was measured."""
    import torch
    import triton

    env: dict[str, str | None] = {
        "platform": p.name,
        "python": _platform.python_version(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "host": _platform.machine(),
        "cpu_count": str(os.cpu_count()),
    }
    if p.name == "cuda":
        env.update(device=torch.cuda.get_device_name(0), cuda=torch.version.cuda, driver=_driver(),
                   device_count=str(p.device_count))
    else:
        env.update(device="cpu (Triton interpreter)")
    return env
