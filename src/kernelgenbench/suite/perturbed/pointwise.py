"""References for elementwise twins: one function of the inputs, every overload form served.

ATen computes half and bfloat16 elementwise math in float32 (its opmath type) and rounds once;
the twin's native result does the same, so its tolerance is as tight as the original's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..spec import Overload


def _wide(v: Any) -> Any:
    if isinstance(v, torch.Tensor) and v.dtype in (torch.float16, torch.bfloat16):
        return v.float()
    return v


def elementwise(f: Callable[..., torch.Tensor]) -> Callable[[Overload], Callable[..., Any]]:
    """A twin reference from `f(**inputs)`: the functional form returns it in the first tensor
    input's dtype, `out=` writes it into `out`, the in-place form into `self`."""

    def build(ov: Overload) -> Callable[..., Any]:
        positional = [p.name for p in ov.params if not p.kw_only]

        def reference(*args: Any, **kwargs: Any) -> Any:
            values = {**dict(zip(positional, args)), **kwargs}
            out = values.pop("out", None)
            first = next(v for v in values.values() if isinstance(v, torch.Tensor))
            result = f(**{k: _wide(v) for k, v in values.items()})
            if out is not None:
                return out.copy_(result)
            if ov.returns_alias == "self":
                return values["self"].copy_(result)
            return result.to(first.dtype)

        return reference

    return build


def floating(case: Any) -> bool:
    """Whether a case's tensors are all floating (the twin of an op that also takes integers)."""
    return all(d.startswith(("float", "bfloat")) for d in case.dtypes)
