"""The platform descriptor every stored run carries: what the results were measured on.

It is stored as the run's `environment` (JSON). Stores written before the descriptor existed hold
fewer keys (`cuda` for the runtime, no `arch` or `triton_backend`): `Descriptor.from_dict` reads
them, leaving unknown what was never recorded.
"""

from __future__ import annotations

import os
import platform as _platform
import subprocess
from dataclasses import asdict, dataclass, fields
from typing import Any

from .profiles import PROFILES
from .runtime import Platform


@dataclass(frozen=True)
class Descriptor:
    platform: str
    device: str | None = None
    arch: str | None = None
    driver: str | None = None
    runtime: str | None = None
    torch: str | None = None
    triton: str | None = None
    triton_backend: str | None = None
    device_count: int = 1
    python: str | None = None
    host: str | None = None
    cpu_count: int | None = None
    # The interpreter computes with numpy, and its Triton 3.6 fails on numpy 2.4 (`probe`).
    numpy: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any], platform: str | None = None) -> Descriptor:
        """A stored descriptor, or an older store's environment dict; `platform` is the run's column,
        used where the dict does not name one."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in d.items() if k in known}
        values["platform"] = values.get("platform") or platform or "unknown"
        if "runtime" not in values and d.get("cuda"):
            values["runtime"] = f"CUDA {d['cuda']}"
        if "triton_backend" not in values and values["platform"] in PROFILES:
            values["triton_backend"] = PROFILES[values["platform"]].triton_backend
        for key in ("device_count", "cpu_count"):
            if values.get(key) is not None:
                values[key] = int(values[key])
        values.setdefault("device_count", 1)
        return cls(**values)

    def summary(self) -> str:
        """One line for a report: device, architecture, driver, runtime, versions."""
        parts = [self.device or self.platform, self.arch, self.driver and f"driver {self.driver}", self.runtime,
                 self.torch and f"torch {self.torch}",
                 self.triton and f"Triton {self.triton} ({self.triton_backend or 'backend unknown'})",
                 self.numpy and self.platform == "interpreter" and f"numpy {self.numpy}"]
        return ", ".join(p for p in parts if p)


def _command(*argv: str) -> str | None:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.strip().splitlines() if out.returncode == 0 else []
    return lines[0].strip() if lines else None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _active_backend() -> str | None:
    """The Triton backend this process would compile for (None when no driver is active)."""
    try:
        from triton.runtime import driver

        return str(driver.active.get_current_target().backend)
    except Exception:  # no usable GPU driver: nothing is active
        return None


def _device_facts(p: Platform) -> dict[str, Any]:
    """Device name, architecture, driver and runtime, read from the device's own torch backend."""
    import torch

    if p.name == "interpreter":
        return {"device": "cpu (Triton interpreter)", "arch": _platform.machine(), "runtime": None,
                "triton_backend": "interpreter"}
    facts: dict[str, Any] = {"triton_backend": _active_backend()}
    if p.name == "cuda":
        major, minor = torch.cuda.get_device_capability(0)
        facts.update(device=torch.cuda.get_device_name(0), arch=f"sm_{major}{minor}",
                     runtime=f"CUDA {torch.version.cuda}",
                     driver=_command("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"))
    elif p.name == "hip":
        props = torch.cuda.get_device_properties(0)
        facts.update(device=props.name, arch=props.gcnArchName.split(":")[0], runtime=f"HIP {torch.version.hip}",
                     driver=_read("/sys/module/amdgpu/version"))
    else:
        backend = getattr(torch, p.torch_device)
        props = backend.get_device_properties(0)
        facts.update(device=getattr(props, "name", None) or backend.get_device_name(0),
                     arch=getattr(props, "architecture", None) or getattr(props, "arch", None),
                     driver=getattr(props, "driver_version", None),
                     runtime=f"{p.module or p.torch_device} {getattr(torch.version, p.torch_device, '')}".strip())
    return facts


def describe(p: Platform) -> Descriptor:
    """Where results are being measured, read now from this machine."""
    import numpy
    import torch
    import triton

    facts = _device_facts(p)
    return Descriptor(platform=p.name, torch=torch.__version__, triton=triton.__version__, numpy=numpy.__version__,
                      device_count=p.device_count, python=_platform.python_version(), host=_platform.machine(),
                      cpu_count=os.cpu_count(), **facts)


def environment(p: Platform) -> dict[str, Any]:
    """What a recorded result must say about where it was measured (the descriptor, as stored)."""
    return describe(p).to_dict()
