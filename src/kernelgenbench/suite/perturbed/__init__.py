"""Perturbed twins: contamination probes built from the suite's own operators.

The suite's operators are famous and their reference code is public, so a model may have
memorised them. A twin keeps its original's difficulty (the same grids, layouts and dtypes, the
same kind of work) and changes the contract in a way no public code implements: another constant,
a fused epilogue, swapped argument roles, another reduction convention. A model that solves the
original but answers its twin with the original's code has recited, not derived; the report's
gap (`report/gap.py`) measures how often that happens.

A twin is an `Operator` whose id is its original's plus `~tag` (`vllm::rms_norm~eps_out`) and
whose `twin_of` names the original: it is judged by the same layers, its candidate keeps the
original's function names and signatures, and it never counts among the 210 operators (the
registry lists twins apart). Each twin is built declaratively from its original's record by
`twin` (below), never copied; its native baseline is its own reference in the working dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..spec import TWIN_MARK, Case, Operator, Overload, Tolerance

# Given the original's overload, the twin's reference (float64 ground truth, and the native
# result when called on the working dtype).
Reference = Callable[[Overload], Callable[..., Any]]


@dataclass(frozen=True)
class Perturbation:
    """What a twin changes. `what` is one line for listings and reports, `doc` the twin's whole
    contract (it replaces the original's). `overloads` keeps only those (default: all), `keep`
    keeps only the original's cases it accepts, `cases` draws new ones instead (from the kept
    overloads), `ov_doc` replaces each overload's doc."""

    tag: str
    what: str
    doc: str
    reference: Reference
    overloads: tuple[str, ...] = ()
    keep: Callable[[Case], bool] | None = None
    cases: Callable[[tuple[Overload, ...]], tuple[Case, ...]] | None = None
    ov_doc: str = ""
    notes: str = ""
    tolerance: Tolerance | None = None


def twin(original: Operator, p: Perturbation) -> Operator:
    """The twin of `original` under `p`: a new record, derived from the original's."""
    if not p.tag.isidentifier():
        raise ValueError(f"twin tag {p.tag!r} must be an identifier")
    unknown = set(p.overloads) - {ov.name for ov in original.overloads}
    if unknown:
        raise ValueError(f"{original.id} has no overloads {sorted(unknown)}")
    overloads = tuple(
        replace(ov, reference=p.reference(ov), scale=None, doc=p.ov_doc or ov.doc)
        for ov in original.overloads if not p.overloads or ov.name in p.overloads
    )
    names = {ov.name for ov in overloads}
    if p.cases is not None:
        cases = p.cases(overloads)
    else:
        cases = tuple(c for c in original.cases if c.overload in names and (p.keep is None or p.keep(c)))
    return replace(
        original,
        id=f"{original.id}{TWIN_MARK}{p.tag}",
        doc=p.doc,
        overloads=overloads,
        cases=cases,
        tolerance=p.tolerance or original.tolerance,
        baseline=None,
        notes=p.notes,
        twin_of=original.id,
        perturbation=p.what,
    )


def original_of(op_id: str) -> str:
    """The id of the operator a twin's id perturbs (an original's id is its own)."""
    return op_id.split(TWIN_MARK, 1)[0]


def is_twin(op_id: str) -> bool:
    return TWIN_MARK in op_id
