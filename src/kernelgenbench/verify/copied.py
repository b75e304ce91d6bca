"""The answer key is checked: a candidate that copies a shipped solution is `hack_copied`.

solutions/ ships a known-good file for every operator (INTEGRITY.md #20). An agent that reads it,
or a model that recites it, has not written a kernel, however the copy was disguised. Each
candidate of every method but `reference` is compared, before it is judged, with every shipped
solution (all operators and twins, not only its own: the cos solution pasted and adapted into sin
has used the answer key as much as a copy of sin's).

The comparison is on normalised tokens, so layout and naming cannot hide a copy: comments,
docstrings (any statement that is only a string), blank lines, whitespace and trailing commas
are dropped; every name that is not a keyword or an attribute name becomes one placeholder (`$`),
so renaming variables, parameters and kernels changes nothing (builtins too: a parameter called
`input` renamed would otherwise show); keywords, operators, literals and attribute names
(`tl.load`, `.stride`) stay. A solution's fingerprint is the set of
its 12-token shingles; the similarity is the share of them that the candidate also contains.
Shingles are local, so reordering functions, inserting statements or changing a few constants
costs only the shingles that touch the edit, and extra code around a copy costs nothing.

`benchmarks/results/copied-threshold.md` measures the threshold (`benchmarks/copied_threshold.py`).
Honest code reaches 0.51 at most (the 94 files of tests/genuine against every solution; 295 op
files of FlagGems and Liger-Kernel: 0.34); copies of all 234 checked solutions under one light edit
(renamed, reordered, comments gone, BLOCK constants changed, a no-op line in every function) score
0.79 at least, under all five at once 0.65; twins against their originals 0.88. Solutions shorter
than `MIN_TOKENS` normalised tokens (metadata ops such as `item` or `t`) are not checked: there is
one way to write them, and honest code meets them (an honest `item` shares half its shingles).

The solutions' fingerprints are computed once per process and folder (0.65 s for the 234 checked
files on a 2-core host), then checking a candidate against all of them takes about 12 ms. The
module reads files, so it runs in the parent process, never in the sandboxed worker.
"""

from __future__ import annotations

import keyword
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from ..suite.solutions import solutions_dir
from .verdict import Status, Verdict

THRESHOLD = 0.60  # share of a solution's shingles found in a candidate that makes it a copy
SHINGLE = 12  # tokens per shingle
MIN_TOKENS = 150  # shorter solutions are not checked
LAYER = "copied"

_KEPT = frozenset(keyword.kwlist)  # names that stay themselves: True, None, if, def...
_QUOTED = (r"'''(?:\\.|[^\\])*?'''", r'"""(?:\\.|[^\\])*?"""',  # triple-quoted
           r"'(?:\\.|[^\\'\n])*'", r'"(?:\\.|[^\\"\n])*"')  # on one line
_STRING = r"[rRbBuUfF]{0,2}(?:" + "|".join(_QUOTED) + ")"
_TOKEN = re.compile(rf"""
  (?P<skip>[ \t\f\r]+|\\\r?\n|\#[^\n]*)
| (?P<nl>\n)
| (?P<str>{_STRING})
| (?P<name>[^\W\d]\w*)
| (?P<num>(?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?)[jJ]?)
| (?P<op>\*\*=|//=|>>=|<<=|\.\.\.|->|:=|[-+*/%&|^@=!<>]=|\*\*|//|<<|>>|[-+*/%&|^~@=<>.,:;()\[\]{{}}])
| (?P<other>.)
""", re.VERBOSE | re.DOTALL)


def tokens(source: str) -> list[str]:
    """The normalised tokens of `source` (see the module's docstring). A small lexer, not the
    `tokenize` module: it never raises (a candidate need not be valid Python to be compared), and it
    is 4x faster; on 802 files (solutions/, tests/, FlagGems' and Liger-Kernel's ops) it gives the
    same tokens as one built on `tokenize`."""
    out: list[str] = []
    line: list[tuple[str, str]] = []  # the logical line so far: (kind, token)
    depth = 0
    after_dot = False

    def end_line() -> None:
        if any(kind != "str" for kind, _ in line):  # a line of strings only is a docstring
            out.extend(text for _, text in line)
        line.clear()

    for m in _TOKEN.finditer(source):
        kind = m.lastgroup
        if kind == "skip":
            continue
        if kind == "nl":
            if depth == 0:
                end_line()
            continue
        text = m.group()
        if kind == "op" and text in "([{":
            depth += 1
        elif kind == "op" and text in ")]}":
            depth = max(0, depth - 1)
            if line and line[-1][1] == ",":
                line.pop()
        if kind == "name" and not after_dot and text not in _KEPT:
            line.append((kind, "$"))
        else:
            line.append((kind or "other", text))
        after_dot = text == "."
    end_line()
    return out


