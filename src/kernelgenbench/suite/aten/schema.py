"""ATen overloads read from the live schema registry, so the suite follows the installed torch."""

from __future__ import annotations

import torch

from ..spec import Overload, Param


def _type_name(arg: torch.Argument) -> str:
    t = str(arg.real_type)
    return t.replace("number", "Scalar")


def _takes_or_returns_tensor(schema: torch.FunctionSchema) -> bool:
    return any("Tensor" in str(a.real_type) for a in schema.arguments) or any(
        "Tensor" in str(r.type) for r in schema.returns
    )


def _named_tensor(packet: object, overload: str) -> bool:
    """Dimname overloads belong to the prototype named-tensor API: left out, on every torch version.

    Older torch lists them among the JIT schemas with `str dim`; the dispatcher's schema says Dimname.
    """
    if "dimname" in overload.lower() or overload.startswith("names"):
        return True
    op = getattr(packet, overload or "default", None)
    return op is not None and "Dimname" in str(op._schema)


def _in_dispatcher(op: str, overload: str) -> bool:
    """TorchScript-only schemas (`eq.Tensor_list`, `to.prim_dtype`, `copy_.int`) have no dispatcher
    entry, so no kernel can be registered for them: they are not part of the operator."""
    try:
        torch._C._dispatch_find_schema_or_throw(f"aten::{op}", overload)
    except RuntimeError:
        return False
    return True


def func_name(op: str, overload: str) -> str:
    """The candidate's Python name for an overload: `softmax.int` -> `softmax_int`."""
    return f"{op}_{overload}" if overload else op


def overloads(op: str) -> tuple[Overload, ...]:
    """Every dispatcher overload of `aten::op` that takes or returns a Tensor, `out=` forms
    included (named-tensor overloads aside)."""
    schemas = torch._C._jit_get_schemas_for_operator(f"aten::{op}")
    if not schemas:
        raise KeyError(f"aten::{op} is not in this torch's schema registry")
    packet = getattr(torch.ops.aten, op)
    found = []
    for s in schemas:
        if (not _takes_or_returns_tensor(s) or _named_tensor(packet, s.overload_name)
                or not _in_dispatcher(op, s.overload_name)):
            continue
        ov_name = s.overload_name
        params = tuple(
            Param(
                name=a.name,
                type=_type_name(a),
                kw_only=a.kwarg_only,
                writes=bool(a.alias_info is not None and a.alias_info.is_write),
                has_default=a.has_default_value(),
                default=a.default_value if a.has_default_value() else None,
            )
            for a in s.arguments
        )
        alias = None
        if len(s.returns) == 1 and s.returns[0].alias_info is not None:
            ret_set = set(s.returns[0].alias_info.before_set)
            for a in s.arguments:
                if a.alias_info is not None and a.alias_info.is_write and ret_set & set(a.alias_info.before_set):
                    alias = a.name
        found.append(
            Overload(
                name=f"{op}.{ov_name}" if ov_name else op,
                func_name=func_name(op, ov_name),
                params=params,
                signature=str(s).replace("aten::", "", 1),
                reference=getattr(packet, ov_name or "default"),
                returns_alias=alias,
            )
        )
    return tuple(found)
