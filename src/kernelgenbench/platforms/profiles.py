"""What each platform is: how it is found, what it runs, and what a model must be told about it.

A profile is declarative data. Only `cuda` (on an H200) and `interpreter` have been run for real by
this project (`proven`); the other profiles state their vendors' documented limits, and they are
tested through recorded results, never against the hardware.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..suite.spec import Size

Clock = Literal["events", "host"]


class PlatformError(Exception):
    """The requested platform is unknown or not available on this machine."""


@dataclass(frozen=True)
class Profile:
    """One platform. `unsupported_dtypes` are torch dtype names (`float64`) whose cases the chip cannot
    run: they are recorded as unsupported, not failed. `limits` are Triton features it lacks, as a
    model should hear them. `module` is the torch extension that brings the device (`torch_npu`)."""

    name: str
    label: str
    torch_device: str
    triton_backend: str
    dispatch_key: str
    sizes: tuple[Size, ...]
    clock: Clock
    baseline: str
    hint: str
    profiler: str | None = None
    module: str | None = None
    unsupported_dtypes: frozenset[str] = frozenset()
    limits: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    proven: bool = False
    # The variable that pins a worker to one device (its index), and the Ray resource a job asks
    # for one device with (a custom resource the cluster declares where Ray has none built in).
    visible_devices: str | None = None
    ray_resource: str | None = None
    # The device files (glob patterns) a confined worker needs to reach the device: nothing else of /dev
    device_nodes: tuple[str, ...] = ()

    def supports(self, dtype: str) -> bool:
        return dtype not in self.unsupported_dtypes

    @property
    def accelerated(self) -> bool:
        """Runs on a device of its own (not the host CPU): pinned per worker, never memory-capped."""
        return self.visible_devices is not None

    @property
    def timeable(self) -> bool:
        """The harness's event clock (`verify.clock.CudaClock`, torch.cuda events, a flushed L2) runs
        here: CUDA and ROCm, whose PyTorch exposes the device as `cuda`."""
        return self.torch_device == "cuda"


NO_FP64 = frozenset({"float64", "complex128"})

PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("cuda", "CUDA GPU (NVIDIA)", "cuda", "cuda", "CUDA", ("small", "large"), "events",
            "cuBLAS, cuDNN and ATen's CUDA kernels",
            "Kernels run on the CUDA device the tensors are on. fp32 `tl.dot` uses TF32 unless given "
            "`input_precision=\"ieee\"`, which fails float32 tolerances.",
            profiler="torch.profiler (CUPTI)", proven=True, visible_devices="CUDA_VISIBLE_DEVICES",
            ray_resource="GPU", device_nodes=("/dev/nvidia*", "/dev/nvidia-caps")),
    Profile("hip", "ROCm GPU (AMD, HIP)", "cuda", "hip", "CUDA", ("small", "large"), "events",
            "rocBLAS, hipBLASLt, MIOpen and ATen's HIP kernels",
            "Tensors are `cuda` tensors (ROCm's PyTorch); a wavefront is 64 threads, so `num_warps` counts "
            "64-lane warps; fp32 `tl.dot` needs `input_precision=\"ieee\"` for float32 tolerances.",
            profiler="torch.profiler (roctracer)", limits=("no bf16 atomics on gfx90a",),
            visible_devices="HIP_VISIBLE_DEVICES", ray_resource="GPU", device_nodes=("/dev/kfd", "/dev/dri")),
    Profile("xpu", "Intel XPU", "xpu", "xpu", "XPU", ("small", "large"), "events",
            "oneDNN, oneMKL and ATen's SYCL kernels",
            "Tensors are `xpu` tensors; Triton's Intel backend compiles to SPIR-V; keep `num_warps` a power "
            "of two up to 32.",
            profiler="torch.profiler (Kineto XPU)", limits=("no fp64 on Arc client GPUs (emulated)",),
            visible_devices="ZE_AFFINITY_MASK", ray_resource="GPU", device_nodes=("/dev/dri",)),
    Profile("npu", "Ascend NPU (Huawei, torch_npu)", "npu", "npu", "PrivateUse1", ("small", "large"), "host",
            "CANN aclnn operators (torch_npu)",
            "Tensors are `npu` tensors; Triton-Ascend maps a program to an AI core: use few large programs "
            "(a grid of at most the core count) and loop inside the kernel; float64 is not supported.",
            profiler="torch_npu.profiler", module="torch_npu", unsupported_dtypes=NO_FP64,
            limits=("no fp64", "no fp32 `tl.dot` with input_precision=\"ieee\""),
            visible_devices="ASCEND_RT_VISIBLE_DEVICES", ray_resource="NPU"),
    Profile("musa", "Moore Threads MUSA GPU", "musa", "musa", "PrivateUse1", ("small", "large"), "events",
            "muDNN and muBLAS (torch_musa)",
            "Tensors are `musa` tensors; float64 is not supported; bfloat16 atomics are not available.",
            module="torch_musa", unsupported_dtypes=NO_FP64, limits=("no fp64", "no bf16 atomics"),
            visible_devices="MUSA_VISIBLE_DEVICES", ray_resource="MUSA"),
    Profile("mlu", "Cambricon MLU", "mlu", "mlu", "PrivateUse1", ("small", "large"), "host",
            "CNNL operators (torch_mlu)",
            "Tensors are `mlu` tensors; float64 is not supported; bfloat16 atomics are not available.",
            module="torch_mlu", unsupported_dtypes=NO_FP64, limits=("no fp64", "no bf16 atomics"),
            visible_devices="MLU_VISIBLE_DEVICES", ray_resource="MLU"),
    Profile("interpreter", "CPU (Triton interpreter)", "cpu", "interpreter", "CPU", ("small",), "host",
            "ATen's CPU kernels",
            "Kernels run in Triton's CPU interpreter (TRITON_INTERPRET=1): tensors live on the CPU and "
            "each program instance runs serially, so keep grids small. GPU-only features are not "
            "available: no `tl.inline_asm_elementwise`, no libdevice extern calls, no "
            "hardware-specific intrinsics, and `@triton.autotune` may list one config only (the "
            "interpreter has no benchmarker). In the interpreter (Triton 3.6) arithmetic on bfloat16 "
            "values (even negation) and casts to bfloat16 from anything but float32 give wrong values, "
            "float32 to bfloat16 truncates, and `tl.full(..., tl.bfloat16)` fails: compute in float32 "
            "and cast at the store.",
            env={"TRITON_INTERPRET": "1"}, limits=("no `tl.inline_asm_elementwise`", "no libdevice calls"),
            proven=True),
)}

ACCELERATORS: tuple[str, ...] = tuple(n for n, p in PROFILES.items() if p.accelerated)
ALIASES = {"cpu": "interpreter", "rocm": "hip"}


def names() -> str:
    """The platform names a user may give, for error messages."""
    return ", ".join(["cpu", *PROFILES])


def profile(name: str) -> Profile:
    """The profile called `name` (or `cpu`, `rocm`); unknown names are a user error."""
    found = PROFILES.get(ALIASES.get(name, name))
    if found is None:
        raise PlatformError(f"unknown platform {name!r}: use {names()}")
    return found


def dispatch_key_for(device: str) -> str:
    """The `torch.library` dispatch key of a torch device (`cuda:0`, `xpu`, `cpu`)."""
    kind = device.split(":", 1)[0]
    return next((p.dispatch_key for p in PROFILES.values() if p.torch_device == kind), "CPU")