def shingles(toks: list[str]) -> frozenset[int]:
    return frozenset(hash(tuple(toks[i:i + SHINGLE])) for i in range(len(toks) - SHINGLE + 1))


def similarity(candidate: str, solution: str) -> float:
    """The share of `solution`'s shingles that `candidate` contains (1.0: all of them)."""
    theirs = shingles(tokens(solution))
    return len(shingles(tokens(candidate)) & theirs) / len(theirs) if theirs else 0.0


@dataclass(frozen=True)
class Match:
    """The shipped solution a candidate is closest to, with its similarity and the threshold."""

    solution: str  # its path from the solutions folder's parent: solutions/aten/silu.py
    similarity: float
    threshold: float = THRESHOLD

    @property
    def copied(self) -> bool:
        return self.similarity >= self.threshold

    def describe(self) -> str:
        return (f"the code is a copy of the shipped solution {self.solution} "
                f"(similarity {self.similarity:.2f}, threshold {self.threshold:.2f}). To comply: write the "
                "kernel yourself; the shipped solutions are the benchmark's answer key")


_index: dict[Path, tuple[tuple[tuple[str, int, int], ...], list[tuple[str, frozenset[int]]]]] = {}
_index_lock = threading.Lock()


def _fingerprints(root: Path) -> list[tuple[str, frozenset[int]]]:
    """(path shown, shingles) of every checked solution under `root`; computed again only when a
    file there is added, removed or changed."""
    files = sorted(root.glob("*/*.py"))
    stamp = tuple((str(p), (s := p.stat()).st_mtime_ns, s.st_size) for p in files)
    with _index_lock:
        known = _index.get(root)
        if known is None or known[0] != stamp:
            found = []
            for p in files:
                toks = tokens(p.read_text(encoding="utf-8", errors="replace"))
                if len(toks) >= MIN_TOKENS:
                    found.append((f"{root.name}/{p.parent.name}/{p.name}", shingles(toks)))
            known = _index[root] = (stamp, found)
        return known[1]


def closest(source: str, root: Path | None = None, op: str | None = None) -> Match | None:
    """The checked solution under `root` (default: the shipped ones) whose shingles `source`
    contains the largest share of; on a tie, `op`'s own. None where there is none to compare with
    (no folder: a sandbox that cannot see it)."""
    root = (root or solutions_dir()).resolve()
    if not root.is_dir():
        return None
    theirs = _fingerprints(root)
    if not theirs:
        return None
    ours = shingles(tokens(source))
    own = "/{}/{}.py".format(*op.split("::", 1)) if op and "::" in op else None

    def score(item: tuple[str, frozenset[int]]) -> tuple[float, bool]:
        path, prints = item
        return len(ours & prints) / len(prints), own is not None and path.endswith(own)

    path, prints = max(theirs, key=score)
    return Match(path, round(score((path, prints))[0], 4))


def check(op: str, source: str, root: Path | None = None, *, seed: int | None = None,
          platform: str = "") -> Verdict | None:
    """The `hack_copied` verdict of a candidate for `op` that copies a shipped solution, else None.
    The campaign (every method but `reference`) and `kgbench verify` (unless the file is a
    shipped solution itself) both call this before anything is sent to a worker."""
    match = closest(source, root, op)
    if match is None or not match.copied:
        return None
    return Verdict(op=op, status=Status.HACK_COPIED, reason=match.describe(), layer=LAYER, seed=seed,
                   platform=platform, extra={"copied": {"solution": match.solution, "similarity": match.similarity,
                                                        "threshold": match.threshold}})
