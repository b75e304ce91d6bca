"""L4: the torch operators the candidate itself calls while it computes.

A TorchDispatchMode is pushed inside the bound candidate (not around the harness's own call), and
operators issued while a Triton launch runs are the launcher's, not the candidate's. Allowed:
allocation, views and metadata, plus layout copies, which are never allowed to an operator that
is itself a copy or a fill.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .launches import LaunchMonitor, op_name

ALLOCATION = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
              "new_zeros", "zero_", "lift_fresh", "lift_fresh_copy", "scalar_tensor"}
VIEWS = {"view", "_unsafe_view", "_reshape_alias", "as_strided", "expand", "permute", "transpose", "t",
         "unsqueeze", "squeeze", "select", "slice", "narrow", "alias", "detach", "split", "split_with_sizes",
         "unbind", "chunk", "unfold", "view_as", "movedim", "resolve_conj", "resolve_neg", "unflatten",
         "flatten", "expand_as", "reshape"}
METADATA = {"sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "is_contiguous", "is_same_size", "result_type",
            "stride", "size", "numel", "dim"}
LAYOUT = {"clone", "contiguous", "copy_", "_to_copy"}

COPY_OPS = {"clone", "contiguous", "copy_", "_to_copy", "to", "_copy_from", "copy"}
FILL_OPS = {"zeros", "zeros_like", "zero_", "fill_", "full", "full_like", "ones", "ones_like", "new_ones",
            "new_zeros", "new_full", "scalar_tensor"}


def _same_dtype_copy(name: str, args: tuple, kwargs: dict) -> bool:
    if name == "copy_":
        dst, src = args[0], args[1]
        return isinstance(src, torch.Tensor) and dst.dtype == src.dtype and dst.device == src.device
    if name == "_to_copy":
        src = args[0]
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        return (dtype is None or dtype == src.dtype) and (device is None or torch.device(device) == src.device)
    return True


@dataclass
class OpTrace:
    """What one operator's candidate called; `op_name` decides which layout and fill ops are fair."""

    op_name: str
    monitor: LaunchMonitor
    own: frozenset[str] = frozenset()
    forbidden: Counter[str] = field(default_factory=Counter)

    def allowed(self, name: str, qualified: str, args: tuple, kwargs: dict) -> bool:
        if qualified in self.own:
            return True  # another overload of the candidate itself, routed back to its own code
        if name in VIEWS or name in METADATA:
            return True
        if name in ALLOCATION:
            return self.op_name not in FILL_OPS
        if name in LAYOUT:
            return self.op_name not in COPY_OPS and _same_dtype_copy(name, args, kwargs)
        return False

    def mode(self) -> TorchDispatchMode:
        return _Mode(self)

    def describe(self) -> str:
        ops = ", ".join(f"{name} ({n}x)" for name, n in self.forbidden.most_common())
        return f"called torch operators that compute: {ops}"


class _Mode(TorchDispatchMode):
    def __init__(self, trace: OpTrace):
        super().__init__()
        self.trace = trace

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001 - torch's protocol
        kwargs = kwargs or {}
        if not self.trace.monitor.inside:
            name = op_name(func)
            qualified = f"aten::{name}.{func._overloadname}" if func._overloadname != "default" else f"aten::{name}"
            if not self.trace.allowed(name, qualified, args, kwargs):
                self.trace.forbidden[qualified] += 1
        return func(*args, **kwargs)
