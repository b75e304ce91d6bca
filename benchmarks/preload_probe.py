"""Which of the fork server's imports load the CUDA driver, and can a worker forked after them still
use the GPU? On the H200 a server that also imported torch._dynamo (1 s per worker on a CPU, 3-6 s
per ATen timing worker there) no longer served, so that preload is for interpreted workers only
(sandbox/forkserver.py). Run on the GPU machine: `python benchmarks/preload_probe.py`.
"""

from __future__ import annotations

import os
import sys
import time


def driver_mapped() -> bool:
    with open("/proc/self/maps") as maps:
        return any("libcuda.so" in line for line in maps)


def main() -> int:
    from kernelgenbench.sandbox.forkserver import PRELOAD, PRELOAD_INTERPRETED

    for name in PRELOAD + PRELOAD_INTERPRETED:
        t0 = time.perf_counter()
        __import__(name)
        import torch

        print(f"{name:50s} {time.perf_counter() - t0:6.2f} s  libcuda mapped: {driver_mapped()!s:5s}  "
              f"torch.cuda initialized: {torch.cuda.is_initialized()}", flush=True)
    pid = os.fork()
    if pid == 0:
        try:
            import torch

            value = torch.ones(4, device="cuda").sum().item()
            print(f"a worker forked after every import computes on the GPU: {value}", flush=True)
            os._exit(0)
        except BaseException as e:  # noqa: BLE001 - the answer is the failure
            print(f"a worker forked after every import cannot use the GPU: {type(e).__name__}: {e}", flush=True)
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


if __name__ == "__main__":
    sys.exit(main())
