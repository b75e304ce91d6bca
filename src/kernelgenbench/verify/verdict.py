"""Verdict records: what was decided, on which case, with which error figures, and why."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    PASS = "pass"
    COMPILE_ERROR = "compile_error"
    RUNTIME_ERROR = "runtime_error"
    WRONG_RESULT = "wrong_result"
    TIMEOUT = "timeout"
    CRASH = "crash"
    HACK_STATIC = "hack_static"
    HACK_GHOST = "hack_ghost"
    HACK_TRACE = "hack_trace"
    HACK_PROFILE = "hack_profile"
    HACK_TIMING = "hack_timing"
    HACK_COPIED = "hack_copied"  # a copy of a shipped solution (verify/copied.py), found before judging
    HACK_SANDBOX = "hack_sandbox"  # went past what its sandbox allows (sandbox/confine.py), stopped from outside
    INFRA_ERROR = "infra_error"
    UNSUPPORTED = "unsupported"  # the platform cannot run any of the operator's cases (fp64 on a chip without it)

    @property
    def counts_against_model(self) -> bool:
        return self not in (Status.INFRA_ERROR, Status.UNSUPPORTED)


@dataclass(frozen=True)
class ErrorFigures:
    """Candidate error against the float64 reference, next to what the tolerance allowed."""

    max_err: float
    rms_err: float
    max_tol: float
    rms_tol: float
    native_max_err: float
    native_rms_err: float

    @property
    def ratio(self) -> float:
        """Worst error over tolerance across both norms: above 1 fails."""

        def r(err: float, tol: float) -> float:
            if tol > 0:
                return err / tol
            return 0.0 if err == 0 else float("inf")

        return max(r(self.max_err, self.max_tol), r(self.rms_err, self.rms_tol))

    def describe(self) -> str:
        return (f"max err {self.max_err:.3g} (allowed {self.max_tol:.3g}), "
                f"rms err {self.rms_err:.3g} (allowed {self.rms_tol:.3g}), ratio {self.ratio:.3g}")


@dataclass(frozen=True)
class CaseResult:
    case: str
    overload: str
    visibility: str
    status: Status
    reason: str = ""
    figures: ErrorFigures | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["status"] = self.status.value
        if self.figures is not None:
            d["figures"]["ratio"] = self.figures.ratio
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CaseResult:
        fig = d.get("figures")
        if fig is not None:
            fig = ErrorFigures(**{k: v for k, v in fig.items() if k != "ratio"})
        return cls(case=d["case"], overload=d["overload"], visibility=d["visibility"],
                   status=Status(d["status"]), reason=d.get("reason", ""), figures=fig,
                   seconds=d.get("seconds", 0.0))


@dataclass(frozen=True)
class Verdict:
    op: str
    status: Status
    reason: str
    failing_case: str | None = None
    layer: str = "correctness"
    cases: tuple[CaseResult, ...] = ()
    seed: int | None = None
    platform: str = ""
    seconds: float = 0.0
    traceback: str | None = None
    log_tail: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    @property
    def worst_ratio(self) -> float | None:
        ratios = [c.figures.ratio for c in self.cases if c.figures is not None]
        return max(ratios) if ratios else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "status": self.status.value,
            "reason": self.reason,
            "failing_case": self.failing_case,
            "layer": self.layer,
            "seed": self.seed,
            "platform": self.platform,
            "seconds": self.seconds,
            "worst_error_ratio": self.worst_ratio,
            "cases": [c.to_dict() for c in self.cases],
            "traceback": self.traceback,
            "log_tail": self.log_tail,
            "extra": self.extra,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        return cls(op=d["op"], status=Status(d["status"]), reason=d["reason"],
                   failing_case=d.get("failing_case"), layer=d.get("layer", "correctness"),
                   cases=tuple(CaseResult.from_dict(c) for c in d.get("cases", ())),
                   seed=d.get("seed"), platform=d.get("platform", ""), seconds=d.get("seconds", 0.0),
                   traceback=d.get("traceback"), log_tail=d.get("log_tail"), extra=d.get("extra") or {})
