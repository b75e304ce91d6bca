"""Compile a Triton file's kernels for a GPU this machine does not have.

Triton's interpreter runs code that its compiler refuses (a constexpr reassigned inside a
`static_range` loop; `.to()` on an int argument of 1, which the GPU path specialises into a
constexpr): such a file passes every test here and fails on the first GPU call, found only at the
price of device time. So the file runs an operator's small cases in the interpreter with every
launch recorded as Triton's JIT would specialise it (argument types, constexpr values, launch
options), and each distinct launch is then compiled, in a process without the interpreter, down to
the target's binary (a cubin for CUDA: Triton's own LLVM and ptxas, no GPU).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
DEFAULT_ARCH = 90  # the H200 (sm_90)


@dataclass(frozen=True)
class Launch:
    """One kernel specialisation: what Triton compiles for a launch."""

    file: str
    kernel: str
    signature: tuple[tuple[str, str], ...]  # parameter -> Triton type, "constexpr" for constexprs
    constexprs: tuple[tuple[str, Any], ...]  # parameter -> value (a dtype as {"dtype": name})
    options: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Failure:
    launch: Launch
    error: str

    def describe(self) -> str:
        consts = ", ".join(f"{k}={v}" for k, v in self.launch.constexprs)
        return f"{Path(self.launch.file).name}:{self.launch.kernel}({consts}): {self.error}"


def _encode(value: Any) -> Any:
    if value.__class__.__name__ == "dtype" and hasattr(value, "primitive_bitwidth"):
        return {"dtype": str(value)}
    if hasattr(value, "value") and value.__class__.__name__ == "constexpr":
        return _encode(value.value)
    return value


def _specialise(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                dont_specialise: Sequence[Any]) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, Any], ...]]:
    from triton.runtime.jit import mangle_type

    params = inspect.signature(fn).parameters
    bound = inspect.signature(fn).bind_partial(*args, **kwargs)
    bound.apply_defaults()
    names = list(params)
    signature, constexprs = [], []
    for i, (name, p) in enumerate(params.items()):
        value = bound.arguments.get(name)
        annotation = str(p.annotation)
        if "constexpr" in annotation:
            signature.append((name, "constexpr"))
            constexprs.append((name, _encode(value)))
            continue
        specialise = name not in dont_specialise and i not in dont_specialise and names[i] not in dont_specialise
        kind = mangle_type(value, specialise)
        signature.append((name, kind))
        if kind == "constexpr":
            constexprs.append((name, _encode(value)))
    return tuple(signature), tuple(constexprs)


@contextmanager
def recording() -> Iterator[list[Launch]]:
    """Record every interpreted launch (TRITON_INTERPRET=1) while the block runs."""
    from triton.runtime.interpreter import InterpretedFunction

    found: list[Launch] = []
    original = InterpretedFunction.run

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        options = tuple((k, int(kwargs[k])) for k in LAUNCH_OPTIONS if kwargs.get(k) is not None)
        call = {k: v for k, v in kwargs.items() if k not in LAUNCH_OPTIONS}
        try:
            signature, constexprs = _specialise(self.fn, args, call, self.kwargs.get("do_not_specialize") or ())
            found.append(Launch(inspect.getsourcefile(self.fn) or "", self.fn.__name__, signature, constexprs,
                                options))
        except (TypeError, ValueError, KeyError):
            pass  # a launch the JIT would refuse anyway; the interpreter reports it below
        return original(self, *args, grid=grid, warmup=warmup, **kwargs)

    InterpretedFunction.run = run
    try:
        yield found
    finally:
        InterpretedFunction.run = original


def record_operator(op_id: str, solution: Path, seed: int = 1) -> list[Launch]:
    """The distinct launches of `solution` over the operator's small cases, in the interpreter."""
    from ..suite import registry
    from .correctness import case_inputs

    op = registry.get(op_id)
    spec = importlib.util.spec_from_file_location(f"kgb_crosscompile_{solution.stem}", solution)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen: dict[str, Launch] = {}
    with recording() as launches:
        for case in op.cases:
            if case.size != "small":
                continue
            ov = op.overload(case.overload)
            args, kwargs = ov.split(case_inputs(case, seed, "cpu"))
            try:
                getattr(module, ov.func_name)(*args, **kwargs)
            except Exception:  # noqa: BLE001 - what launched before the error still counts
                pass
    for launch in launches:  # a dtype constexpr is a dict: the JSON text is the key
        seen.setdefault(json.dumps(asdict(launch), sort_keys=True, default=str), launch)
    return list(seen.values())


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and "dtype" in value:
        import triton.language as tl

        return tl.dtype(value["dtype"])
    return value


