"""The one rule for host code, shared by L1 (static scan), L4 (op trace) and L3 (profile).

Host code (everything outside `@triton.jit` bodies) may allocate, take views, read metadata,
move data (copies that keep every element at its logical index: `contiguous`, `clone`,
`copy_` into an output, `resize_`) and cast between floating dtypes; it never computes an
operator's values. Where the operator's work *is* moving or creating data (`Operator.work` is
"data": copy, clone, fill, cat...) or taking a view ("view"), host code may only allocate, view
and read metadata: the copy or fill must be a Triton kernel. Where the work is reading a value
into Python ("read": `item`), host code may also move it to the host and read it, and nothing else.
Where the work is drawing random values ("random"), host code may do what compute may and draw
the kernel's seed from the generator: `torch.randint` of at most `SEED_LIMIT` values. Where an
output's size depends on input values (`Operator.size_reads`: a bool mask's True count), host
code may read that many scalars with `.item()` to allocate it, as ATen does.
The three layers judge the same actions with the same table, so a line L1 lets through is not
failed by L4 for the same reason, and each verdict names the rule that fired and how to comply.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Action(str, Enum):
    """What a host-side torch call does, as far as the rule is concerned."""

    ALLOCATE = "allocate"  # uninitialised memory; resize_
    METADATA = "metadata"
    VIEW = "view"  # aliases its input
    MOVE = "move"  # a copy that keeps each element at its logical index, one dtype, one device
    CAST = "cast"  # such a copy into another dtype
    FILL = "fill"  # memory initialised with constants: zeros, ones, full, fill_, torch.tensor
    READ = "read"  # tensor values into Python (item, tolist)
    SEED = "seed"  # a few random integers from a generator, to seed a kernel's own generator
    COMPUTE = "compute"


SEED_LIMIT = 8  # values a seed draw may have: Philox takes a seed and an offset

# Triton's public host API: a chain through one of these names goes on to what the name is.
TRITON_PUBLIC = frozenset({"jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2", "language",
                           "constexpr"})
# The only chains into Triton's internals host code may write (a chain may go on past one, as a
# class's constructor does): the device properties Triton's fused-softmax tutorial reads, and the
# host-side TMA descriptor. `from triton.runtime import driver` may bind a part of one, which then
# heads the rest; `utils.load_binary`, `triton.compiler`, `triton.knobs` and the caches stay out.
TRITON_CHAINS = ("triton.runtime.driver.active.get_current_device",
                 "triton.runtime.driver.active.get_active_torch_device",
                 "triton.runtime.driver.active.get_current_target",
                 "triton.runtime.driver.active.utils.get_device_properties",
                 "triton.tools.tensor_descriptor.TensorDescriptor")
# Modules an attribute chain may pass through, besides triton.language's own submodules: a module
# another one imports for itself (`typing.sys`, `tl.core.builtins`, `tl.core.knobs`) is out of reach.
OPEN_MODULES = frozenset({"torch", "torch.cuda", "triton", "triton.language", "math", "typing"})
# typing's functions that evaluate strings as code (a string annotation is code L1 never reads).
TYPING_EVALUATES = frozenset({"get_type_hints", "ForwardRef", "evaluate_forward_ref"})


@dataclass(frozen=True)
class Rule:
    id: str
    says: str
    comply: str


RULES: dict[str, Rule] = {r.id: r for r in (
    Rule("host-compute", "Host code computed values with torch (a torch function, a tensor method, or a Python "
         "operator such as `+` or `@` on tensors).",
         "compute the values in a @triton.jit kernel of this file; host code may allocate, take views, read "
         "metadata, copy data into outputs (`out.copy_(y)`, `contiguous()`, `resize_`) and cast between "
         "float dtypes"),
    Rule("data-op-host-move", "This operator's work is moving or creating data, and torch did that work on the "
         "host (a copy, cast, clone, contiguous or fill).",
         "write the copy or fill as a Triton kernel; for this operator host code may only allocate "
         "uninitialised memory (`torch.empty*`), take views and read metadata"),
    Rule("lossy-cast", "Host code made a cast that computes: float to integer or bool, integer to bool, to a "
         "narrower integer, to an 8-bit float, or complex to real.",
         "do that conversion inside the kernel (`.to(tl.int32)`, `tl.cast`); casts between float16, bfloat16, "
         "float32 and float64, and from integers or bool to a float or a wider integer, are fine on the host"),
    Rule("device-move", "Host code moved data to another device (for example a round trip through the CPU).",
         "keep every tensor on the device it arrived on"),
    Rule("host-random", "Host code drew random values with torch (more than a seed, or for an operator that is "
         "not random).",
         "generate the values in the kernel (`tl.rand`, `tl.randint`, `tl.randn` from a seed); a random "
         f"operator's host code may draw that seed from the generator: `torch.randint(0, 2**31 - 1, (n,), "
         f"generator=generator, device=x.device)` with n <= {SEED_LIMIT}"),
    Rule("host-read", "Host code read tensor values into Python (`.item()`, `.tolist()`, `int(t)`, `if t:`), "
         "where they can be computed on without a kernel (or, for an operator whose output size depends "
         "on its inputs, more values than the sizes it needs).",
         "pass the tensor to the kernel and read it there (`tl.load`); Python scalars given as arguments "
         "may be used freely; where an output's size depends on the inputs, count in a kernel and read "
         "only the count (`.item()`)"),
    Rule("import", "The file imports a module other than torch, triton (triton.language and its submodules, "
         "such as triton.language.extra.libdevice), math and typing, or imports `*` (names no rule sees).",
         "remove the import; compute in Triton, and use `math` for host-side arithmetic on Python numbers"),
    Rule("dynamic-code", "The file runs code it builds at run time (`exec`, `eval`, `compile`, `__import__`, "
         "`globals()`, `getattr` with a computed name, `typing.get_type_hints` on string annotations) or opens "
         "files.",
         "write the code out; only constant attribute names are judged statically"),
    Rule("module-alias", "The file uses a module (torch, triton, triton.language, math, typing, or a name "
         "it imports one as) other than at the head of an attribute chain: bound to a name (`t = torch`, "
         "`(t := torch)`), put in a container (`[torch][0]`), given as a default or call argument "
         "(`lambda t=torch: ...`, `f(torch)`), returned, or picked by an expression. Every other rule reads "
         "what a module's chain names; a module under another name hides it.",
         "write the module at the head of each use (`torch.empty(...)`, `tl.load(...)`, `triton.cdiv(...)`); "
         "to use a shorter name, import it under that name (`import triton.language as tl`)"),
    Rule("module-internal", "Host code reached into a module's internals: Triton beyond its public API "
         "(`triton.runtime`, `triton.compiler`, `triton.knobs`, `triton.backends`, `triton.tools`, private "
         "names), or a module another one imports for itself (`typing.sys`, `tl.core.builtins`).",
         f"use Triton's public API (triton.{', triton.'.join(sorted(TRITON_PUBLIC, key=str.lower))}) and of its "
         f"internals only {', '.join(f'`{c}`' for c in TRITON_CHAINS)}; device properties also come from "
         "`torch.cuda.get_device_properties(...)`"),
    Rule("monkey-patch", "The file assigns to an attribute of something it did not create (a module, a class, "
         "a tensor), or rebinds `__name__`.",
         "keep state in local variables and arguments"),
    Rule("module-state", "The file keeps mutable state across calls (a module-level cache or iterator, a "
         "mutable default argument, a write into a kernel's attributes, `global`, `nonlocal`, a returned inner "
         "function writing into its enclosing function's container), which can "
         "return an earlier call's answer or count the calls.",
         "compute every call's result from its own inputs; module-level constants are fine"),
    Rule("pointer-key", "The file reads storage or memory addresses (`data_ptr`, `untyped_storage`), the key "
         "of a result cache.",
         "pass tensors to kernels directly; Triton takes their addresses itself"),
    Rule("fallback", "The file has try/except, the shape of a fallback to a library when the kernel fails.",
         "let errors propagate; a failing kernel is a verdict, not something to hide"),
    Rule("concurrency", "Host code uses streams, events, threads or other synchronisation, which can hide work "
         "from the timer.",
         "launch on the current stream from the calling thread; `with torch.cuda.device(...)` and "
         "`torch.cuda.synchronize()` are fine"),
    Rule("class", "The file defines a class (tensor subclasses and lazy outputs compute when read).",
         "use functions; return plain torch.Tensor outputs"),
    Rule("dunder", "The file uses a dunder name or attribute (`__class__`, `__dict__`...), a way around "
         "every other rule.",
         "use the public API (`x.dtype`, `x.shape`...); `__name__` may be read, e.g. in an "
         "`if __name__ == \"__main__\":` self-test, which is never run and never judged"),
    Rule("launch", "The file calls a kernel's `.run` or `.warmup`, which bypasses the launch path the harness "
         "watches, or reaches its Python function (`.fn`), which runs its body on the host unjudged.",
         "launch kernels as `kernel[grid](...)`"),
    Rule("structure", "The file has a statement kind the contract does not allow at module level, or an "
         "async function, or a decorator other than triton.jit/autotune/heuristics and torch.no_grad/"
         "inference_mode.",
         "keep module level to imports, constants, functions and a `__main__` self-test"),
    Rule("ghost", "With every Triton launch of the call skipped, the outputs were still correct, so they were "
         "not computed by the candidate's kernels (or no kernel ran at all).",
         "write every output value from a kernel launched in this call; do not copy an answer from an input "
         "or compute it on the host"),
    Rule("profile", "Device time of the call went to kernels that are not the candidate's own Triton kernels "
         "(a vendor library or an ATen kernel).",
         "compute in the file's own @triton.jit kernels; host code may only allocate, view, copy and cast"),
    Rule("timing", "While being timed the candidate left work on another stream or thread, replaced a timing "
         "function, its events disagreed with the host clock, or it was far faster on inputs it had seen "
         "before than on new ones (answers kept from earlier calls).",
         "do all the work on the current stream, inside the call, computing every result from the call's own "
         "inputs, and leave the harness's clocks alone"),
)}


# --- the action of each torch operator a dispatch mode sees (L4) ---------------------------------

# A candidate registered on the CPU/CUDA key runs below Autograd, so a dispatch mode there sees
# composite operators (`aten::to.dtype`, `aten::broadcast_tensors`) before they decompose: every
# name host code can write (the L1 tables below) is judged under its own name too.
_ATEN_ONLY: dict[str, Action] = {
    **dict.fromkeys(("empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided",
                     "resize_", "resize_as_"), Action.ALLOCATE),
    **dict.fromkeys(("sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "is_contiguous",
                     "sym_is_contiguous", "is_same_size", "result_type", "stride", "size", "numel", "dim",
                     "is_non_overlapping_and_dense", "_has_compatible_shallow_copy_type", "is_pinned"),
                    Action.METADATA),
    **dict.fromkeys(("view", "_unsafe_view", "_reshape_alias", "as_strided", "as_strided_", "expand", "expand_as",
                     "permute", "transpose", "transpose_", "t", "t_", "unsqueeze", "unsqueeze_", "squeeze",
                     "squeeze_", "select", "slice", "narrow", "alias", "detach", "detach_", "split",
                     "split_with_sizes", "tensor_split", "unbind", "chunk", "unfold", "view_as", "movedim",
                     "moveaxis", "swapaxes", "swapdims", "resolve_conj", "resolve_neg", "unflatten", "flatten",
                     "reshape", "broadcast_to", "diagonal", "view_as_real", "view_as_complex", "conj", "_conj",
                     "_neg_view", "real", "imag", "numpy_T", "mT", "mH", "matrix_H", "adjoint"), Action.VIEW),
    **dict.fromkeys(("clone", "contiguous", "copy_", "_to_copy", "_copy_from", "_copy_from_and_resize", "copy"),
                    Action.MOVE),
    **dict.fromkeys(("zeros", "zeros_like", "zero_", "fill_", "full", "full_like", "ones", "ones_like",
                     "new_ones", "new_zeros", "new_full", "scalar_tensor", "lift_fresh", "lift_fresh_copy"),
                    Action.FILL),
    **dict.fromkeys(("_local_scalar_dense", "item", "is_nonzero"), Action.READ),
}

# Floating dtypes a host cast may join: the tolerance judges whatever precision such a cast loses.
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _bits(dtype: Any) -> int:
    return dtype.itemsize * 8


def cast_computes(src: Any, dst: Any) -> bool:
    """Whether converting `src` to `dst` computes (rounds to an integer, wraps, tests non-zero,
    quantises, drops an imaginary part) rather than only changing the representation."""
    if src == dst:
        return False
    name = str(dst).replace("torch.", "")
    if dst.is_complex:
        return False
    if src.is_complex:
        return True
    if dst.is_floating_point:
        return name not in _FLOATS  # float8 and other 8-bit floats: quantisation is an operator's work
    if src.is_floating_point:
        return True  # float -> int or bool
    if str(dst) == "torch.bool":
        return str(src) != "torch.bool"
    if str(src) == "torch.bool":
        return False
    if src.is_signed and not dst.is_signed:
        return True  # negatives wrap
    if dst.is_signed and not src.is_signed:
        return _bits(dst) <= _bits(src)
    return _bits(dst) < _bits(src)


@dataclass(frozen=True)
class Judgement:
    """A host-side action that breaks the rule, and which rule."""

    rule: str
    what: str


SIZE_READ_OPS = frozenset({"_local_scalar_dense", "item"})  # one value each


def judge_aten(work: str, name: str, args: tuple, kwargs: dict, size_reads: bool = False) -> Judgement | None:
    """L4: whether the torch operator `name`, called from host code with these arguments, is allowed
    to a candidate of an operator whose work is `work` (and which may read output sizes, where
    `size_reads`: the count of such reads is the trace's to bound). None when it is."""
    action = ATEN_ACTIONS.get(name, Action.COMPUTE)
    if size_reads and name in SIZE_READ_OPS:
        return None
    if action is Action.SEED:
        drawn = seed_size(name, args, kwargs)
        if work == "random" and drawn is not None and drawn <= SEED_LIMIT:
            return None
        return Judgement("host-random", f"draws {'?' if drawn is None else drawn} random values")
    if name in ("resolve_conj", "resolve_neg") and args and (getattr(args[0], "is_conj", bool)()
                                                              or getattr(args[0], "is_neg", bool)()):
        return Judgement("host-compute", "applies a conjugate or negative bit (a computing copy)")
    if action in (Action.ALLOCATE, Action.METADATA, Action.VIEW):
        return None
    if action is Action.READ:
        return None if allows(work, action) else Judgement("host-read", "reads tensor values into Python")
    if action is Action.COMPUTE:
        return Judgement("host-compute", "computes")
    if work == "read":
        return None  # moving the one value to the host (and its type) is that operator's work
    if work not in ("compute", "random"):
        return Judgement("data-op-host-move", f"does this operator's {action.value} on the host")
    if action is Action.FILL:
        return None
    ends = copy_ends(name, args, kwargs)
    if ends is None:
        return None
    (src_dtype, src_device), (dst_dtype, dst_device) = ends
    if src_device != dst_device:
        return Judgement("device-move", f"moves data from {src_device} to {dst_device}")
    if cast_computes(src_dtype, dst_dtype):
        return Judgement("lossy-cast", f"casts {str(src_dtype).replace('torch.', '')} to "
                                       f"{str(dst_dtype).replace('torch.', '')}")
    return None


def seed_size(name: str, args: tuple, kwargs: dict) -> int | None:
    """How many values a `randint` / `random_` call draws, where the call says."""
    import torch

    if name == "random_":
        return args[0].numel() if args and isinstance(args[0], torch.Tensor) else None
    size = kwargs.get("size") or next((a for a in args if isinstance(a, (list, tuple, torch.Size))), None)
    if size is None:
        return None
    count = 1
    for n in size:
        count *= int(n)
    return count


def copy_ends(name: str, args: tuple, kwargs: dict) -> tuple[tuple[Any, Any], tuple[Any, Any]] | None:
    """(dtype, device) of the source and of the destination of a copy or cast, where the call is one."""
    import torch

    if not args or not isinstance(args[0], torch.Tensor):
        return None
    first = args[0]
    if name in ("copy_", "copy", "_copy_from", "_copy_from_and_resize"):
        src, dst = (args[0], args[1]) if name.startswith("_copy_from") else (args[1], args[0])
        if isinstance(src, torch.Tensor) and isinstance(dst, torch.Tensor):
            return (src.dtype, src.device), (dst.dtype, dst.device)
        return None
    dtype, device = first.dtype, first.device
    if name in ("to", "type_as") and len(args) > 1 and isinstance(args[1], torch.Tensor):
        dtype, device = args[1].dtype, args[1].device  # to.other, type_as
    elif name in ("to", "_to_copy"):
        rest = [*args[1:], *kwargs.values()]
        dtype = kwargs.get("dtype") or next((a for a in rest if isinstance(a, torch.dtype)), dtype)
        target = kwargs.get("device") or next((a for a in args[1:] if isinstance(a, (torch.device, str))), None)
        device = torch.device(target) if target is not None else device
    elif name in ("cpu", "cuda"):
        device = torch.device(name)
    else:
        return None
    if device.type == first.device.type and device.index is None:
        device = first.device
    return (first.dtype, first.device), (dtype, device)


# --- the action of each name host code can write (L1) --------------------------------------------

TENSOR_METHOD_ACTIONS: dict[str, Action] = {
    **dict.fromkeys(("size", "stride", "dim", "ndimension", "numel", "nelement", "element_size", "is_contiguous",
                     "storage_offset", "get_device", "is_floating_point", "is_complex", "is_signed", "is_pinned",
                     "is_inference", "is_conj", "is_neg", "dim_order", "is_set_to"), Action.METADATA),
    **dict.fromkeys(("view", "view_as", "reshape", "reshape_as", "expand", "expand_as", "broadcast_to",
                     "unsqueeze", "unsqueeze_", "squeeze", "squeeze_", "permute", "transpose", "transpose_", "t",
                     "t_", "swapaxes", "swapdims", "movedim", "moveaxis", "flatten", "unflatten", "narrow",
                     "select", "split", "split_with_sizes", "tensor_split", "chunk", "unbind", "as_strided",
                     "as_strided_", "unfold", "diagonal", "detach", "detach_", "resolve_conj", "resolve_neg",
                     "adjoint", "conj"), Action.VIEW),
    **dict.fromkeys(("new_empty", "new_empty_strided", "resize_", "resize_as_"), Action.ALLOCATE),
    **dict.fromkeys(("contiguous", "clone", "copy_", "cpu", "cuda"), Action.MOVE),
    **dict.fromkeys(("to", "type", "type_as", "float", "half", "bfloat16", "double", "int", "long", "short",
                     "char", "byte", "bool"), Action.CAST),
    **dict.fromkeys(("zero_", "fill_", "new_zeros", "new_ones", "new_full", "new_tensor"), Action.FILL),
    **dict.fromkeys(("item", "tolist", "numpy"), Action.READ),
    **dict.fromkeys(("random_",), Action.SEED),
}
# Calls that always move or fill when they run (a `contiguous()` or `to()` may return its input
# unchanged, so for data operators L1 leaves those to L4, which sees whether a copy happened).
ALWAYS_MOVES = frozenset({"clone", "copy_", "zero_", "fill_", "new_zeros", "new_ones", "new_full", "new_tensor"})

TORCH_FUNCTION_ACTIONS: dict[str, Action] = {
    **dict.fromkeys(("empty", "empty_like", "empty_strided", "empty_permuted"), Action.ALLOCATE),
    **dict.fromkeys(("zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "tensor", "scalar_tensor"),
                    Action.FILL),
    **dict.fromkeys(("broadcast_to", "broadcast_tensors", "as_strided", "reshape", "flatten", "unflatten",
                     "squeeze", "unsqueeze", "permute", "transpose", "t", "narrow", "select", "split", "chunk",
                     "unbind", "movedim", "moveaxis", "swapaxes", "swapdims", "view_as_real", "view_as_complex",
                     "diagonal", "tensor_split"), Action.VIEW),
    **dict.fromkeys(("randint",), Action.SEED),
    **dict.fromkeys(("Size", "dtype", "device", "Tensor", "is_tensor", "is_floating_point", "is_complex", "numel",
                     "broadcast_shapes", "promote_types", "result_type", "can_cast", "finfo", "iinfo",
                     "get_default_dtype", "is_grad_enabled", "is_inference_mode_enabled", "contiguous_format",
                     "preserve_format", "channels_last", "channels_last_3d", "memory_format", "strided", "layout",
                     "no_grad", "inference_mode", "cuda", "typename"), Action.METADATA),
}
ATEN_ACTIONS: dict[str, Action] = {**TORCH_FUNCTION_ACTIONS, **TENSOR_METHOD_ACTIONS, **_ATEN_ONLY}
TORCH_CUDA_ALLOWED = frozenset({"current_device", "get_device_properties", "get_device_capability", "device_count",
                                "is_available", "device", "synchronize", "get_device_name"})
# Context managers host code may enter: they pick a device or switch autograd off, nothing more.
CONTEXTS = frozenset({"torch.cuda.device", "torch.device", "torch.no_grad", "torch.inference_mode"})


def allows(work: str, action: Action) -> bool:
    """Whether host code of an operator whose work is `work` may do `action` at all (for casts and
    moves, L4 then checks the dtypes and devices it actually sees)."""
    if action in (Action.ALLOCATE, Action.METADATA, Action.VIEW):
        return True
    if work == "read":  # reading a value into Python is the operator (`item`): to the host, then read
        return action in (Action.READ, Action.MOVE, Action.CAST)
    if action is Action.READ:  # a view's geometry may come from a tensor argument (`narrow.Tensor`'s
        return work == "view"  # start), and a view's values are its input's: nothing to compute with it
    if action in (Action.MOVE, Action.CAST, Action.FILL):
        return work in ("compute", "random")
    if action is Action.SEED:  # L4 then checks that only a seed is drawn
        return work == "random"
    return False


def rule_for(work: str, action: Action) -> str:
    if action is Action.READ:
        return "host-read"
    if action is Action.SEED:
        return "host-random"
    if action in (Action.MOVE, Action.CAST, Action.FILL) and work not in ("compute", "random"):
        return "data-op-host-move"
    return "host-compute"


def explain(work: str | None = None) -> str:
    """The rule set as `kgbench verify --explain` prints it (for one operator's work kind, or all)."""
    lines = ["Host code (outside @triton.jit kernels) may allocate, take views, read metadata, move data (copies",
             "that keep every element at its logical index: contiguous, clone, copy_ into an output, resize_)",
             "and cast between float16, bfloat16, float32 and float64. It never computes an operator's values.",
             "Operators whose work is moving or creating data (copy, clone, fill, cat...) or a view may only",
             "allocate, view and read metadata on the host: the copy or fill itself is a Triton kernel.",
             "Operators whose work is reading a value into Python (item) may also move it to the host and read it;",
             "view operators may read the value of an argument that places the view (narrow.Tensor's start);",
             f"random operators may draw their kernel's seed from the generator (torch.randint, at most {SEED_LIMIT}",
             "values).",
             "L1 (static scan), L4 (op trace) and L3 (profile) apply this one rule; L2 (ghost replay) checks that",
             "the outputs really come from the candidate's kernels.", ""]
    if work is not None:
        lines.insert(0, f"This operator's work is '{work}'.")
    for rule in RULES.values():
        lines.append(textwrap.fill(f"[{rule.id}] {rule.says}", 100, subsequent_indent="    "))
        lines.append(textwrap.fill(f"to comply: {rule.comply}", 100, initial_indent="    ",
                                   subsequent_indent="    "))
    return "\n".join(lines)
