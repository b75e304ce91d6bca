"""The worker process: judges one candidate and reports on a private pipe.

Events go to the file descriptor the parent passed, not stdout, so nothing a candidate prints can
be mistaken for a verdict. Usage: python -m kernelgenbench.sandbox.worker REQUEST.json FD
"""

from __future__ import annotations

import json
import resource
import sys
import traceback
from pathlib import Path


def _limit_memory(limit: int | None) -> None:
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text())
    channel = open(int(argv[1]), "w", buffering=1)  # noqa: SIM115 - lives as long as the process

    def emit(event: str, data: dict) -> None:
        channel.write(json.dumps({"event": event, **data}) + "\n")

    _limit_memory(request.get("memory_limit_bytes"))
    try:
        import torch

        from ..suite import registry
        from ..verify.pipeline import Plan, verify

        if request["device"].startswith("cuda"):
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        op = registry.get(request["op"])
        plan = Plan(tuple(request["sizes"]), request["public_only"], request["fail_fast"], tuple(request["checks"]))
        v = verify(op, Path(request["candidate"]), request["device"], int(request["seed"]), plan,
                   request["platform"], emit)
        emit("verdict", v.to_dict())
    except BaseException as e:  # noqa: BLE001 - report the harness's own failure as such
        emit("infra_error", {"reason": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()})
        return 1
    finally:
        channel.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
