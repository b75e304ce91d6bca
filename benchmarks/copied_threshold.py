"""The copy check's threshold (verify/copied.py), measured: how similar honest code and disguised
copies are to the shipped solutions, and what the check costs.

  (a) honest: each file of tests/genuine against its operator's solution and against every checked
      solution; with --external DIR, every .py file of DIR (other projects' Triton ops) too;
  (b) each perturbed twin's solution against its original's;
  (c) every checked solution under light edits: identifiers renamed (all the file binds but the
      entry points), top-level definitions reordered, comments and docstrings removed, power-of-two
      constants of 16 or more halved (doubled below 64), a no-op statement at the top of every
      function, and all five at once;
  --alternatives: the same (a) and (c) for the designs not chosen (identifiers numbered by first
      appearance, Python's `tokenize`, difflib's SequenceMatcher), on a sample of solutions.

Usage: python benchmarks/copied_threshold.py [--external DIR] [--alternatives] [--shingle K] [--out FILE.md]
CPU only; about a minute (several with --alternatives).
"""

from __future__ import annotations

import argparse
import ast
import builtins
import difflib
import io
import platform
import random
import statistics
import sys
import time
import tokenize
from collections.abc import Callable
from pathlib import Path

from kernelgenbench.suite import registry
from kernelgenbench.suite.solutions import solutions_dir
from kernelgenbench.verify import copied

ROOT = Path(__file__).resolve().parents[1]
GENUINE = ROOT / "tests" / "genuine"


def header_op(path: Path) -> str | None:
    for line in path.read_text().splitlines():
        if not line.startswith("# "):
            break
        if line.startswith("# op:"):
            return line.split(":", 1)[1].strip()
    return None


# The light edits ---------------------------------------------------------------------------------

