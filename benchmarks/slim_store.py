"""A copy of a store with only the named runs, small enough to carry to the device.

A device call carries at most 64 MiB, and the H200 store outgrew that (59 MiB after session L's
runs, verdict details about 16 KiB each). Keep the full store at home (say runs/h200-archive.db),
carry a slim copy with the runs a call resumes or compares against, and find each call's whole
store again under the runs/out-* folder `take_results.sh` unpacks it into.

Usage: python benchmarks/slim_store.py SRC DEST --runs NAME[,NAME...]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
from pathlib import Path

PER_ATTEMPT = ("verdicts", "timings", "costs", "exchanges")


def slim(src: Path, dest: Path, keep: list[str]) -> dict[str, int]:
    """Copy `src` to `dest` with every run not in `keep` removed; what is left, counted per table."""
    with sqlite3.connect(src) as db:
        found = {name for (name,) in db.execute("SELECT name FROM runs")}
    missing = sorted(set(keep) - found)
    if missing:
        raise SystemExit(f"error: no run {', '.join(missing)} in {src}")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.copyfile(src, tmp)
    db = sqlite3.connect(tmp)
    try:
        marks = ",".join("?" * len(keep))
        gone = f"SELECT a.id FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.name NOT IN ({marks})"
        for table in PER_ATTEMPT:
            db.execute(f"DELETE FROM {table} WHERE attempt_id IN ({gone})", keep)
        db.execute(f"DELETE FROM attempts WHERE run_id IN (SELECT id FROM runs WHERE name NOT IN ({marks}))", keep)
        db.execute(f"DELETE FROM runs WHERE name NOT IN ({marks})", keep)
        db.commit()
        db.execute("VACUUM")
        left = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "attempts", *PER_ATTEMPT)}
    finally:
        db.close()
    tmp.replace(dest)
    return left


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("dest", type=Path)
    parser.add_argument("--runs", required=True, help="comma-separated run names to keep")
    args = parser.parse_args()
    if not args.src.is_file():
        print(f"error: no store at {args.src}", file=sys.stderr)
        return 2
    if args.src.resolve() == args.dest.resolve():
        print("error: DEST must differ from SRC (the full store stays as it is)", file=sys.stderr)
        return 2
    left = slim(args.src, args.dest, [r for r in args.runs.split(",") if r])
    size = args.dest.stat().st_size / 2**20
    print(f"{args.dest}: {size:.1f} MiB; " + ", ".join(f"{n} {t}" for t, n in left.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
