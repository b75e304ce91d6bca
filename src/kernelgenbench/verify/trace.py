"""L4: the torch operators the candidate itself calls while it computes.

A TorchDispatchMode is pushed inside the bound candidate (not around the harness's own call), and
operators issued while a Triton launch runs are the launcher's, not the candidate's. Each one is
judged by the host-code rule in `rules.py`, the same table L1 reads, with what only a running call
shows: whether a copy changed dtype or device, and whether a `contiguous()` copied at all.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from torch.utils._python_dispatch import TorchDispatchMode

from .launches import LaunchMonitor, op_name
from .rules import RULES, SIZE_READ_OPS, Judgement, judge_aten


@dataclass
class OpTrace:
    """What one operator's candidate called; `work` ("compute", "data", "view") decides which
    copies, casts and fills are fair."""

    work: str
    monitor: LaunchMonitor
    own: frozenset[str] = frozenset()
    size_reads: int = 0  # scalars a call may read (`Operator.size_reads`)
    forbidden: Counter[tuple[str, str]] = field(default_factory=Counter)  # (rule, "aten::op: what") -> calls

    def mode(self) -> TorchDispatchMode:
        return _Mode(self)

    def first_rule(self) -> str:
        return self.forbidden.most_common(1)[0][0][0]

    def describe(self) -> str:
        ops = ", ".join(f"{what} ({n}x) [{rule}]" for (rule, what), n in self.forbidden.most_common())
        return f"host code called torch operators the rule forbids: {ops}. To comply: " \
               f"{RULES[self.first_rule()].comply}"


class _Mode(TorchDispatchMode):
    """One per call of the candidate, so reads are counted per call."""

    def __init__(self, trace: OpTrace):
        super().__init__()
        self.trace = trace
        self.reads = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001 - torch's protocol
        kwargs = kwargs or {}
        if not self.trace.monitor.inside:
            name = op_name(func)
            qualified = f"aten::{name}.{func._overloadname}" if func._overloadname != "default" else f"aten::{name}"
            if qualified not in self.trace.own:  # another overload of the candidate, routed to its own code
                found = judge_aten(self.trace.work, name, args, kwargs, self.trace.size_reads > 0)
                if found is None and self.trace.size_reads and name in SIZE_READ_OPS:
                    self.reads += 1
                    if self.reads > self.trace.size_reads:
                        found = Judgement("host-read", f"reads more than the {self.trace.size_reads} value(s) "
                                                       "the output sizes need")
                if found is not None:
                    self.trace.forbidden[(found.rule, f"{qualified} {found.what}")] += 1
        return func(*args, **kwargs)