def _bound(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def renamed(source: str, keep: set[str]) -> str:
    """Every name the file binds renamed, except the entry points the contract names."""
    mapping = {b: f"v{i}_{b[::-1].strip('_')}" for i, b in enumerate(sorted(_bound(source) - keep))}
    out, prev = [], None
    for t in tokenize.generate_tokens(io.StringIO(source).readline):
        text = t.string
        if t.type == tokenize.NAME and text in mapping and not (prev is not None and prev.string == "."):
            text = mapping[text]
        out.append((t.type, text))
        if t.type not in (tokenize.NL, tokenize.COMMENT):
            prev = t
    return tokenize.untokenize(out)


def uncommented(source: str) -> str:
    """Comments, docstrings and blank lines removed."""
    code = tokenize.untokenize([(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
                                if t.type != tokenize.COMMENT])
    drop = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and len(node.body) > 1:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                drop.update(range(first.lineno - 1, first.end_lineno))
    return "".join(line for i, line in enumerate(code.splitlines(keepends=True)) if i not in drop and line.strip())


def reordered(source: str) -> str:
    """The top-level functions and classes (with their decorators) shuffled; the rest in place."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        spans.append((start, node.end_lineno, isinstance(node, (ast.FunctionDef, ast.ClassDef))))
    defs = [s for s in spans if s[2]]
    order = defs[:]
    random.Random(0).shuffle(order)
    if len(order) > 1 and order == defs:
        order = defs[::-1]
    chosen = iter(order)
    pieces, end = [], 0
    for s in spans:
        pieces.append("".join(lines[end:s[0]]))
        picked = next(chosen) if s[2] else s
        pieces.append("".join(lines[picked[0]:picked[1]]) + "\n")
        end = s[1]
    return "".join(pieces + lines[end:])


def constants_changed(source: str) -> str:
    """Power-of-two integer literals of 16 or more halved (doubled below 64): BLOCK sizes, tiles."""
    out = []
    for t in tokenize.generate_tokens(io.StringIO(source).readline):
        text = t.string
        if t.type == tokenize.NUMBER and text.isdigit():
            v = int(text)
            if v >= 16 and v & (v - 1) == 0:
                text = str(v // 2 if v >= 64 else v * 2)
        out.append((t.type, text))
    return tokenize.untokenize(out)


def no_op_added(source: str) -> str:
    """`_unused = 0` at the top of every function body."""
    at = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef):
            at[node.body[0].lineno - 1] = " " * node.body[0].col_offset + "_unused = 0\n"
    out = []
    for i, line in enumerate(source.splitlines(keepends=True)):
        if i in at:
            out.append(at[i])
        out.append(line)
    return "".join(out)


def edits(source: str, keep: set[str]) -> dict[str, str]:
    return {"renamed": renamed(source, keep), "reordered": reordered(source), "no comments": uncommented(source),
            "constants changed": constants_changed(source), "no-op line": no_op_added(source),
            "all five": no_op_added(constants_changed(uncommented(reordered(renamed(source, keep)))))}


# Measures ----------------------------------------------------------------------------------------

Measure = Callable[[str, str], float]  # (candidate, solution) -> similarity


def chosen(candidate: str, solution: str) -> float:
    return copied.similarity(candidate, solution)


def _numbered(source: str) -> list[str]:
    """The chosen tokens, but each identifier numbered in order of first appearance in the file."""
    placeheld, after_dot = [], False
    for m in copied._TOKEN.finditer(source):  # the names `tokens` turns into the placeholder, in order
        if m.lastgroup in ("skip", "nl"):
            continue
        if m.lastgroup == "name" and not after_dot and m.group() not in copied._KEPT:
            placeheld.append(m.group())
        after_dot = m.group() == "."
    names: dict[str, str] = {}
    ids = iter(placeheld)
    return [names.setdefault(next(ids), f"${len(names)}") if tok == "$" else tok for tok in copied.tokens(source)]


def first_appearance(candidate: str, solution: str) -> float:
    theirs = copied.shingles(_numbered(solution))
    return len(copied.shingles(_numbered(candidate)) & theirs) / len(theirs) if theirs else 0.0


def builtins_kept(candidate: str, solution: str) -> float:
    """The chosen measure, but builtin names (`range`, `input`, `min`) kept as themselves."""
    kept = copied._KEPT
    copied._KEPT = kept | frozenset(dir(builtins))
    try:
        return chosen(candidate, solution)
    finally:
        copied._KEPT = kept


def sequence_matcher(candidate: str, solution: str) -> float:
    return difflib.SequenceMatcher(None, copied.tokens(candidate), copied.tokens(solution), autojunk=False).ratio()


# Report ------------------------------------------------------------------------------------------

def spread(values: list[float]) -> str:
    v = sorted(values)
    n = len(v)
    return (f"{n} | {v[0]:.3f} | {statistics.median(v):.3f} | {v[int(0.9 * (n - 1))]:.3f} | "
            f"{v[int(0.99 * (n - 1))]:.3f} | {v[-1]:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--external", help="a folder of other projects' Triton op files (honest code)")
    parser.add_argument("--alternatives", action="store_true", help="also measure the designs not chosen")
    parser.add_argument("--shingle", type=int, help=f"tokens per shingle (default: the check's, {copied.SHINGLE})")
    parser.add_argument("--out", help="write the markdown here (default: stdout)")
    args = parser.parse_args()
    if args.shingle:  # a study of the design only: the check itself keeps its own
        copied.SHINGLE = args.shingle

    root = solutions_dir()
    copied._index.clear()
    t0 = time.perf_counter()
    prints = dict(copied._fingerprints(root))
    index_s = time.perf_counter() - t0
    checked = sorted(prints)
    sources = {p: (root.parent / p).read_text() for p in checked}

    def op_of(path: str) -> str:
        _, source, name = path[:-3].split("/")
        return f"{source}::{name}"

    def best(code: str) -> tuple[float, str]:
        ours = copied.shingles(copied.tokens(code))
        return max((len(ours & s) / len(s), p) for p, s in prints.items())

    lines = ["# The copy check's threshold (`verify/copied.py`)", "",
             f"Made by `python benchmarks/copied_threshold.py{' --external DIR' if args.external else ''}"
             f"{' --alternatives' if args.alternatives else ''}{f' --shingle {args.shingle}' if args.shingle else ''}"
             f"` on {time.strftime('%Y-%m-%d')}, "
             f"Python {platform.python_version()}, {platform.machine()}. Similarity: the share of a solution's "
             f"{copied.SHINGLE}-token shingles that the candidate contains (normalised tokens: no comments, "
             "docstrings or layout; every name but keywords and attribute names one placeholder; literals "
             f"and attribute names kept). {len(checked)} solutions of {len(list(root.glob('*/*.py')))} are "
             f"checked (at least {copied.MIN_TOKENS} tokens). Threshold: **{copied.THRESHOLD:.2f}**.", ""]

    # (a) honest
    genuine_own, genuine_any, top = [], [], []
    for path in sorted(GENUINE.rglob("*.py")):
        code, op = path.read_text(), header_op(path)
        source, name = op.split("::", 1)
        own = f"{root.name}/{source}/{name}.py"
        if own in prints:
            genuine_own.append(copied.similarity(code, sources[own]))
        score, where = best(code)
        genuine_any.append(score)
        top.append((score, str(path.relative_to(ROOT)), where))
    external_any, external_top = [], []
    if args.external:
        for path in sorted(Path(args.external).glob("*.py")):
            score, where = best(path.read_text())
            external_any.append(score)
            external_top.append((score, path.name, where))
    # (b) twins
    twin_scores = []
    for p in checked:
        if "~" in p and (orig := p.split("~")[0] + ".py") in prints:
            twin_scores.append((copied.similarity(sources[p], sources[orig]), p))
    # (c) copies
    kinds: dict[str, list[tuple[float, str]]] = {}
    for p in checked:
        op = op_of(p)
        keep = {ov.func_name for ov in registry.get(op).overloads}
        for kind, code in edits(sources[p], keep).items():
            ours = copied.shingles(copied.tokens(code))
            kinds.setdefault(kind, []).append((len(ours & prints[p]) / len(prints[p]), p))
    # cost
    candidates = [p.read_text() for p in sorted(GENUINE.rglob("*.py"))]
    t0 = time.perf_counter()
    for code in candidates:
        copied.closest(code)
    per_candidate_ms = (time.perf_counter() - t0) / len(candidates) * 1e3

    honest_max = max(genuine_any + external_any)
    copy_min = min(s for values in kinds.values() for s, _ in values)
    lines += ["## Separation", "",
              "| set | n | min | median | p90 | p99 | max |", "|---|---|---|---|---|---|---|",
              f"| (a) genuine file vs its operator's solution | {spread(genuine_own)} |",
              f"| (a) genuine file vs every checked solution (the check's figure) | {spread(genuine_any)} |"]
    if external_any:
        lines.append(f"| (a) external Triton op file vs every checked solution | {spread(external_any)} |")
    lines.append(f"| (b) twin's solution vs its original's | {spread([s for s, _ in twin_scores])} |")
    for kind, values in kinds.items():
        lines.append(f"| (c) copy, {kind} | {spread([s for s, _ in values])} |")
    lines += ["", f"Highest honest similarity **{honest_max:.3f}**; lowest copy **{copy_min:.3f}**; threshold "
              f"{copied.THRESHOLD:.2f}: margin {copied.THRESHOLD - honest_max:.3f} above the honest, "
              f"{copy_min - copied.THRESHOLD:.3f} below the lowest copy.", "",
              "Highest honest files:", ""]
    for score, path, where in sorted(top + external_top, reverse=True)[:6]:
        lines.append(f"- {score:.3f} `{path}` against `{where}`")
    lines += ["", "Lowest copies:", ""]
    for kind, values in kinds.items():
        score, p = min(values)
        lines.append(f"- {kind}: {score:.3f} (`{p}`, {len(prints[p]) + copied.SHINGLE - 1} tokens)")
    lines += ["", "By solution size (tokens): the highest honest score and the lowest copy (all five edits)", "",
              "| size | solutions | honest max | copy min (all five) |", "|---|---|---|---|"]
    honest_codes = [p.read_text() for p in sorted(GENUINE.rglob("*.py"))]
    if args.external:
        honest_codes += [p.read_text() for p in sorted(Path(args.external).glob("*.py"))]
    honest_prints = [copied.shingles(copied.tokens(c)) for c in honest_codes]
    five = dict((p, s) for s, p in kinds["all five"])
    for lo, hi in ((copied.MIN_TOKENS, 250), (250, 400), (400, 800), (800, 10**9)):
        band = [p for p in checked if lo <= len(prints[p]) + copied.SHINGLE - 1 < hi]
        if band:
            hm = max(len(h & prints[p]) / len(prints[p]) for h in honest_prints for p in band)
            lines.append(f"| {lo}-{'' if hi == 10**9 else hi} | {len(band)} | {hm:.3f} | "
                         f"{min(five[p] for p in band):.3f} |")
    lines += ["", "## Cost", "",
              f"Fingerprints of all {len(checked)} checked solutions, once per process: {index_s:.2f} s. "
              f"Checking one candidate against all of them: {per_candidate_ms:.1f} ms (mean over the "
              f"{len(candidates)} genuine files).", ""]

    if args.alternatives:
        sample = sorted(random.Random(0).sample([p for p in checked if "~" not in p], 60))
        lines += ["## Designs not chosen", "",
                  f"On {len(sample)} solutions drawn at random (seed 0); (a) is each genuine file against "
                  "its own operator's solution.", "",
                  "| measure | (a) max | (c) min, renamed | (c) min, reordered | (c) min, no-op line | "
                  "(c) min, all five | seconds |", "|---|---|---|---|---|---|---|"]
        for name, measure in (("chosen: one placeholder, shingle containment", chosen),
                              ("builtin names kept", builtins_kept),
                              ("identifiers numbered by first appearance", first_appearance),
                              ("SequenceMatcher ratio (autojunk off)", sequence_matcher)):
            t0 = time.perf_counter()
            a = [measure(path.read_text(), sources[own])
                 for path in sorted(GENUINE.rglob("*.py"))
                 if (own := "{}/{}/{}.py".format(root.name, *header_op(path).split("::", 1))) in prints]
            worst = {}
            for p in sample:
                keep = {ov.func_name for ov in registry.get(op_of(p)).overloads}
                e = edits(sources[p], keep)
                for kind in ("renamed", "reordered", "no-op line", "all five"):
                    worst[kind] = min(worst.get(kind, 1.0), measure(e[kind], sources[p]))
            lines.append(f"| {name} | {max(a):.3f} | {worst['renamed']:.3f} | {worst['reordered']:.3f} | "
                         f"{worst['no-op line']:.3f} | "
                         f"{worst['all five']:.3f} | {time.perf_counter() - t0:.1f} |")
        lines.append("")

    text = "\n".join(lines)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
