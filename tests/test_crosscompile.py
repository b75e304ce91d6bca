"""Kernels the interpreter runs but the GPU compiler refuses are found on this GPU-less machine."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

from kernelgenbench.verify.crosscompile import compile_in_child, recording

KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, n, LOG: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    y = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    for s in tl.static_range(LOG):
        {body}
    tl.store(x_ptr + offs, y, mask=offs < n)


def run(x):
    scale_kernel[(1,)](x, x.numel(), LOG=3, BLOCK=8)
'''
REASSIGNED = "h: tl.constexpr = 1 << s\n        y = y * h"
INLINE = "y = y * (1 << s)"


def _launches(tmp_path: Path, body: str) -> list:
    path = tmp_path / f"k{abs(hash(body))}.py"
    path.write_text(KERNEL.replace("{body}", body))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with recording() as launches:
        module.run(torch.ones(8))
    return launches


def test_a_constexpr_reassigned_in_a_static_loop_fails_the_sm90_compile(tmp_path):
    launches = _launches(tmp_path, REASSIGNED)
    assert [(x.kernel, dict(x.constexprs)) for x in launches] == [("scale_kernel", {"LOG": 3, "BLOCK": 8})]
    failures = compile_in_child({"bad": launches})["bad"]
    assert len(failures) == 1 and "constexpr cannot be reassigned" in failures[0].error


def test_the_same_kernel_written_for_the_compiler_compiles(tmp_path):
    assert compile_in_child({"good": _launches(tmp_path, INLINE)}) == {"good": []}


ONE = '''
import triton
import triton.language as tl


@triton.jit
def fill_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs * 0.0 + n.to(tl.float32), mask=offs < n)


def run(x, n):
    fill_kernel[(1,)](x, n, BLOCK=8)
'''


def test_an_int_argument_of_one_is_specialised_as_the_gpu_does(tmp_path):
    """Triton's JIT turns an int argument equal to 1 into a constexpr, which has no `.to`: the
    interpreter runs the kernel either way, the GPU compiler refuses it for n == 1 only."""
    path = tmp_path / "one.py"
    path.write_text(ONE)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with recording() as launches:
        module.run(torch.zeros(8), 1)
        module.run(torch.zeros(8), 5)
    failures = compile_in_child({"one": launches})["one"]
    assert [dict(f.launch.constexprs).get("n") for f in failures] == [1]
