"""Which of the fork server's imports load the CUDA driver, and can a worker forked after them still
use the GPU? On the H200 a server that also imported torch._dynamo, and refused to serve once the
CUDA driver library was mapped, did not serve (every worker then started from scratch, one after
another); which of the two made it refuse is not known. So that preload is for interpreted workers
only (sandbox/forkserver.py), while an ATen timing worker there spends a median 5.3 s importing it
(benchmarks/results/README.md, session H). Run on the GPU machine: `python benchmarks/preload_probe.py`;
it tries the imports as the server makes them, then with PYTORCH_NVML_BASED_CUDA_CHECK=1 (torch asks
NVML, not the CUDA driver, whether a GPU is there).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time


def driver_mapped() -> bool:
    with open("/proc/self/maps") as maps:
        return any("libcuda.so" in line for line in maps)


def probe() -> int:
    from kernelgenbench.sandbox.forkserver import PRELOAD, PRELOAD_LAZY

    for name in PRELOAD + PRELOAD_LAZY:
        t0 = time.perf_counter()
        __import__(name)
        import torch

        print(f"  {name:50s} {time.perf_counter() - t0:6.2f} s  libcuda mapped: {driver_mapped()!s:5s}  "
              f"torch.cuda initialized: {torch.cuda.is_initialized()}", flush=True)
    pid = os.fork()
    if pid == 0:
        try:
            import torch

            value = torch.ones(4, device="cuda").sum().item()
            print(f"  a worker forked after every import computes on the GPU: {value}", flush=True)
            os._exit(0)
        except BaseException as e:  # noqa: BLE001 - the answer is the failure
            print(f"  a worker forked after every import cannot use the GPU: {type(e).__name__}: {e}", flush=True)
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def main() -> int:
    if "--one" in sys.argv:
        return probe()
    worst = 0
    for extra in ({}, {"PYTORCH_NVML_BASED_CUDA_CHECK": "1"}):
        print(f"environment: {extra or 'as the server has it'}", flush=True)
        done = subprocess.run([sys.executable, __file__, "--one"], env=os.environ | extra, timeout=300)
        worst = max(worst, done.returncode)
    return worst


if __name__ == "__main__":
    sys.exit(main())
