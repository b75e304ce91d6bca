"""The protocol every way of producing candidates follows, and the registry of methods by name.

A method produces one candidate per call to `generate`, for one (operator, sample, round); the
campaign decides what to ask for from the method's `Schedule`, stores each candidate with its
request and reply before judging it, and hands the judged history back for the next round.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..platforms import Platform
from ..store import Exchange
from ..suite.spec import Operator
from ..verify.verdict import Verdict


@dataclass(frozen=True)
class Candidate:
    """One candidate source for one operator; `code` is None when the method produced none.

    `missing` says why there is no code, and `missing_status` how that is recorded: a missing file
    is a `compile_error` (the contract was not met), a reply without code is `no_code`.
    """

    op: str
    code: str | None
    origin: str
    sample: int = 0
    round: int = 0
    model: str | None = None
    missing: str | None = None
    missing_status: str = "compile_error"
    exchange: Exchange | None = None


@dataclass(frozen=True)
class Schedule:
    """How many candidates to ask for: `samples` per operator, each refined over up to `rounds`.

    With `early_stop`, an operator's samples are drawn one after another and sampling stops at
    the first pass (pass@k as a budget); without it all samples are drawn (unbiased pass@k).
    A sample's rounds always stop at its first pass. `concurrency` is how many generations may run
    at once unless the campaign says otherwise.
    """

    samples: int = 1
    rounds: int = 1
    early_stop: bool = False
    concurrency: int = 4
    # A method whose operators have different samples (a stored run's, a folder's) names each one's.
    replay: tuple[tuple[str, tuple[int, ...]], ...] | None = None

    def samples_of(self, op: str) -> tuple[int, ...]:
        if self.replay is not None:
            return dict(self.replay).get(op, ())
        return tuple(range(self.samples))


@dataclass(frozen=True)
class Turn:
    """An earlier round of the same sample: what was produced and how it was judged."""

    round: int
    code: str | None
    reply: str | None
    status: str
    reason: str
    verdict: Verdict | None = None


@dataclass(frozen=True)
class Task:
    """What one call to `generate` is asked for; `stop` is set when the campaign is being ended."""

    op: Operator
    platform: Platform
    sample: int = 0
    round: int = 0
    history: tuple[Turn, ...] = ()
    stop: threading.Event = field(default_factory=threading.Event, compare=False)
    sandbox: bool = True  # whether what runs for it (an agent) is confined, as the run's workers are


class Method(Protocol):
    name: str

    def config(self) -> dict[str, Any]:
        """What identifies this method's campaign (stored with the run, part of its default name)."""
        ...

    def schedule(self) -> Schedule: ...

    def check(self) -> None:
        """Fail with MethodError before anything is stored (missing key, unreachable endpoint, ...)."""
        ...

    def generate(self, task: Task) -> Candidate: ...


class MethodError(Exception):
    """The method cannot run as configured (missing folder, unknown method, unreachable endpoint)."""


class Interrupted(Exception):
    """Generation was ended because the campaign is stopping; nothing of it is stored."""


_METHODS: dict[str, Callable[..., Method]] = {}


def register(name: str) -> Callable[[Callable[..., Method]], Callable[..., Method]]:
    def deco(factory: Callable[..., Method]) -> Callable[..., Method]:
        _METHODS[name] = factory
        return factory

    return deco


def create(name: str, **options: Any) -> Method:
    """Build a method; options left as None are not given, an option it does not take is refused."""
    if name not in _METHODS:
        raise MethodError(f"unknown method {name!r}; available: {', '.join(sorted(_METHODS))}")
    factory = _METHODS[name]
    given = {k: v for k, v in options.items() if v is not None}
    accepted = _options(factory)
    for key in given:
        if key not in accepted:
            raise MethodError(f"--{key.replace('_', '-')} does not apply to --method {name}")
    return factory(**given)


def _options(factory: Callable[..., Method]) -> set[str]:
    """Keyword options a factory takes, following `**options` up a class's bases."""
    names: set[str] = set()
    chain = [c.__init__ for c in factory.__mro__ if "__init__" in vars(c)] if isinstance(factory, type) else [factory]
    for fn in chain:
        params = inspect.signature(fn).parameters.values()
        names |= {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"}
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return names


def available() -> list[str]:
    return sorted(_METHODS)
