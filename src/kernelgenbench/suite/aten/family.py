"""The shared builder of ATen operator records.

A family module describes only the semantic arguments of each overload (`self`, `dim`, ...);
this builder reads the overloads from the live registry and sizes every `out=` buffer by running
the native overload on meta tensors, so no out-shape rule is written twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import torch

from ..build import Sampler, build_cases, sample
from ..spec import (
    Compare,
    DeviceArg,
    GeneratorArg,
    Joint,
    Operator,
    OutputSpec,
    Overload,
    Sample,
    TensorSpec,
    Tolerance,
    Work,
)
from .schema import overloads


def blank(v: Any, device: str) -> Any:
    """A shape-only stand-in for a sample value (TensorSpecs, output specs, the device argument)."""
    if isinstance(v, TensorSpec):
        if v.dist in ("index", "unique"):
            return torch.zeros(v.shape, dtype=v.dtype, device=device)
        if v.dist == "mask":  # as many True values as the draw will have: they decide the shape
            return (torch.arange(math.prod(v.shape), device=device) < int(v.high)).reshape(v.shape)
        return torch.empty(v.shape, dtype=v.dtype, device=device)
    if isinstance(v, OutputSpec):
        return torch.empty(v.shape, dtype=v.dtype, device=device)
    if isinstance(v, Joint):  # index-like (drawn from index tensors): zeros are in range
        return torch.zeros(v.shape, dtype=v.dtype, device=device)
    if isinstance(v, DeviceArg):
        return torch.device(device)
    if isinstance(v, GeneratorArg):
        return None  # shapes do not depend on the draws
    if isinstance(v, (list, tuple)) and v and all(x is None or isinstance(x, (TensorSpec, OutputSpec)) for x in v):
        return type(v)(blank(x, device) for x in v)
    return v


def _is_list(ov: Overload, name: str) -> bool:
    return ov.param(name).type.startswith("List[")


def functional(ov: Overload) -> Overload | None:
    """The overload an `out=` form writes the results of (the same arguments of the same types, no
    outputs), or None where there is none (`arange.out` has no dtype argument, `arange` has)."""
    wanted = {p.name: p.type for p in ov.params if not p.writes}
    op = ov.name.partition(".")[0]
    for other in overloads(op):
        if not other.writes and {p.name: p.type for p in other.params} == wanted:
            return other
    return None


def _run_shape_only(ov: Overload, values: dict[str, Any]) -> Any:
    """Call the native overload on shape-only tensors: meta first, the CPU where a meta kernel is broken."""
    for device in ("meta", "cpu"):
        try:
            args, kwargs = ov.split({k: blank(v, device) for k, v in values.items()})
            return ov.reference(*args, **kwargs)
        except (TypeError, RuntimeError, NotImplementedError):
            if device == "cpu":
                raise
    raise AssertionError("unreachable")


def _sized_outputs(ov: Overload, values: dict[str, Any], outs: list[str],
                   dtype: torch.dtype | tuple[torch.dtype, ...]) -> dict[str, Any]:
    """Run the native overload on shape-only tensors; an output list (`Tensor(a!)[] out`) is sized
    by the functional overload's results."""
    given = {k: v for k, v in values.items() if k not in outs}
    if any(_is_list(ov, name) for name in outs):
        base = functional(ov)
        if base is None:
            raise KeyError(f"{ov.name}: no functional overload to size its output list by")
        results = _run_shape_only(base, given)
        return {name: list(results) for name in outs}
    for device in ("meta", "cpu"):
        blanks = {k: blank(v, device) for k, v in given.items()}
        dtypes = dtype if isinstance(dtype, tuple) else (dtype,) * len(outs)
        buffers = {name: torch.empty(0, dtype=dt, device=device) for name, dt in zip(outs, dtypes)}
        args, kwargs = ov.split({**blanks, **buffers})
        try:
            ov.reference(*args, **kwargs)
            return buffers
        except (TypeError, RuntimeError, NotImplementedError):
            if device == "cpu":
                raise
    raise AssertionError("unreachable")


def _out_dtype(ov: Overload, values: dict[str, Any], outs: list[str]) -> torch.dtype | tuple[torch.dtype, ...]:
    """The dtype of `out=` buffers: the one a sampler gave (creation ops: any), else the dtype of
    the functional overload's result (ATen's own promotion; one per output where it returns as
    many, as `sort.values` does: values and int64 indices), else the promoted input types."""
    for name in outs:
        if isinstance(values.get(name), OutputSpec):
            return values[name].dtype
    base = functional(ov)
    if base is not None:
        result = _run_shape_only(base, {k: v for k, v in values.items() if k not in outs})
        if isinstance(result, (tuple, list)) and len(outs) > 1 and len(result) == len(outs):
            return tuple(t.dtype for t in result)
        first = result[0] if isinstance(result, (tuple, list)) else result
        if isinstance(first, torch.Tensor):
            return first.dtype
    for key in ("dtype", "out_dtype"):
        if isinstance(values.get(key), torch.dtype):
            return values[key]
    tensors = [v for v in values.values()
               if isinstance(v, TensorSpec) and (v.dtype.is_floating_point or v.dtype.is_complex)]
    if not tensors:
        tensors = [v for v in values.values() if isinstance(v, TensorSpec)]
    if not tensors:
        return torch.get_default_dtype()
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    for k, v in values.items():
        if isinstance(v, (int, float, complex)) and not isinstance(v, bool) and k not in ("dim", "alpha"):
            dtype = torch.result_type(torch.empty((), dtype=dtype), v)
    return dtype