def _kernel(file: str, name: str, cache: dict[str, Any]) -> Any:
    from triton.runtime.jit import JITFunction

    if file not in cache:
        spec = importlib.util.spec_from_file_location(f"kgb_crosscompile_{len(cache)}", file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cache[file] = module
    obj = getattr(cache[file], name, None)
    while obj is not None and not isinstance(obj, JITFunction):
        obj = getattr(obj, "fn", None)  # autotuners and heuristics wrap the kernel
    return obj


def compile_launches(launches: Sequence[Launch], arch: int = DEFAULT_ARCH) -> list[Failure]:
    """Compile each launch for CUDA sm_`arch`; must run without TRITON_INTERPRET."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    target = GPUTarget("cuda", arch, 32)
    modules: dict[str, Any] = {}
    failures = []
    for launch in launches:
        try:
            fn = _kernel(launch.file, launch.kernel, modules)
            if fn is None:
                continue  # not a module-level kernel: nothing to look it up by
            source = ASTSource(fn, dict(launch.signature), {k: _decode(v) for k, v in launch.constexprs})
            triton.compile(source, target=target, options=dict(launch.options))
        except Exception as e:  # noqa: BLE001 - every compiler error is a finding
            failures.append(Failure(launch, _reason(e)))
    return failures


def _reason(e: BaseException) -> str:
    """The outermost error's place in the kernel and the innermost cause (a nested call's error
    says where in the caller; its cause says what the compiler refused)."""
    chain = [e]
    while chain[-1].__cause__ is not None and len(chain) < 20:
        chain.append(chain[-1].__cause__)
    where = [line for line in str(e).strip().splitlines() if line.strip()][-2:]
    why = [line for line in str(chain[-1]).strip().splitlines() if line.strip()][-3:]
    text = " | ".join(where + (why if chain[-1] is not e else []))
    return f"{type(chain[-1]).__name__}: {text}"


def check(op_ids: Sequence[str], solutions: Path,
          arch: int = DEFAULT_ARCH) -> tuple[dict[str, list[Launch]], dict[str, list[Failure]]]:
    """Record each operator's launches here (in the interpreter), compile them in a child process."""
    launches: dict[str, list[Launch]] = {}
    for op_id in op_ids:
        source, name = op_id.split("::")
        launches[op_id] = record_operator(op_id, solutions / source / f"{name}.py")
    return launches, compile_in_child(launches, arch)


def compile_in_child(launches: dict[str, list[Launch]], arch: int = DEFAULT_ARCH) -> dict[str, list[Failure]]:
    """`compile_launches` per key, in a child process free of the interpreter this one may run."""
    payload = json.dumps({op: [asdict(x) for x in ls] for op, ls in launches.items()})
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    command = [sys.executable, "-m", "kernelgenbench.verify.crosscompile", "--compile", str(arch)]
    child = subprocess.run(command, input=payload, text=True, capture_output=True, env=env, check=False)
    if child.returncode != 0:
        raise RuntimeError(f"the compiling process failed: {child.stderr.strip()[-2000:]}")
    found = json.loads(child.stdout)
    return {op: [Failure(_launch(f["launch"]), f["error"]) for f in fs] for op, fs in found.items()}


def _launch(d: dict[str, Any]) -> Launch:
    return Launch(d["file"], d["kernel"], tuple(map(tuple, d["signature"])), tuple(map(tuple, d["constexprs"])),
                  tuple(map(tuple, d["options"])))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compile", type=int, metavar="ARCH", help="(internal) compile launches read from stdin")
    parser.add_argument("--ops", help="comma-separated operator ids (default: every specified operator)")
    parser.add_argument("--arch", type=int, default=DEFAULT_ARCH, help="CUDA compute capability x 10 (default 90)")
    args = parser.parse_args(argv)
    if args.compile is not None:
        wanted = json.loads(sys.stdin.read())
        out = {op: [{"launch": asdict(f.launch), "error": f.error}
                    for f in compile_launches([_launch(x) for x in ls], args.compile)] for op, ls in wanted.items()}
        print(json.dumps(out))
        return 0
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("error: run with TRITON_INTERPRET=1 (the cases run in the interpreter to record launches)")
        return 2
    from ..suite import registry
    from ..suite.solutions import solutions_dir

    ops = [o.strip() for o in args.ops.split(",")] if args.ops else [o.id for o in registry.specified()]
    unknown = [o for o in ops if not registry.is_specified(o)]
    if unknown:
        print(f"error: not a specified operator: {', '.join(unknown)}")
        return 2
    launches, failures = check(ops, solutions_dir(), args.arch)
    bad = {op: fs for op, fs in failures.items() if fs}
    for op, fs in bad.items():
        for f in fs:
            print(f"{op}: {f.describe()}")
    silent = [op for op in ops if not launches[op]]
    if silent:
        print(f"no launch recorded (nothing compiled) for: {', '.join(silent)}")
    total = sum(len(v) for v in launches.values())
    print(f"{len(ops) - len(bad)} of {len(ops)} operators' kernels compile for sm_{args.arch} "
          f"({total} distinct launches)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
