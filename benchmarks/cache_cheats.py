"""The answer caches of the cheat corpus (tests/cheats/cache_*.py) on a GPU: each judged in full, then
timed, and its own no-cache twin (the same file with `CACHE = False`) timed beside it. Goal (issue 35):
every cache is `hack_timing`, or its speed-up is within 10% of its twin's, never bought by memory.

`--before`: each cheat timed alone (no verification, no twin), to run with an older checkout's package
(PYTHONPATH=that/src) and show what the cheats were counted before.

Usage: python benchmarks/cache_cheats.py --out DIR [--tag cache-cheats-h200] [--only STEM,...] [--before | --no-verify]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from kernelgenbench import api
from kernelgenbench.verify.timing import TimingConfig, operator_speedup

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.speed import write  # noqa: E402 - the benchmarks' own record format
from tests.corpus import header  # noqa: E402 - the corpus's own header reader, from the checkout

CHEATS = sorted((ROOT / "tests" / "cheats").glob("cache_*.py"))
SWITCH = "CACHE = True"
WITHIN = 0.10  # a cache that is not flagged may be at most this much faster than its twin


def judged(path: Path, op: str, cache: str, verify: bool) -> tuple[str, str, float | None]:
    """Its verification's status (or "skipped"), its timing's status and reason, and its speed-up."""
    if verify:
        v = api.verify_file(path, op, device="cuda", seed=11, copy_check=False, triton_cache=cache)
        if not v.passed:
            return v.status.value, "", None
    t = api.time_file(path, op, device="cuda", seed=11, config=TimingConfig.quick(), triton_cache=cache)
    return "pass" if verify else "skipped", f"{t.status.value}: {t.reason}"[:300], operator_speedup(t)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--tag", default="cache-cheats-h200")
    ap.add_argument("--only", default="", help="file stems, comma-separated")
    ap.add_argument("--before", action="store_true", help="time each cheat alone: no verification, no twin")
    ap.add_argument("--no-verify", action="store_true", help="time each cheat and its twin, unverified (where a "
                                                              "call has no time to verify them on the GPU again)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    only = {s for s in args.only.split(",") if s}
    rows, data, ok = [], [], True
    with tempfile.TemporaryDirectory() as tmp:
        for path in CHEATS:
            if only and path.stem not in only:
                continue
            op = header(path)["op"]
            text = path.read_text()
            assert SWITCH in text, f"{path.name} has no `{SWITCH}` switch"
            twin = Path(tmp) / f"{path.stem}_twin.py"
            twin.write_text(text.replace(SWITCH, "CACHE = False"))
            verify = not (args.before or args.no_verify)
            verified, timed, speedup = judged(path, op, str(Path(tmp) / path.stem), verify=verify)
            _, twin_timed, twin_speedup = ("", "", None) if args.before else \
                judged(twin, op, str(Path(tmp) / twin.stem), verify=False)
            caught = timed.startswith("hack_timing")
            gain = speedup / twin_speedup if speedup and twin_speedup else None
            held = caught or (gain is not None and gain <= 1 + WITHIN)
            ok &= held and verified == ("pass" if verify else "skipped")
            rows.append([f"`{path.name}`", f"`{op}`", verified, timed.split(":")[0],
                         "" if speedup is None else f"{speedup:.3f}",
                         "" if twin_speedup is None else f"{twin_speedup:.3f}",
                         "" if gain is None else f"{gain:.2f}", "yes" if held else "NO"])
            data.append({"cheat": path.name, "op": op, "verify": verified, "timing": timed, "speedup": speedup,
                         "twin_timing": twin_timed, "twin_speedup": twin_speedup})
            print(" | ".join(str(c) for c in rows[-1]), flush=True)
    held = f"hack_timing or within {WITHIN:.0%} of its own no-cache twin"
    goal = "timed alone, by the package on PYTHONPATH" if args.before else \
        f"timed unverified beside its twin, then {held}" if args.no_verify else \
        f"each passes every layer before timing, and is then {held}"
    write(args.out, args.tag, "Answer caches against the timing layer", None if args.before else ok,
          f"{len(rows)} caches: {goal}", ["cheat", "operator", "verification", "timing",
          "speed-up (x)", "twin's speed-up (x)", "cheat / twin", "held"], rows, {"cheats": data})
    return 0 if ok or args.before else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
