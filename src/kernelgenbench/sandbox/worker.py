"""The worker process: judges one candidate and reports on a private pipe.

Events go to the file descriptor the parent passed, not stdout, so nothing a candidate prints can
be mistaken for a verdict. Usage: python -m kernelgenbench.sandbox.worker REQUEST.json FD
"""

from __future__ import annotations

import json
import resource
import sys
import time
import traceback
from pathlib import Path


def _limit_memory(limit: int | None) -> None:
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class CompileClock:
    """Seconds the Triton compiler spent on cache misses, read through its compilation listener."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.kernels = 0

    def __call__(self, *, src, metadata, metadata_group, times, cache_hit) -> None:  # noqa: ANN001
        if not cache_hit:
            self.seconds += times.total * 1e-6
            self.kernels += 1


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text())
    channel = open(int(argv[1]), "w", buffering=1)  # noqa: SIM115 - lives as long as the process

    def emit(event: str, data: dict) -> None:
        channel.write(json.dumps({"event": event, **data}) + "\n")

    _limit_memory(request.get("memory_limit_bytes"))
    if request.get("confinement") is not None:
        from . import confine, linux

        try:
            confine.enter(confine.Confinement.from_dict(request["confinement"]))
        except linux.SandboxError as e:  # nothing of the candidate has run: the harness's own failure
            emit("infra_error", {"reason": f"the sandbox could not be set up: {e}",
                                 "traceback": traceback.format_exc()})
            channel.flush()
            return 1
    try:
        import torch
        import triton

        from ..suite import registry
        from ..verify.pipeline import Plan, time_candidate, verify
        from ..verify.timing import TimingConfig
        from .forkserver import BOOT_S

        compiled = CompileClock()
        triton.knobs.compilation.listener = compiled
        ready = time.time()

        if request["device"].startswith("cuda"):
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        op = registry.get(request["op"])
        candidate, device, seed = Path(request["candidate"]), request["device"], int(request["seed"])
        if request.get("timing") is not None:
            config = TimingConfig(**{**request["timing"], "tiers": tuple(request["timing"]["tiers"])})
            v = time_candidate(op, candidate, device, seed, config, request["platform"], emit)
        else:
            plan = Plan(tuple(request["sizes"]), request["public_only"], request["fail_fast"], tuple(request["checks"]),
                        tuple(request.get("unsupported_dtypes", ())))
            v = verify(op, candidate, device, seed, plan, request["platform"], emit)
        phases = {"startup_s": ready - request.get("spawned_at", ready), "compile_s": compiled.seconds,
                  "kernels_compiled": compiled.kernels, "work_s": time.time() - ready}
        if BOOT_S:  # forked from the fork server: what its start cost, which the first workers waited for
            phases["server_boot_s"] = BOOT_S
        emit("verdict", v.to_dict() | {"extra": v.extra | {"phases": phases}})
    except BaseException as e:  # noqa: BLE001 - report the harness's own failure as such
        emit("infra_error", {"reason": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()})
        return 1
    finally:
        channel.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
