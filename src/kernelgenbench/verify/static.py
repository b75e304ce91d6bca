"""L1: an AST scan of the candidate file, before it is imported.

Host code (everything outside `@triton.jit` bodies) is held to the rule in `rules.py`: it may
allocate, view, read metadata, move and cast data, never compute. The scan flags only what is
certainly against that rule (a name that is a tensor method and also a method of a Python
builtin, such as `d.values()` or `dims.sort()`, is left to the op trace, which sees the real
call), plus the structural rules no runtime layer can see: imports, dynamic code, monkey-patching,
module state, fallbacks, streams and threads. Each finding names its line and rule, so a model
learns what to change. An `if __name__ == "__main__":` self-test is never run, and never judged.

The rules read what an attribute chain names (`torch.softmax`, `tl.core.builtins`), so a module
may appear only at the head of one: bound to a name, put in a container or passed on, it would
take its chains out of sight. A chain is judged whole, against the modules it passes through on
the installed packages: Triton's internals only along the few chains honest code writes.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
from dataclasses import dataclass
from functools import cache
from types import ModuleType

import torch

from .rules import (
    ALWAYS_MOVES,
    CONTEXTS,
    OPEN_MODULES,
    RULES,
    TENSOR_METHOD_ACTIONS,
    TORCH_CUDA_ALLOWED,
    TORCH_FUNCTION_ACTIONS,
    TRITON_CHAINS,
    TRITON_PUBLIC,
    TYPING_EVALUATES,
    Action,
    allows,
    rule_for,
)

ALLOWED_MODULES = {"torch", "triton", "triton.language", "math", "typing", "__future__"}
ROOTS = frozenset({"torch", "triton", "math", "typing"})  # the packages whose chains the scan follows
DECORATORS = {"triton.jit", "triton.autotune", "triton.heuristics", "torch.no_grad", "torch.inference_mode"}
BANNED_CALLS = {"exec", "eval", "compile", "__import__", "open", "globals", "locals", "vars",
                "setattr", "delattr", "breakpoint", "memoryview"}
MUTATING_METHODS = {"append", "extend", "insert", "pop", "update", "setdefault", "add", "clear",
                    "remove", "discard", "popitem", "__setitem__"}
# Builtins whose result advances as it is read: at module level, a counter of calls that no write shows
ITERATORS = {"iter", "map", "filter", "zip", "enumerate", "reversed"}
# A kernel's attributes that run it past the launch path, or run its body as plain Python on the host
KERNEL_BYPASSES = {"warmup": "bypasses the launch path; launch kernels as kernel[grid](...)",
                   "run": "bypasses the launch path; launch kernels as kernel[grid](...)",
                   "fn": "is the kernel's Python function: called on the host, its body runs unjudged"}
_MISSING = object()


@dataclass(frozen=True)
class Finding:
    line: int
    rule: str
    detail: str

    def describe(self) -> str:
        return f"line {self.line}: {self.detail} [{self.rule}]"

    def advice(self) -> str:
        return RULES[self.rule].comply


@cache
def _python_methods() -> frozenset[str]:
    """Method names of Python's builtin types: on an untyped name they may not be a tensor's."""
    names: set[str] = set()
    for t in (list, dict, str, set, tuple, int, float, bytes, frozenset, complex, bool):
        names |= {n for n in dir(t) if not n.startswith("_")}
    return frozenset(names)


@cache
def _tensor_compute_methods() -> frozenset[str]:
    """Public torch.Tensor methods the rule does not name (they compute), less the ambiguous ones."""
    names = {n for n in dir(torch.Tensor) if not n.startswith("_") and callable(getattr(torch.Tensor, n, None))}
    return frozenset(names - set(TENSOR_METHOD_ACTIONS) - _python_methods())


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _root(node: ast.AST) -> str | None:
    """The name an attribute or subscript chain starts from (`k` of `k.cache[0]`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _mutable(value: ast.expr) -> bool:
    """A container or iterator made once, where it is written (a default argument's value)."""
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call) and _dotted(value.func) in ("list", "dict", "set", "bytearray"):
        return True
    return _iterator(value)


