"""L1: an AST allow-list scan of the candidate file, before it is imported.

Host code (everything outside `@triton.jit` bodies) may allocate, look at metadata, take views
and launch kernels; nothing else. Whatever is not allowed is rejected with its line and rule, so
a model learns what to change. Runtime layers (op trace, ghost replay) catch what no static scan
can see, such as tensor arithmetic written with Python operators.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache

import torch

ALLOWED_MODULES = {"torch", "triton", "triton.language", "math", "typing", "__future__"}

TORCH_ALLOWED = {
    # allocation (zeros/full only as initialised memory for kernels that accumulate)
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like",
    # metadata and type logic
    "Size", "dtype", "device", "Tensor", "is_tensor", "is_floating_point", "is_complex",
    "broadcast_shapes", "promote_types", "result_type", "can_cast", "finfo", "iinfo",
    "get_default_dtype", "cuda",
}
TORCH_CUDA_ALLOWED = {"current_device", "get_device_properties", "get_device_capability", "device_count",
                      "is_available"}
TRITON_ALLOWED = {"jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2", "language",
                  "constexpr", "runtime", "tools", "__version__"}
DECORATORS = {"triton.jit", "triton.autotune", "triton.heuristics", "jit", "autotune", "heuristics"}

# Tensor methods that read metadata, take views or allocate. Every other method torch.Tensor
# has computes, and is rejected outside kernels.
TENSOR_METHODS_ALLOWED = {
    "size", "stride", "dim", "ndimension", "numel", "nelement", "element_size", "is_contiguous",
    "contiguous", "view", "reshape", "expand", "expand_as", "unsqueeze", "squeeze", "permute",
    "transpose", "t", "flatten", "unflatten", "narrow", "select", "split", "chunk", "unbind",
    "as_strided", "view_as", "storage_offset", "get_device", "new_empty", "new_empty_strided",
    "new_zeros", "zero_", "is_floating_point", "is_complex", "type", "unfold", "movedim",
}
BANNED_CALLS = {"exec", "eval", "compile", "__import__", "open", "globals", "locals", "vars",
                "setattr", "delattr", "breakpoint", "memoryview"}
MUTATING_METHODS = {"append", "extend", "insert", "pop", "update", "setdefault", "add", "clear",
                    "remove", "discard", "popitem", "__setitem__"}


@dataclass(frozen=True)
class Finding:
    line: int
    rule: str
    detail: str

    def describe(self) -> str:
        return f"line {self.line}: {self.detail} [{self.rule}]"


@cache
def _tensor_compute_methods() -> frozenset[str]:
    """Every public torch.Tensor method (properties such as `shape` are metadata) not allowed."""
    names = {n for n in dir(torch.Tensor) if not n.startswith("_") and callable(getattr(torch.Tensor, n, None))}
    return frozenset(names - TENSOR_METHODS_ALLOWED)


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_kernel(fn: ast.FunctionDef) -> bool:
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if _dotted(target) in ("triton.jit", "jit"):
            return True
    return False


class _Scanner(ast.NodeVisitor):
    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.aliases: dict[str, str] = {}  # local name -> module path ("tl" -> "triton.language")
        self.module_names: set[str] = set()  # names bound at module level

    def flag(self, node: ast.AST, rule: str, detail: str) -> None:
        self.findings.append(Finding(getattr(node, "lineno", 0), rule, detail))

    # imports ---------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.name not in ALLOWED_MODULES:
                self.flag(node, "import", f"import of `{a.name}` is not allowed (only torch, triton, "
                                          f"triton.language and math)")
            self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        if node.level or mod not in ALLOWED_MODULES:
            self.flag(node, "import", f"import from `{'.' * node.level}{mod}` is not allowed")
            return
        for a in node.names:
            full = f"{mod}.{a.name}"
            if mod == "torch" and a.name not in TORCH_ALLOWED:
                self.flag(node, "torch-compute", f"`from torch import {a.name}` is not allowed outside kernels")
            if mod == "triton" and a.name not in TRITON_ALLOWED:
                self.flag(node, "triton-internals", f"`from triton import {a.name}` is not allowed")
            self.aliases[a.asname or a.name] = full

    # structure -------------------------------------------------------------------------------
    def visit_Module(self, node: ast.Module) -> None:
        for stmt in node.body:
            self._module_level(stmt)
        self.generic_visit(node)

    def _module_level(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    self.module_names.add(t.id)
            value = stmt.value
            empty = (isinstance(value, (ast.Dict, ast.List, ast.Set)) and not getattr(value, "keys", None)
                     and not getattr(value, "elts", None)) or (
                isinstance(value, ast.Call) and _dotted(value.func) in ("dict", "set", "list") and not value.args)
            if empty:
                self.flag(stmt, "module-state", "module-level empty container (a cache across calls)")
        elif isinstance(stmt, (ast.FunctionDef, ast.Import, ast.ImportFrom, ast.Expr, ast.If, ast.Pass)):
            return
        elif isinstance(stmt, ast.AsyncFunctionDef):
            self.flag(stmt, "async", "async functions are not allowed")
        elif not isinstance(stmt, ast.ClassDef):
            self.flag(stmt, "module-code", f"module-level `{type(stmt).__name__}` statement is not allowed")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.flag(node, "class", "classes are not allowed (tensor subclasses, lazy outputs)")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            name = _dotted(target)
            if name not in DECORATORS:
                self.flag(d, "decorator", f"decorator `{name or ast.unparse(d)}` is not allowed "
                                          f"(only triton.jit, triton.autotune, triton.heuristics)")
            else:
                self.visit(d)
        if _is_kernel(node):
            return  # the Triton compiler polices kernel bodies
        for stmt in node.body:
            self.visit(stmt)
        self.visit(node.args)

    def visit_Global(self, node: ast.Global) -> None:
        self.flag(node, "module-state", "`global` writes module state across calls")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.flag(node, "module-state", "`nonlocal` keeps state across calls")

    def visit_Try(self, node: ast.Try) -> None:
        self.flag(node, "fallback", "try/except is not allowed (no fallback paths)")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_With(self, node: ast.With) -> None:
        self.flag(node, "context", "`with` blocks are not allowed (streams, devices, no-grad tricks)")
        self.generic_visit(node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> None:
        self.flag(node, "async", "async code is not allowed")

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.generic_visit(node)

    # names and attributes --------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id.startswith("__") and node.id != "__name__":
            self.flag(node, "dunder", f"`{node.id}` is not allowed")
        elif node.id in BANNED_CALLS:
            self.flag(node, "dynamic-code", f"`{node.id}` is not allowed")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("__"):
            self.flag(node, "dunder", f"attribute `{node.attr}` is not allowed")
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.flag(node, "monkey-patch", f"assignment to attribute `{ast.unparse(node)}` is not allowed")
        dotted = _dotted(node)
        if dotted is not None:
            self._check_module_path(node, dotted)
        if node.attr in ("data_ptr", "untyped_storage", "storage", "_cdata"):
            self.flag(node, "pointer-key", f"`.{node.attr}` is not allowed (results keyed on memory)")
        if node.attr in ("warmup", "run") and isinstance(node.ctx, ast.Load):
            self.flag(node, "launch", f"`.{node.attr}` bypasses the launch path; launch kernels as kernel[grid](...)")
        self.generic_visit(node)

    def _check_module_path(self, node: ast.AST, dotted: str) -> None:
        head, *rest = dotted.split(".")
        base = self.aliases.get(head)
        if base is None or not rest:
            return
        path = f"{base}.{'.'.join(rest)}".split(".")
        if path[0] == "torch":
            first = path[1] if len(path) > 1 else ""
            if first == "Tensor" and len(path) > 2:
                self.flag(node, "torch-compute", f"`{dotted}` is not allowed (Tensor methods through the class)")
            elif first not in TORCH_ALLOWED and not isinstance(getattr(torch, first, None), torch.dtype):
                self.flag(node, "torch-compute", f"`{dotted}` is not allowed outside kernels "
                                                 f"(torch is for allocation, views and metadata only)")
            elif first == "cuda" and len(path) > 2 and path[2] not in TORCH_CUDA_ALLOWED:
                self.flag(node, "stream", f"`{dotted}` is not allowed (streams, events, synchronisation)")
        elif path[0] == "triton" and len(path) > 1 and path[1] not in TRITON_ALLOWED:
            self.flag(node, "triton-internals", f"`{dotted}` is not allowed")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "getattr":
            if len(node.args) < 2 or not isinstance(node.args[1], ast.Constant) \
                    or not isinstance(node.args[1].value, str):
                self.flag(node, "dynamic-code", "getattr with a computed name is not allowed")
            else:
                self._check_getattr(node, node.args[0], node.args[1].value)
        if isinstance(func, ast.Attribute):
            base = _dotted(func.value)
            is_module = base is not None and base.split(".")[0] in self.aliases
            if not is_module and func.attr in _tensor_compute_methods():
                self.flag(node, "tensor-compute", f"`.{func.attr}()` computes outside a Triton kernel")
            if isinstance(func.value, ast.Name) and func.value.id in self.module_names \
                    and func.attr in MUTATING_METHODS:
                self.flag(node, "module-state", f"`{func.value.id}.{func.attr}()` mutates module state")
        self.generic_visit(node)

    def _check_getattr(self, node: ast.Call, target: ast.AST, name: str) -> None:
        """getattr(obj, "name") is judged as obj.name would be."""
        if name.startswith("__") or name in ("data_ptr", "untyped_storage", "storage", "warmup", "run"):
            self.flag(node, "dynamic-code", f"getattr of `{name}` is not allowed")
        base = _dotted(target)
        if base is not None and base.split(".")[0] in self.aliases:
            self._check_module_path(node, f"{base}.{name}")
        elif name in _tensor_compute_methods():
            self.flag(node, "tensor-compute", f"getattr of `.{name}` computes outside a Triton kernel")

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult):
            self.flag(node, "tensor-compute", "`@` computes outside a Triton kernel")
        self.generic_visit(node)

    def _module_subscript(self, target: ast.AST) -> None:
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and target.value.id in self.module_names:
            self.flag(target, "module-state", f"`{ast.unparse(target)}` writes module state")

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._module_subscript(t)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._module_subscript(node.target)
        self.generic_visit(node)


def scan(source: str) -> list[Finding]:
    """Every rule the file breaks; empty for a clean file. A syntax error is the binder's to report."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    scanner = _Scanner()
    scanner.visit(tree)
    return sorted(scanner.findings, key=lambda f: f.line)
