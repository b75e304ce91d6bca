"""A mixed set of five candidates per operator, for the throughput benchmark's second figure.

A model's campaign judges mostly failures, each failing its own way. Per operator, in
DIR/SOURCE/NAME/ (the files method judges a folder as the operator's samples):
  0-reference.py  the shipped solution: passes, then is timed
  1-truncated.py  its first half: a broken file (compile_error)
  2-raises.py     its entry points replaced by ones that raise (runtime_error)
  3-zeroed.py     its outputs zeroed after the call (wrong_result); where every output is reached
                  through a pointer array (cuBLAS's batched routines), which the call cannot zero
                  without the matrices' sizes, the call not made at all
  4-...           a cheat of the corpus (tests/cheats) for the operator, else the solution again
                  (a second honest sample, as pass@k draws)

Usage: python benchmarks/mixed_candidates.py --out DIR [--ops a,b | --source S]
       kgbench run --method files --dir DIR --perf --quick-timing --no-copy-check --name mixed-h200
       python benchmarks/speed.py throughput --run mixed-h200 --tag throughput-mixed-h200 ...
The set is built from the shipped solutions, so it is judged with the copy check off
(`--no-copy-check`): with it, most of its files would be hack_copied without being run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kernelgenbench.methods.files import candidate_path
from kernelgenbench.methods.reference import solutions_dir
from kernelgenbench.suite import registry
from kernelgenbench.suite.spec import Operator, Overload

CHEATS = Path(__file__).resolve().parents[1] / "tests" / "cheats"

RAISES = '''

def _gives_up(*args, **kwargs):
    raise RuntimeError("this candidate gives up (a mixed set's runtime error)")

'''

ZEROED = '''

import torch as _torch


def _zeroed(fn, writes):
    """The call, then every tensor it returns or writes set to zero (`writes`: position and name of
    each written argument)."""

    def call(*args, **kwargs):
        result = fn(*args, **kwargs)
        produced = list(result) if isinstance(result, (tuple, list)) else [result]
        for i, name in writes:
            value = args[i] if i < len(args) else kwargs.get(name)
            produced.extend(value if isinstance(value, (tuple, list)) else [value])
        for t in produced:
            if isinstance(t, _torch.Tensor) and t.numel():
                t.zero_()
        return result

    return call

'''


SKIPPED = '''

def _skipped(*args, **kwargs):
    return None  # nothing computed: the outputs keep what they held

'''


def _cheat_for(op_id: str) -> Path | None:
    from tests.corpus import header  # the corpus's own header reader

    return next((p for p in sorted(CHEATS.glob("*.py")) if header(p).get("op") == op_id), None)


def _written(ov: Overload) -> list[tuple[int, str]]:
    """Each written argument's position as the harness passes it (keyword-only ones: past the end)."""
    positional = [p.name for p in ov.params if not p.kw_only and not p.via]
    return [(positional.index(n) if n in positional else len(ov.params), n) for n in ov.writes]


def _through_pointers(ov: Overload) -> bool:
    """Whether every output is reached only through a pointer array (a pool of matrices)."""
    via = {p.name for p in ov.params if p.via}
    return bool(ov.writes) and set(ov.writes) <= via


def _broken_outputs(ov: Overload) -> str:
    if _through_pointers(ov):
        return f"{ov.func_name} = _skipped\n"
    return f"{ov.func_name} = _zeroed({ov.func_name}, {_written(ov)!r})\n"


def write_set(op: Operator, out: Path) -> list[Path]:
    reference = candidate_path(solutions_dir(), op.id).read_text(encoding="utf-8")
    folder = candidate_path(out, op.id).with_suffix("")
    folder.mkdir(parents=True, exist_ok=True)
    lines = reference.splitlines(keepends=True)
    names = [ov.func_name for ov in op.overloads]
    cheat = _cheat_for(op.id)
    files = {
        "0-reference.py": reference,
        "1-truncated.py": "".join(lines[: len(lines) // 2]),
        "2-raises.py": reference + RAISES + "".join(f"{n} = _gives_up\n" for n in names),
        "3-zeroed.py": reference + ZEROED + SKIPPED + "".join(_broken_outputs(ov) for ov in op.overloads),
        f"4-{cheat.stem if cheat else 'reference-again'}.py": cheat.read_text() if cheat else reference,
    }
    written = []
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--ops", default=None, help="comma-separated operator ids (default: all specified)")
    parser.add_argument("--source", default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.corpus, from a checkout
    ops = registry.select(args.ops.split(",") if args.ops else None, args.source)
    written = sum(len(write_set(op, Path(args.out))) for op in ops)
    print(f"wrote {written} candidates for {len(ops)} operators under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
