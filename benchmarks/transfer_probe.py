"""How long a float64 truth's device-to-host copy takes: pageable in one call, through the page-locked
staging buffer timing copies it with (`transfer.copy_across`), and into one pinned tensor; one process
and four at once (four timers). On the H200 the float64 cases' device-held truth time (25 s for
cublasZgemvBatched) far exceeded their compute."""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import torch

from kernelgenbench.suite.transfer import PIECE_BYTES, copy_across


def _one(gib: float, rounds: int, out: mp.Queue[str]) -> None:
    n = int(gib * 2**30 // 8)
    x = torch.randn(n, dtype=torch.float64, device="cuda")
    torch.cuda.synchronize()
    lines = []
    for r in range(rounds):
        t = time.perf_counter()
        _ = x.to("cpu", copy=True)
        pageable = time.perf_counter() - t
        t = time.perf_counter()
        _ = copy_across(x, torch.float64, torch.device("cpu"))
        pieces = time.perf_counter() - t
        t = time.perf_counter()
        pinned = torch.empty(n, dtype=torch.float64, pin_memory=True)
        alloc = time.perf_counter() - t
        t = time.perf_counter()
        pinned.copy_(x)
        torch.cuda.synchronize()
        copy = time.perf_counter() - t
        lines.append(f"{gib:g} GiB round {r}: pageable {pageable:.3f} s ({gib / pageable:.1f} GiB/s), in "
                     f"{PIECE_BYTES >> 20} MiB staged pieces {pieces:.3f} s; pinned alloc "
                     f"{alloc:.3f} s, copy {copy:.3f} s ({gib / copy:.1f} GiB/s)")
    out.put("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gib", type=float, nargs="+", default=[1.0, 4.0])
    ap.add_argument("--procs", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    ctx = mp.get_context("spawn")
    for procs in args.procs:
        for gib in args.gib:
            q = ctx.Queue()
            ps = [ctx.Process(target=_one, args=(gib, args.rounds, q)) for _ in range(procs)]
            for p in ps:
                p.start()
            got = [q.get() for _ in ps]
            for p in ps:
                p.join()
            print(f"== {procs} process(es) at once")
            print("\n".join(got), flush=True)


if __name__ == "__main__":
    main()