def _writes(nodes: list[ast.AST], name: str) -> bool:
    """Whether any of `nodes` writes into what `name` holds (`name[k] = v`, `name.append(v)`)."""
    return any((isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) and _root(n) == name)
               or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in MUTATING_METHODS
                   and _root(n.func.value) == name) for n in nodes)


def _every_node(body: list[ast.stmt] | ast.expr) -> list[ast.AST]:
    """Every node of a function body (a lambda's: one expression), nested functions included."""
    return [n for part in (body if isinstance(body, list) else [body]) for n in ast.walk(part)]


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of a function body, not descending into the functions it defines."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        found.append(n)
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(n))
    return found


def _bound(args: ast.arguments, body: list[ast.stmt] | list[ast.expr]) -> set[str]:
    """The names a function binds itself: its parameters and what its own body assigns."""
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    for n in _own_nodes(body):  # type: ignore[arg-type]
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
    return names


def _iterator(value: ast.expr) -> bool:
    """A value that is, or holds, an iterator or generator (`iter(range(n))`, `(i for i in ...)`)."""
    if isinstance(value, ast.GeneratorExp):
        return True
    if isinstance(value, ast.Call):
        return _dotted(value.func) in ITERATORS
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return any(_iterator(e) for e in value.elts)
    if isinstance(value, ast.Dict):
        return any(_iterator(v) for v in value.values)
    return False


def _open(module: str) -> bool:
    """Whether an attribute chain may pass through the module named `module`."""
    return module in OPEN_MODULES or module.startswith("triton.language.")


@cache
def _reach(path: str) -> tuple[str | None, bool]:
    """Follow `path` (`typing.sys.modules`) through the installed packages, running nothing of them
    (no property, no module `__getattr__`; a submodule not yet imported is found by its spec):
    the first module on it that host code may not reach (None if none), and whether it ends on a
    module. A name not there statically (made at run time) ends the walk: the binder finds out."""
    head, *rest = path.split(".")
    obj: object = importlib.import_module(head)
    for name in rest:
        nxt = inspect.getattr_static(obj, name, _MISSING)
        if nxt is _MISSING and isinstance(obj, ModuleType) and hasattr(obj, "__path__"):
            sub = f"{obj.__name__}.{name}"
            if importlib.util.find_spec(sub) is None:
                return None, False
            if not _open(sub):
                return sub, True
            try:
                nxt = importlib.import_module(sub)
            except ImportError:  # a language submodule this installation cannot load: nothing to reach
                return None, False
        if nxt is _MISSING:
            return None, False
        if isinstance(nxt, ModuleType) and not _open(nxt.__name__):
            return nxt.__name__, True
        obj = nxt
    return None, isinstance(obj, ModuleType)


def _on_chain(path: str) -> bool:
    """Whether `path` is one of Triton's allowed internal chains, or goes on past one."""
    return any(path == c or path.startswith(c + ".") for c in TRITON_CHAINS)


def _leads_to_chain(path: str) -> bool:
    """Whether `path` is a part of an allowed internal chain (`triton.runtime.driver`): it may be
    imported, and the name it binds then heads the rest of the chain."""
    return any(c.startswith(path + ".") for c in TRITON_CHAINS)


def _judged(module: ast.Module) -> list[ast.stmt]:
    """The statements that run on import: all but the body of an `if __name__ == "__main__":`."""
    judged: list[ast.stmt] = []
    for stmt in module.body:
        if isinstance(stmt, ast.If) and _is_main_guard(stmt):
            judged.extend(stmt.orelse)  # an else branch does run on import
        else:
            judged.append(stmt)
    return judged


def _is_main_guard(stmt: ast.stmt) -> bool:
    """`if __name__ == "__main__":`, either way round."""
    if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
        return False
    test = stmt.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
        any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


