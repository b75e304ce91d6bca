"""Every operator by id. Specified operators are built on first use, per source.

Views: MS is all 210 operators; MC is the 110 ATen operators, run on every platform. Perturbed
twins (`suite/perturbed`, ids like `aten::silu~beta`) are listed apart and never count in a view.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from .catalog import NAMES
from .spec import SOURCES, TWIN_MARK, Operator

VIEWS: dict[str, tuple[str, ...]] = {"MS": SOURCES, "MC": ("aten",)}


class UnknownOperator(KeyError):
    """An id that is not one of the benchmark's 210 operators."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Entry:
    id: str
    source: str
    name: str
    specified: bool


def all_ids(source: str | None = None) -> tuple[str, ...]:
    sources = (source,) if source else SOURCES
    return tuple(f"{s}::{n}" for s in sources for n in NAMES[s])


@cache
def _factories(source: str) -> dict[str, Callable[[], Operator]]:
    """Name -> record builder; a record is built only when asked for."""
    factories: dict[str, Callable[[], Operator]] = importlib.import_module(f"{__package__}.{source}").OPERATORS
    unknown = set(factories) - set(NAMES[source])
    if unknown:
        raise AssertionError(f"specified but not published operator names: {sorted(unknown)}")
    return factories


@cache
def _build(op_id: str) -> Operator:
    source, name = op_id.split("::", 1)
    op = _factories(source)[name]()
    assert op.id == op_id, f"{name} builds {op.id}"
    return op


@cache
def _twin_factories() -> dict[str, Callable[[], Operator]]:
    """Twin id -> record builder, over every source's twins."""
    factories: dict[str, Callable[[], Operator]] = {}
    for source in SOURCES:
        factories.update(importlib.import_module(f"{__package__}.perturbed.{source}").TWINS)
    return factories


@cache
def _build_twin(op_id: str) -> Operator:
    op = _twin_factories()[op_id]()
    assert op.id == op_id and op.twin_of, f"{op_id} builds {op.id}"
    return op


def twin_ids(source: str | None = None) -> tuple[str, ...]:
    return tuple(i for i in _twin_factories() if source is None or i.startswith(f"{source}::"))


def twins(source: str | None = None) -> list[Operator]:
    """The perturbed twins (of one source), in their modules' order."""
    return [_build_twin(i) for i in twin_ids(source)]


def twins_of(ops: list[Operator]) -> list[Operator]:
    """The twins of the given originals, each once."""
    wanted = {op.id for op in ops}
    return [t for t in twins() if t.twin_of in wanted]


def normalize(op_id: str) -> str:
    """Accept `aten::softmax`, `aten.softmax` or a bare unique name like `softmax`; a twin by its id."""
    op_id = op_id.strip()
    if TWIN_MARK in op_id:
        if op_id not in _twin_factories():
            raise UnknownOperator(f"unknown perturbed twin {op_id!r} (see `kgbench ops --perturbed`)")
        return op_id
    if "::" in op_id:
        candidate = op_id
    elif "." in op_id and op_id.split(".", 1)[0] in SOURCES:
        candidate = op_id.replace(".", "::", 1)
    else:
        matches = [i for i in all_ids() if i.split("::", 1)[1] == op_id]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise UnknownOperator(f"{op_id!r} is ambiguous: {', '.join(matches)}")
        candidate = op_id
    if candidate not in all_ids():
        raise UnknownOperator(f"unknown operator {op_id!r} (see `kgbench ops`)")
    return candidate


def is_specified(op_id: str) -> bool:
    oid = normalize(op_id)
    if TWIN_MARK in oid:
        return True
    source, name = oid.split("::", 1)
    return name in _factories(source)


def get(op_id: str) -> Operator:
    """The operator record; raises UnknownOperator for a name outside the suite or not yet specified."""
    oid = normalize(op_id)
    if TWIN_MARK in oid:
        return _build_twin(oid)
    if not is_specified(oid):
        raise UnknownOperator(f"{oid} is in the suite but not specified yet (see `kgbench ops`)")
    return _build(oid)


def entries(source: str | None = None) -> list[Entry]:
    out = []
    for oid in all_ids(source):
        src, name = oid.split("::", 1)
        out.append(Entry(oid, src, name, name in _factories(src)))
    return out


def specified(source: str | None = None) -> list[Operator]:
    sources = (source,) if source else SOURCES
    return [_build(f"{s}::{name}") for s in sources for name in NAMES[s] if name in _factories(s)]


def select(ops: list[str] | None = None, source: str | None = None) -> list[Operator]:
    """The specified operators named in `ops` (all specified ones when empty), optionally of one source."""
    if ops:
        chosen = [get(o) for o in ops]
        return [op for op in chosen if source is None or op.source == source]
    return specified(source)