def with_outputs(ov: Overload, s: Sample) -> Sample:
    """Add the poisoned `out=` buffers an overload writes, sized as the native op would size them
    (a sampler may name an `out` OutputSpec to choose its dtype; its shape is then ATen's)."""
    outs = [p.name for p in ov.params if p.writes and p.kw_only
            if p.name not in s.values or isinstance(s.values[p.name], OutputSpec)]
    if not outs:
        return s
    values = dict(s.values)
    dtype = _out_dtype(ov, values, outs)
    sized = _sized_outputs(ov, values, outs, dtype)
    for name in outs:
        got = sized[name]
        values[name] = ([OutputSpec(tuple(t.shape), t.dtype) for t in got] if isinstance(got, list)
                        else OutputSpec(tuple(got.shape), got.dtype))
    return Sample(values=values, label=s.label)


def dispatch_key(device: str) -> str:
    return "CUDA" if device.startswith("cuda") else "CPU"


def native_overload(device: str, ov: Overload) -> Any:
    """The ATen kernel itself, when this torch build has one for the device."""
    qualname = f"aten::{ov.name}"
    if not torch._C._dispatch_has_computed_kernel_for_dispatch_key(qualname, dispatch_key(device)):
        return None
    op, _, name = ov.name.partition(".")
    return getattr(getattr(torch.ops.aten, op), name or "default")


def alpha_scales(name: str, scaled: str) -> dict[str, Callable[..., Any]]:
    """Error scales of `x + alpha * y` for every overload of `name` (add, sub, rsub: `scaled` names
    y, the operand alpha multiplies): |x| + |alpha| |y|. A result that cancels (3 - 2.5 * 1.16)
    keeps the rounding of the product it came from, which the result's own magnitude does not
    bound: an honest kernel without a fused multiply-add (Triton's interpreter) is 8 ulps off it."""

    def magnitude(written: str | None) -> Callable[..., Any]:
        def scale(self: Any, other: Any, alpha: Any = 1, *, out: Any = None) -> Any:
            x, y = (self, other) if scaled == "other" else (other, self)
            m = torch.as_tensor(x).abs() + abs(alpha) * torch.as_tensor(y).abs()
            target = out if out is not None else self if written == "self" else None
            return m if target is None else target.copy_(m.expand(target.shape))
        return scale

    return {ov.name: magnitude("self" if "self" in ov.writes else None) for ov in overloads(name)}


def aten_operator(name: str, family: str, doc: str, sampler: Sampler, *,
                  tolerance: Tolerance = Tolerance(), notes: str = "",
                  reference: dict[str, Any] | None = None, scale: dict[str, Any] | None = None,
                  traffic: Callable[[Overload, dict[str, Any], list[Any]], int] | None = None,
                  work: Work = "compute", compare: Compare = "values",
                  law: Callable[[Overload, Any, list[Any]], Any] | None = None, size_reads: int = 0) -> Operator:
    """`reference` replaces the ground truth of overloads whose kernel cannot run in float64;
    `scale` gives overloads an error scale (with an `abs_scale` tolerance) other than the op on |inputs|."""
    ovs = tuple(
        replace(ov, reference=(reference or {}).get(ov.name, ov.reference), scale=(scale or {}).get(ov.name, ov.scale))
        for ov in overloads(name)
    )
    return Operator(
        baseline=native_overload,
        id=f"aten::{name}",
        source="aten",
        family=family,
        doc=doc,
        overloads=ovs,
        cases=build_cases(ovs, sampler, with_outputs),
        tolerance=tolerance,
        notes=notes,
        traffic=traffic,
        work=work,
        compare=compare,
        law=law,
        size_reads=size_reads,
    )


def tensor_or_scalar(ov: Overload, name: str, spec: TensorSpec, scalar: float) -> Any:
    """The value for an argument that is a Tensor in one overload and a Scalar in another."""
    return scalar if ov.param(name).type == "Scalar" else spec


def only_present(ov: Overload, values: dict[str, Any]) -> dict[str, Any]:
    """Drop the values an overload has no parameter for (e.g. `dim` for `sum.default`)."""
    names = {p.name for p in ov.params}
    return {k: v for k, v in values.items() if k in names}


def samples_of(ov: Overload, grid: Iterable[dict[str, Any]]) -> Iterable[Sample]:
    """The grid's distinct samples. A label is a case's identity (it seeds the inputs), so two
    different samples with one label (drawn from different ranges, say) are a grid error."""
    seen: dict[str, Any] = {}
    for values in grid:
        s = sample(only_present(ov, values))
        if s.label in seen:
            if seen[s.label] != s.values:
                raise ValueError(f"{ov.name}: two different samples share the label {s.label!r}")
            continue
        seen[s.label] = s.values
        yield s
