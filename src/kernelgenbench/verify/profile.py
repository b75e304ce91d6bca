"""L3: where the device time of a call goes, read with the CUDA profiler.

Every device kernel of a candidate's call must be one of its own Triton kernels, or, for an
operator whose work is computing (the rule in `rules.py`), a fill, copy or cast that host code may
launch; a GEMM, reduction or other ATen or vendor kernel means the work was done by a library.
For a data or view operator even a copy or fill kernel is foreign: that movement is its work.
A random operator's seed draw is its generator's kernel (L4 bounds it to a few values).
Where the rule lets host code read values (`item`; a view's start index), the copy of those bytes
to the host is the read itself, and allowed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from .rules import RULES, Action, allows

ALLOWED_LIBRARY_KERNELS = re.compile(
    r"FillFunctor|fill_kernel|zero_|[Mm]emset|[Mm]emcpy|copy_kernel|direct_copy|CopyKernel|"
    r"elementwise_kernel<.*(copy|Copy|fill|Fill)|unrolled_elementwise_kernel<.*(copy|Copy|fill|Fill)"
)
TO_HOST = re.compile(r"[Mm]emcpy DtoH")
# A random operator's seed draw (`torch.randint` on the device), bounded to a seed by L4.
SEED_KERNELS = re.compile(r"distribution_elementwise|random_from_to|randint|philox", re.IGNORECASE)


@dataclass(frozen=True)
class Profile:
    kernels: dict[str, float]  # name -> device time (us)
    foreign: tuple[str, ...]

    def describe(self) -> str:
        total = sum(self.kernels.values()) or 1.0
        share = sum(t for n, t in self.kernels.items() if n in self.foreign) / total
        return (f"device time spent in kernels that are not the candidate's Triton kernels "
                f"({100 * share:.0f}%): {', '.join(self.foreign[:5])} [profile]. To comply: "
                f"{RULES['profile'].comply}")


def profile_call(call: Callable[[], Any], triton_names: set[str], work: str = "compute",
                 size_reads: bool = False) -> Profile:
    """Profile one call and name the kernels that neither the candidate launched nor the rule lets
    host code launch for an operator whose work is `work`."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    kernels: dict[str, float] = {}
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        kernels[event.name] = kernels.get(event.name, 0.0) + event.device_time_total
    foreign = tuple(sorted(
        name for name in kernels
        if not any(name == t or name.startswith(t + "_") or name.startswith(t) for t in triton_names)
        and not (work in ("compute", "random") and ALLOWED_LIBRARY_KERNELS.search(name))
        and not (work == "random" and SEED_KERNELS.search(name))
        and not ((size_reads or allows(work, Action.READ)) and TO_HOST.search(name))
    ))
    return Profile(kernels, foreign)