class _Scanner(ast.NodeVisitor):
    def __init__(self, work: str, size_reads: bool = False) -> None:
        self.work = work
        self.size_reads = size_reads
        self.findings: list[Finding] = []
        self.aliases: dict[str, str] = {}  # local name -> module path ("tl" -> "triton.language")
        self.heads: dict[str, str] = {}  # names that may only head a chain: modules, parts of TRITON_CHAINS
        self.chain_heads: set[int] = set()  # ids of the names that head an attribute chain
        self.inner: set[int] = set()  # ids of attributes inside a longer chain (judged with it)
        self.module_names: set[str] = set()  # names bound at module level

    def prepare(self, tree: ast.Module) -> None:
        """Bind every import before any use is judged (a function may use a module imported below
        it), and note the names and attributes that are parts of a longer chain."""
        for stmt in _judged(tree):
            for n in ast.walk(stmt):
                if isinstance(n, ast.Import):
                    for a in n.names:
                        self._bind(a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0])
                elif isinstance(n, ast.ImportFrom) and not n.level:
                    for a in n.names:
                        if a.name != "*":
                            self._bind(a.asname or a.name, f"{n.module}.{a.name}")
                elif isinstance(n, ast.Attribute):
                    if isinstance(n.value, ast.Name):
                        self.chain_heads.add(id(n.value))
                    elif isinstance(n.value, ast.Attribute):
                        self.inner.add(id(n.value))

    def _bind(self, name: str, path: str) -> None:
        """`name` is imported as `path`; a module, or a part of an allowed chain, may only head one."""
        self.aliases[name] = path
        if path.split(".")[0] in ROOTS and (_leads_to_chain(path) or _reach(path)[1]):
            self.heads[name] = path

    def flag(self, node: ast.AST, rule: str, detail: str) -> None:
        assert rule in RULES, rule
        self.findings.append(Finding(getattr(node, "lineno", 0), rule, detail))

    def resolve(self, dotted: str | None) -> str | None:
        """`tl.extra.libdevice` -> `triton.language.extra.libdevice`, through the file's imports."""
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        base = self.aliases.get(head)
        if base is None:
            return dotted
        return f"{base}.{rest}" if rest else base

    # imports ---------------------------------------------------------------------------------
    @staticmethod
    def _module_allowed(name: str) -> bool:
        return name in ALLOWED_MODULES or name.startswith("triton.language.")

    def visit_Import(self, node: ast.Import) -> None:
        """Names were bound by `prepare`; here each import is judged."""
        for a in node.names:
            if self._module_allowed(a.name) or a.name.startswith("triton."):
                self._judge(node, a.name, f"import {a.name}", bound=True)
            else:
                self.flag(node, "import", f"import of `{a.name}` is not allowed")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        if node.level or not (self._module_allowed(mod) or mod.startswith("triton.")):
            self.flag(node, "import", f"import from `{'.' * node.level}{mod}` is not allowed")
            return
        for a in node.names:
            if a.name == "*":
                self.flag(node, "import", f"`from {mod} import *` is not allowed (it binds names no rule sees)")
            elif mod == "torch":
                self._check_torch(node, [a.name], f"from torch import {a.name}")
            else:
                self._judge(node, f"{mod}.{a.name}", f"from {mod} import {a.name}", bound=True)

    # structure -------------------------------------------------------------------------------
    def visit_Module(self, node: ast.Module) -> None:
        for stmt in _judged(node):
            self._module_level(stmt)
            self.visit(stmt)

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
            if value is not None and _iterator(value):
                self.flag(stmt, "module-state", "module-level iterator (it advances with every call that "
                                                "reads it: a call counter)")
        elif isinstance(stmt, ast.FunctionDef):
            self.module_names.add(stmt.name)  # a kernel's attributes (its compile cache) live across calls
        elif isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Expr, ast.If, ast.Pass, ast.Assert)):
            return
        elif isinstance(stmt, ast.AsyncFunctionDef):
            self.flag(stmt, "structure", "async functions are not allowed")
        elif not isinstance(stmt, ast.ClassDef):
            self.flag(stmt, "structure", f"module-level `{type(stmt).__name__}` statement is not allowed")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.flag(node, "class", "classes are not allowed (tensor subclasses, lazy outputs)")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            name = self.resolve(_dotted(target))
            if name not in DECORATORS:
                self.flag(d, "structure", f"decorator `{_dotted(target) or ast.unparse(d)}` is not allowed "
                                          f"(only triton.jit, triton.autotune, triton.heuristics, torch.no_grad, "
                                          f"torch.inference_mode)")
            elif isinstance(d, ast.Call):
                for arg in [*d.args, *d.keywords]:
                    self.visit(arg)
        if any(self.resolve(_dotted(d.func if isinstance(d, ast.Call) else d)) == "triton.jit"
               for d in node.decorator_list):
            return  # the Triton compiler polices kernel bodies
        self._defaults(node.args, node.body)
        self._closure_state(node)
        for stmt in node.body:
            self.visit(stmt)
        self.visit(node.args)

    def _closure_state(self, node: ast.FunctionDef) -> None:
        """A function that returns an inner function writing into what it holds of the outer one's (a
        list or dict made once per outer call, `kept.append(...)`): that state outlives every call of
        the inner function, a cache as much as a module-level one. An inner helper that is not
        returned dies with its call, as does what it writes."""
        outer = _bound(node.args, node.body)
        own = _own_nodes(node.body)
        inner = {n.name: n for n in own if isinstance(n, ast.FunctionDef)}
        for ret in (n for n in own if isinstance(n, ast.Return) and n.value is not None):
            for part in ast.walk(ret.value):
                fn: ast.FunctionDef | ast.Lambda | None = part if isinstance(part, ast.Lambda) else (
                    inner.get(part.id) if isinstance(part, ast.Name) else None)
                if fn is None:
                    continue
                held = outer - _bound(fn.args, fn.body if isinstance(fn.body, list) else [fn.body])
                nodes = _every_node(fn.body)
                for name in sorted(n for n in held if _writes(nodes, n)):
                    self.flag(ret, "module-state", f"the returned inner function writes `{name}`, held by "
                                                   f"`{node.name}` (a closure cache across calls)")

    def _defaults(self, args: ast.arguments, body: list[ast.stmt] | ast.expr) -> None:
        """A default made once and kept across calls: state where the function writes into it (a
        list default only read, as models write `dims=[0]`, is no state) or reads an iterator."""
        positional = [*args.posonlyargs, *args.args]
        pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
                 *zip(args.kwonlyargs, args.kw_defaults)]
        nodes = _every_node(body)
        for param, default in pairs:
            if default is not None and (_iterator(default) or (_mutable(default) and _writes(nodes, param.arg))):
                self.flag(default, "module-state", f"mutable default argument `{ast.unparse(default)}` "
                                                   "(one object, kept across calls)")

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._defaults(node.args, node.body)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.flag(node, "module-state", "`global` writes module state across calls")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.flag(node, "module-state", "`nonlocal` keeps state across calls")

    def visit_Try(self, node: ast.Try) -> None:
        self.flag(node, "fallback", "try/except is not allowed (no fallback paths)")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            expr = item.context_expr
            name = self.resolve(_dotted(expr.func if isinstance(expr, ast.Call) else expr))
            if name not in CONTEXTS:
                self.flag(node, "concurrency", f"`with {ast.unparse(expr)}` is not allowed (only "
                                               f"{', '.join(sorted(CONTEXTS))})")
        self.generic_visit(node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> None:
        self.flag(node, "structure", "async code is not allowed")

    # names and attributes --------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "__name__":
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                self.flag(node, "monkey-patch", "`__name__` may be read, not rebound")
        elif node.id.startswith("__"):
            self.flag(node, "dunder", f"`{node.id}` is not allowed")
        elif node.id in BANNED_CALLS:
            self.flag(node, "dynamic-code", f"`{node.id}` is not allowed")
        elif node.id in self.heads and isinstance(node.ctx, ast.Load) and id(node) not in self.chain_heads:
            path = self.heads[node.id]
            what = "the module" if _reach(path)[0] is None else "the internal"
            what += f" `{node.id}`" if path == node.id else f" `{path}` (as `{node.id}`)"
            self.flag(node, "module-alias", f"{what} is used as a value (bound, stored or passed on); it may only "
                                            f"head an attribute chain (`{node.id}.name`)")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("__"):
            self.flag(node, "dunder", f"attribute `{node.attr}` is not allowed")
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.flag(node, "monkey-patch", f"assignment to attribute `{ast.unparse(node)}` is not allowed")
        dotted = _dotted(node)
        if dotted is not None and id(node) not in self.inner:
            self._check_module_path(node, dotted)
        if node.attr in ("data_ptr", "untyped_storage", "storage", "_cdata"):
            self.flag(node, "pointer-key", f"`.{node.attr}` is not allowed (results keyed on memory)")
        if node.attr in KERNEL_BYPASSES and isinstance(node.ctx, ast.Load):
            self.flag(node, "launch", f"`.{node.attr}` {KERNEL_BYPASSES[node.attr]}")
        self.generic_visit(node)

    def _check_module_path(self, node: ast.AST, dotted: str) -> None:
        """A whole chain as written (`tl.core.builtins`), judged where its head is an import."""
        head, *rest = dotted.split(".")
        base = self.aliases.get(head)
        if base is None or not rest:
            return
        self._judge(node, ".".join([base, *rest]), dotted, bound=False)

    def _judge(self, node: ast.AST, path: str, shown: str, bound: bool) -> None:
        """`path` is a whole chain from its package (`triton.language.core.builtins`), or what an
        import names, where `bound` (a part of an allowed chain may be imported, to head the rest)."""
        parts = path.split(".")
        root = parts[0]
        if root not in ROOTS or len(parts) == 1:
            return
        if root == "torch" and self._check_torch(node, parts[1:], shown):
            return
        if root == "triton" and parts[1] not in TRITON_PUBLIC:
            if not (_on_chain(path) or (bound and _leads_to_chain(path))):
                full = "" if path == shown else f" (`{path}`)"
                self.flag(node, "module-internal", f"`{shown}`{full} reaches Triton's internals, which host code "
                                                   "may use only along a few public chains")
            return
        if root == "typing" and parts[1] in TYPING_EVALUATES:
            self.flag(node, "dynamic-code", f"`{shown}` evaluates strings as code")
            return
        private = next((p for p in parts[1:] if p.startswith("_") and not p.startswith("__")), None)
        if root != "torch" and private is not None:
            self.flag(node, "module-internal", f"`{shown}`: `{private}` is private to `{root}`")
            return
        internal, module = _reach(path)
        if internal is not None:
            self.flag(node, "module-internal", f"`{shown}` reaches the module `{internal}`, which host code "
                                               "may not use")
        elif module and not bound:
            self.flag(node, "module-alias", f"`{shown}` is the module `{path}` itself, used as a value; a module "
                                            "may only head an attribute chain")

    def _check_torch(self, node: ast.AST, path: list[str], shown: str) -> bool:
        """`path` is what follows `torch.`: judged by the action it names. Whether it was flagged."""
        first = path[0] if path else ""
        if isinstance(getattr(torch, first, None), torch.dtype):
            return False
        if first == "Tensor" and len(path) > 1:
            self.flag(node, "host-compute", f"`{shown}` is not allowed (Tensor methods through the class)")
            return True
        if first == "cuda" and len(path) > 1 and path[1] not in TORCH_CUDA_ALLOWED:
            self.flag(node, "concurrency", f"`{shown}` is not allowed (streams, events, graphs)")
            return True
        action = TORCH_FUNCTION_ACTIONS.get(first, Action.COMPUTE)
        if not allows(self.work, action):
            rule = rule_for(self.work, action)
            why = {"host-compute": "torch is for allocation, views and metadata only",
                   "host-random": "random values come from the kernel; only a random operator draws a seed"}.get(
                rule, "this operator's copy or fill must be a Triton kernel")
            self.flag(node, rule, f"`{shown}` is not allowed outside kernels ({why})")
            return True
        return False

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr") and node.args \
                and isinstance(node.args[0], ast.Name):
            self.chain_heads.add(id(node.args[0]))  # judged as the chain it names, or only tested
        if isinstance(func, ast.Name) and func.id == "getattr":
            if len(node.args) < 2 or not isinstance(node.args[1], ast.Constant) \
                    or not isinstance(node.args[1].value, str):
                self.flag(node, "dynamic-code", "getattr with a computed name is not allowed")
            else:
                self._check_getattr(node, node.args[0], node.args[1].value)
        if isinstance(func, ast.Attribute):
            base = _dotted(func.value)
            is_module = base is not None and base.split(".")[0] in self.aliases
            if not is_module:
                self._check_method(node, func.attr)
            if _root(func.value) in self.module_names and func.attr in MUTATING_METHODS:
                self.flag(node, "module-state", f"`{ast.unparse(func.value)}.{func.attr}()` mutates module state")
        self.generic_visit(node)

    def _check_method(self, node: ast.AST, name: str, via: str = "") -> None:
        if self.size_reads and name == "item":
            return  # an output size read (counted by L4); `.tolist()` stays a host read
        action = TENSOR_METHOD_ACTIONS.get(name)
        if action is None:
            if name in _tensor_compute_methods():
                self.flag(node, "host-compute", f"{via}`.{name}()` computes outside a Triton kernel")
            return
        certain = action in (Action.READ, Action.COMPUTE, Action.SEED) or name in ALWAYS_MOVES
        if certain and not allows(self.work, action):
            rule = rule_for(self.work, action)
            what = {"host-read": "reads tensor values into Python", "host-random": "draws random values",
                    "data-op-host-move": "does this operator's copy or fill on the host"}.get(rule, "computes")
            self.flag(node, rule, f"{via}`.{name}()` {what}")

    def _check_getattr(self, node: ast.Call, target: ast.AST, name: str) -> None:
        """getattr(obj, "name") is judged as obj.name would be."""
        if name.startswith("__") or name in ("data_ptr", "untyped_storage", "storage", *KERNEL_BYPASSES):
            self.flag(node, "dynamic-code", f"getattr of `{name}` is not allowed")
        base = _dotted(target)
        if base is not None and base.split(".")[0] in self.aliases:
            self._check_module_path(node, f"{base}.{name}")
        else:
            self._check_method(node, name, via="getattr of ")

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult):
            self.flag(node, "host-compute", "`@` computes outside a Triton kernel")
        self.generic_visit(node)

    def _module_subscript(self, target: ast.AST) -> None:
        if isinstance(target, ast.Subscript) and _root(target) in self.module_names:
            self.flag(target, "module-state", f"`{ast.unparse(target)}` writes module state")

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._module_subscript(t)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._module_subscript(node.target)
        self.generic_visit(node)


def scan(source: str, work: str = "compute", size_reads: bool = False) -> list[Finding]:
    """Every rule the file breaks, for an operator whose work is `work` (and which may read output
    sizes with `.item()`, where `size_reads`); empty for a clean file. A syntax error is the
    binder's to report."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    scanner = _Scanner(work, size_reads)
    scanner.prepare(tree)
    scanner.visit(tree)
    return sorted(scanner.findings, key=lambda f: f.line)

