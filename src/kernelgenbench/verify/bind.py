"""Loading a candidate file and binding it where production code would call it.

ATen candidates are registered with `torch.library` on the platform's dispatch key and called
through `torch.ops.aten`, as a production kernel would be; a counter in the registered wrapper
proves the candidate is the code that answered (a skipped registration is an infra error, never
a pass). vLLM and cuBLAS candidates are called directly with their library's signature.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import torch

from ..platforms.profiles import dispatch_key_for
from ..suite.spec import Operator, Overload


class BindError(Exception):
    """The candidate cannot be loaded or lacks a function the contract requires."""

    def __init__(self, reason: str, tb: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.traceback = tb


class DispatchBypassed(Exception):
    """The dispatcher answered without calling the candidate: the harness's fault, not the model's."""


def load_module(path: Path) -> ModuleType:
    """Import the file as its own module (never exec'd into the harness's namespace)."""
    name = "kgb_candidate_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BindError(f"cannot load {path.name} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise BindError(f"syntax error at line {e.lineno}: {e.msg}", traceback.format_exc(limit=0)) from None
    except BaseException as e:  # noqa: BLE001 - any failure at import is the candidate's
        if isinstance(e, KeyboardInterrupt):
            raise
        raise BindError(f"import failed: {type(e).__name__}: {e}", traceback.format_exc()) from None
    return module


def required_functions(op: Operator, module: ModuleType) -> dict[str, Callable[..., Any]]:
    missing = [ov for ov in op.overloads if not callable(getattr(module, ov.func_name, None))]
    if missing:
        names = ", ".join(f"{ov.func_name} (for {ov.name})" for ov in missing)
        raise BindError(f"missing function{'s' if len(missing) > 1 else ''}: {names}")
    return {ov.name: getattr(module, ov.func_name) for ov in op.overloads}


class Binding(Protocol):
    def __enter__(self) -> Binding: ...
    def __exit__(self, *exc: object) -> None: ...
    def call(self, ov: Overload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any: ...


Around = Callable[[], AbstractContextManager[Any]]


class DirectBinding:
    """vLLM and cuBLAS: the candidate's function is what the library's Python entry point would be."""

    def __init__(self, functions: dict[str, Callable[..., Any]], around: Around = nullcontext):
        self.functions = functions
        self.around = around

    def __enter__(self) -> DirectBinding:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def call(self, ov: Overload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with self.around():
            return self.functions[ov.name](*args, **kwargs)


class DispatcherBinding:
    """ATen: registered on the dispatch key for the duration of the `with` block only.

    Registration is scoped so the reference and the native baseline, computed outside the block,
    never reach the candidate.
    """

    def __init__(self, functions: dict[str, Callable[..., Any]], dispatch_key: str, around: Around = nullcontext,
                 in_launcher: Callable[[], bool] = lambda: False):
        self.functions = functions
        self.dispatch_key = dispatch_key
        self.around = around
        self.in_launcher = in_launcher
        self.calls: dict[str, int] = {name: 0 for name in functions}
        self._lib: torch.library.Library | None = None

    def _counted(self, name: str) -> Callable[..., Any]:
        fn = self.functions[name]
        own = _composite_kernel(name)

        def impl(*args: Any, **kwargs: Any) -> Any:
            if own is not None and self.in_launcher():
                return own(*args, **kwargs)  # Triton's interpreter copying launch arguments back
            self.calls[name] += 1
            with self.around():
                return fn(*args, **kwargs)

        return impl

    def __enter__(self) -> DispatcherBinding:
        self._lib = torch.library.Library("aten", "IMPL")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name in self.functions:
                self._lib.impl(name, self._counted(name), self.dispatch_key)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._lib is not None:
            self._lib._destroy()
            self._lib = None

    def call(self, ov: Overload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        op, _, overload = ov.name.partition(".")
        packet = getattr(getattr(torch.ops.aten, op), overload or "default")
        before = self.calls[ov.name]
        result = packet(*args, **kwargs)
        if self.calls[ov.name] == before:
            raise DispatchBypassed(f"aten::{ov.name} answered without reaching the candidate on "
                                   f"dispatch key {self.dispatch_key}")
        return result


COMPOSITE_KEYS = ("CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional", "CompositeImplicitAutograd")


def _composite_kernel(name: str) -> Callable[..., Any] | None:
    """ATen's device-generic kernel of an overload, callable past the candidate's registration.

    Triton's interpreter copies a launch's arguments back with `copy_` on the launch's own
    tensors; with a `copy_` candidate registered those copies would reach the candidate (and
    recurse), so calls made by the launcher itself go to ATen's kernel instead."""
    op, _, overload = name.partition(".")
    packet = getattr(getattr(torch.ops.aten, op), overload or "default")
    for key in COMPOSITE_KEYS:
        if torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}", key):
            dk = getattr(torch._C.DispatchKey, key)
            return lambda *args, **kwargs: packet._op_dk(dk, *args, **kwargs)
    return None


def binding_for(op: Operator, functions: dict[str, Callable[..., Any]], device: str,
                around: Around = nullcontext, in_launcher: Callable[[], bool] = lambda: False) -> Binding:
    """`around` wraps every call of a candidate function (the op trace enters there); calls made
    while `in_launcher()` are Triton's own and skip the candidate where ATen has a generic kernel."""
    if op.source == "aten":
        return DispatcherBinding(functions, dispatch_key_for(device), around, in_launcher)
    return DirectBinding(functions, around)
