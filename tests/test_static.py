"""L1 and L4 on their own: what host code may do, what it may not, and the rule each finding names.

Both layers read the one table in `verify/rules.py`; the honest idioms here are the ones models
and people write (copies into `out`, output casts, fills, libdevice, self-tests), and none of
them may be called a hack.
"""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.verify.launches import LaunchMonitor
from kernelgenbench.verify.rules import RULES, cast_computes, explain, judge_aten
from kernelgenbench.verify.static import scan
from kernelgenbench.verify.trace import OpTrace

IDIOMATIC = '''"""A module docstring, as models write them."""
from __future__ import annotations

import math
from typing import Optional, Tuple

import torch
import triton
import triton as tr
import triton.language as tl
from triton.language.extra import libdevice

CONFIGS = {"BLOCK": 128}
_TL = {torch.float16: tl.float16, torch.float32: tl.float32}


@tr.jit
def _k(x, o, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + i, mask=i < n)
    tl.store(o + i, libdevice.rsqrt(v) @ v if False else v.to(tl.float32).sum(), mask=i < n)


def _launch(x: torch.Tensor, out: torch.Tensor) -> None:
    grid = (triton.cdiv(x.numel(), CONFIGS["BLOCK"]),)
    _k[grid](x, out, x.numel(), BLOCK=triton.next_power_of_2(max(1, math.ceil(x.numel() / 4))))


@torch.no_grad()
def op(self: torch.Tensor, dim: int, out: Optional[torch.Tensor] = None, pad: list = [0]) -> torch.Tensor:
    shape = list(self.shape) + pad[:0]
    shape[dim] = 1
    dims = sorted(shape)
    dims.sort()
    sizes = {"a": 1}
    total = sum(sizes.values())
    x = self.contiguous().view(-1).float()
    a, b = torch.broadcast_tensors(x, x)
    acc = torch.zeros(shape, dtype=torch.float32, device=self.device)
    buf = torch.empty_like(x, memory_format=torch.contiguous_format)
    filled = torch.full((total,), -math.inf, device=self.device).new_zeros(2)
    with torch.cuda.device(self.device):
        _launch(x, acc)
    y = acc.to(torch.promote_types(self.dtype, torch.float32))
    if out is None:
        return y
    out.resize_(y.shape)
    out.copy_(y)
    return out


if __name__ == "__main__":
    t = torch.randn(4, 5, device="cuda")
    torch.testing.assert_close(op(t, 0), t.sum(0, keepdim=True))
    print(torch.allclose(op(t, 0), t.exp()))
'''


def test_idiomatic_host_code_is_clean():
    assert scan(IDIOMATIC) == [], [f.describe() for f in scan(IDIOMATIC)]


@pytest.mark.parametrize("code, rule", [
    ("import torch\ndef f(x):\n    return x.sum()\n", "host-compute"),
    ("import torch\ndef f(x):\n    return torch.exp(x)\n", "host-compute"),
    ("import torch\ndef f(x, w):\n    return x @ w\n", "host-compute"),
    ("import torch as T\ndef f(x):\n    return T.nn.functional.silu(x)\n", "host-compute"),
    ("import torch\ndef f(x):\n    return getattr(torch, 'soft' + 'max')(x, 0)\n", "dynamic-code"),
    ("import torch\ndef f(x):\n    return getattr(x, 'exp')()\n", "host-compute"),
    ("import torch\ndef f(x):\n    return x.__class__\n", "dunder"),
    ("import torch\ntorch.allclose = None\n", "monkey-patch"),
    ("import torch\n_c = {}\n", "module-state"),
    ("import torch\nC = dict(a=1)\ndef f(k):\n    C[k] = 1\n", "module-state"),
    ("import torch\ndef f():\n    global X\n", "module-state"),
    ("import torch\n_n = iter(range(1 << 62))\ndef f(x):\n    return next(_n)\n", "module-state"),
    ("import torch\n_n = (i for i in range(9))\n", "module-state"),
    ("import torch\n_n = [map(abs, range(9))]\n", "module-state"),
    ("import torch\ndef f(x, _seen={}):\n    _seen[1] = x\n    return x\n", "module-state"),
    ("import torch\ndef f(x, *, _n=list()):\n    _n.append(x)\n    return x\n", "module-state"),
    ("import torch\ndef f(x, _n=iter(range(9))):\n    return x\n", "module-state"),
    ("import torch\ndef f(x):\n    g = lambda y, _c=[]: _c.append(y)\n    return g(x)\n", "module-state"),
    ("import torch\nimport triton\n@triton.jit\ndef k(x):\n    pass\ndef f(x):\n    k.cache[0] = x\n",
     "module-state"),
    ("import torch\n_d = {'a': [1]}\ndef f(x):\n    _d['a'].append(x)\n", "module-state"),
    ("import torch\ndef make():\n    kept = {}\n    def f(x):\n        kept[1] = x\n        return x\n    return f\n"
     "f = make()\n", "module-state"),
    ("import torch\ndef make(kept):\n    return lambda x: kept.append(x)\nf = make([])\n", "module-state"),
    ("import os\n", "import"),
    ("from torch import nn\n", "host-compute"),
    ("import torch\ndef f(x):\n    return x.data_ptr()\n", "pointer-key"),
    ("import torch\nclass T(torch.Tensor):\n    pass\n", "class"),
    ("import torch\ndef f(x):\n    try:\n        pass\n    except Exception:\n        pass\n", "fallback"),
    ("import torch\ndef f(x):\n    with torch.cuda.stream(torch.cuda.Stream()):\n        pass\n", "concurrency"),
    ("import torch\ndef f(x):\n    s = torch.cuda.Stream()\n", "concurrency"),
    ("import torch\ndef f(x):\n    return eval('x')\n", "dynamic-code"),
    ("import functools\n", "import"),
    ("import torch\n@functools.cache\ndef f(x):\n    return x\n", "structure"),
    ("import torch\ndef f(k):\n    k.warmup(grid=(1,))\n", "launch"),
    ("import torch\ndef f(x):\n    return float(x.item())\n", "host-read"),
    ("import torch\ndef f(x):\n    return x.tolist()\n", "host-read"),
    ("import torch\ndef f(x):\n    return torch.cat([x, x])\n", "host-compute"),
    # the self-test guard is skipped only as written; rebinding __name__ would run it
    ("import torch\n__name__ = '__main__'\nif __name__ == '__main__':\n    pass\n", "monkey-patch"),
    ("import torch\nif __name__ == '__main__':\n    pass\nelse:\n    y = torch.exp(torch.ones(1))\n",
     "host-compute"),
    ("import torch\nif __name__ != '__main__':\n    y = torch.exp(torch.ones(1))\n", "host-compute"),
])
def test_forbidden_host_code_is_found_with_its_line(code, rule):
    findings = scan(code)
    assert findings, code
    assert rule in {f.rule for f in findings}, [f.describe() for f in findings]
    assert all(f.line >= 1 for f in findings)
    assert all(f.advice() == RULES[f.rule].comply for f in findings)


@pytest.mark.parametrize("code", [
    # a helper that writes into its caller's list dies with the call
    "import torch\ndef f(x):\n    parts = []\n    def add(y):\n        parts.append(y)\n    add(x)\n"
    "    return parts[0]\n",
    # a factory whose entry point only reads what it holds (a kernel, a block size)
    "import torch\ndef make(kernel, block):\n    def f(x):\n        kernel[(1,)](x, BLOCK=block)\n        return x\n"
    "    return f\nf = make(None, 8)\n",
    # an inner function writing only its own locals
    "import torch\ndef make():\n    def f(x):\n        seen = []\n        seen.append(x)\n        return seen[0]\n"
    "    return f\nf = make()\n",
])
def test_closures_that_keep_nothing_across_calls_are_clean(code):
    assert [f for f in scan(code) if f.rule == "module-state"] == [], [f.describe() for f in scan(code)]


@pytest.mark.parametrize("code, flagged", [
    ("def f(self, src):\n    return self.copy_(src)\n", True),
    ("def f(self):\n    return self.clone()\n", True),
    ("import torch\ndef f(self):\n    return torch.zeros_like(self)\n", True),
    ("def f(self, v):\n    return self.fill_(v)\n", True),
    # contiguous() and to() may return their input untouched: L4 sees whether they copied
    ("def f(self):\n    return self.contiguous().to(self.dtype)\n", False),
    ("import torch\ndef f(self):\n    return torch.empty_like(self).view(-1)\n", False),
])
def test_data_operators_may_not_copy_or_fill_on_the_host(code, flagged):
    assert bool(scan(code, work="data")) is flagged
    assert scan(code, work="compute") == []
    if flagged:
        assert {f.rule for f in scan(code, work="data")} == {"data-op-host-move"}


@pytest.mark.parametrize("src, dst, computes", [
    (torch.float32, torch.float16, False), (torch.float16, torch.float32, False),
    (torch.bfloat16, torch.float64, False), (torch.int64, torch.float32, False),
    (torch.bool, torch.int64, False), (torch.int32, torch.int64, False), (torch.uint8, torch.int16, False),
    (torch.float32, torch.int32, True), (torch.float32, torch.bool, True), (torch.int64, torch.int32, True),
    (torch.int32, torch.bool, True), (torch.int8, torch.uint8, True), (torch.float32, torch.float8_e4m3fn, True),
    (torch.complex64, torch.float32, True), (torch.int32, torch.uint64, True),
])
def test_a_cast_computes_exactly_when_it_changes_values_beyond_float_rounding(src, dst, computes):
    assert cast_computes(src, dst) is computes


def _trace(work, fn, *args, size_reads=0):
    trace = OpTrace(work, LaunchMonitor(), size_reads=size_reads)
    with trace.mode():
        fn(*args)
    return {rule for rule, _ in trace.forbidden}


def test_an_output_size_may_be_read_where_the_operator_says_and_nothing_more():
    """`aten::index` with a bool mask: the True count sizes the output, so one `.item()` per call is
    fine there; a second, `.tolist()`, or a read elsewhere is a host read."""
    x = torch.randn(4, 6)
    assert _trace("compute", lambda x: x[0, 0].item(), x, size_reads=1) == set()
    assert _trace("compute", lambda x: [x[0, i].item() for i in range(3)], x, size_reads=1) == {"host-read"}
    assert _trace("compute", lambda x: x[0, 0].item(), x) == {"host-read"}
    source = "import torch\n\ndef f(x, m):\n    n = m[-1].item()\n    return torch.empty(n)\n"
    assert not scan(source, "compute", size_reads=True)
    assert [f.rule for f in scan(source, "compute")] == ["host-read"]
    assert [f.rule for f in scan(source.replace(".item()", ".tolist()"), "compute", size_reads=True)] == ["host-read"]


def test_op_trace_allows_moves_casts_and_fills_to_compute_operators_only():
    x = torch.randn(4, 6)

    def honest(x):
        y = x.t().contiguous().float()
        out = torch.empty(0, dtype=torch.float16)
        out.resize_(y.shape)
        out.copy_(y)
        torch.zeros(3).fill_(2.0)
        return x.to(torch.float64).reshape(-1)

    assert _trace("compute", honest, x) == set()
    assert _trace("data", honest, x) == {"data-op-host-move"}
    assert _trace("data", lambda x: x.contiguous().view(-1).to(x.dtype), x) == set()  # nothing copied
    assert _trace("compute", lambda x: x.sum(), x) == {"host-compute"}
    assert _trace("compute", lambda x: x.to(torch.int32), x) == {"lossy-cast"}
    assert _trace("compute", lambda x: x[0, 0].item(), x) == {"host-read"}
    assert _trace("compute", lambda x: torch.empty(3, device="meta").copy_(x[0, :3]), x) == {"device-move"}


def test_every_rule_has_a_way_to_comply_and_explain_lists_them():
    text = explain("compute")
    for rule in RULES.values():
        assert rule.comply and f"[{rule.id}]" in text
    assert judge_aten("compute", "mul", (), {}).rule == "host-compute"


def test_composites_seen_below_autograd_are_judged_like_what_they_do():
    """Inside a registered kernel a dispatch mode sees `aten::to.dtype`, not `_to_copy`: the same
    rule must judge it (found by the genuine corpus: `.float()` was once called compute)."""
    x, i = torch.randn(3), torch.arange(3, dtype=torch.int32)

    def rule(name, *args, **kwargs):
        found = judge_aten("compute", name, args, kwargs)
        return found and found.rule

    assert rule("to", x, torch.float16) is None and rule("to", x, dtype=torch.float64) is None
    assert rule("to", x, torch.int32) == "lossy-cast" and rule("to", x, i) == "lossy-cast"
    assert rule("to", i, torch.int64) is None and rule("type_as", i, x) is None
    assert rule("to", x, "meta") == "device-move" and rule("cpu", x) is None
    assert rule("broadcast_tensors", [x, x]) is None and rule("promote_types", x.dtype, i.dtype) is None
    assert rule("reshape_as", x, x) is None
    assert judge_aten("data", "to", (x, torch.float16), {}).rule == "data-op-host-move"


MODULES = "import math\nimport typing\nimport torch\nimport triton\nimport triton.language as tl\n"


@pytest.mark.parametrize("code", [
    "t = torch",
    "[torch][0].save(x, 'x.pt')",
    "(t := torch).save(x, 'x.pt')",
    "(lambda x, t=torch: t.save(x, 'x.pt'))(x)",
    "g(torch)",
    "return triton",
    "return (torch, tl)",
    "return {'m': math}",
    "return {typing}",
    "return (torch if x else triton).cdiv",
    "for m in (torch,):\n        pass",
    "with torch as t:\n        pass",
    "return x is torch",
    "k = triton.language",  # a chain that ends on a module binds it too
    "c = torch.cuda",
    "c = getattr(torch, 'cuda')",
])
def test_a_module_is_only_ever_the_head_of_an_attribute_chain(code):
    """trick 18: every rule reads what a module's chain names, so a module bound to a name, stored,
    passed on or picked by an expression is a finding, on the line that does it."""
    findings = scan(f"{MODULES}def f(x, g=None):\n    {code}\n")
    assert {f.line for f in findings if f.rule == "module-alias"} == {7}, [f.describe() for f in findings]


@pytest.mark.parametrize("code", [
    "import torch as T\ndef f(x):\n    t = T\n",
    "from triton import language as L\ndef f(x):\n    t = L\n",
    "from triton.language.extra import libdevice\ndef f(x):\n    t = libdevice\n",
    "import triton\ndef f(x, m=triton):\n    return x\n",
    "from triton.runtime import driver\ndef f(x):\n    d = driver\n",
    "def f(x):\n    t = torch\nimport torch\n",  # imported below its use
])
def test_a_module_under_an_import_alias_is_held_to_the_same_rule(code):
    findings = scan(code)
    assert "module-alias" in {f.rule for f in findings}, [f.describe() for f in findings]
    assert all(f.advice() == RULES[f.rule].comply for f in findings)


@pytest.mark.parametrize("code, rule", [
    ("import triton\ndef f(x):\n    return triton.runtime.driver.active.utils.load_binary('k', b'', 0, 0)\n",
     "module-internal"),
    ("from triton.runtime import driver\ndef f(x):\n    return driver.active.utils.load_binary('k', b'', 0, 0)\n",
     "module-internal"),
    ("import triton\ndef f(x):\n    return triton.runtime.driver\n", "module-internal"),
    ("import triton\ndef f(x):\n    return triton.compiler.compile(x)\n", "module-internal"),
    ("import triton\ndef f(x):\n    return triton.knobs.cache.dir\n", "module-internal"),
    ("import triton\ndef f(x):\n    triton.knobs.cache.dir = '.'\n", "module-internal"),
    ("import triton\ndef f(x):\n    return triton.runtime.cache.get_cache_manager\n", "module-internal"),
    ("from triton import runtime\ndef f(x):\n    return runtime.cache\n", "module-internal"),
    ("from triton import knobs\n", "module-internal"),
    ("import triton.compiler\n", "module-internal"),
    ("from triton.runtime.cache import get_cache_manager\n", "module-internal"),
    ("import typing\ndef f(x):\n    return typing.sys.modules\n", "module-internal"),
    ("import typing\ndef f(x):\n    return typing._eval_type\n", "module-internal"),
    ("import triton.language as tl\ndef f(x):\n    return tl.core.builtins.open('f')\n", "module-internal"),
    ("import triton.language as tl\ndef f(x):\n    return tl.core.knobs\n", "module-internal"),
    ("from triton.language.core import builtins\n", "module-internal"),
    ("import triton.language.core as c\ndef f(x):\n    return c.builtins\n", "module-internal"),
    ("import typing\ndef f(x):\n    return typing.get_type_hints(f)\n", "dynamic-code"),
    ("from triton.language import *\n", "import"),
    ("import triton\n@triton.jit\ndef k(x):\n    pass\ndef f(x):\n    return k.fn(x)\n", "launch"),
])
def test_module_internals_are_out_of_reach(code, rule):
    """Triton's internals only along the chains honest code writes; no module a module imports for
    itself (`typing.sys`, `tl.core.builtins`); no kernel body run as plain Python."""
    findings = scan(code)
    assert rule in {f.rule for f in findings}, [f.describe() for f in findings]


@pytest.mark.parametrize("code", [
    # Triton's fused-softmax tutorial reads the device this way
    "import triton\ndef f(x):\n    d = triton.runtime.driver.active.get_active_torch_device()\n"
    "    t = triton.runtime.driver.active.get_current_target()\n"
    "    i = triton.runtime.driver.active.get_current_device()\n"
    "    p = triton.runtime.driver.active.utils.get_device_properties(i)\n"
    "    return p['multiprocessor_count'], d, t\n",
    "from triton.runtime import driver\n"
    "def f(x):\n    return driver.active.utils.get_device_properties(x)['max_shared_mem']\n",
    "import triton.runtime\ndef f(x):\n    return triton.runtime.driver.active.get_current_device()\n",
    "from triton.tools.tensor_descriptor import TensorDescriptor\n"
    "def f(x):\n    return TensorDescriptor.from_tensor(x, [16, 16])\n",
    "from triton.language.extra import libdevice\nimport triton.language as tl\n"
    "def f(x):\n    return libdevice.rsqrt, tl.extra.cuda.libdevice.exp, tl.math.div_rn\n",
    "from typing import Optional, Tuple\nimport typing\nimport math\nimport torch\n"
    "def f(x: torch.Tensor, o: Optional[torch.Tensor] = None) -> typing.Tuple[int, ...]:\n"
    "    assert isinstance(x, torch.Tensor) and x.dtype in (torch.float16, torch.bfloat16)\n"
    "    return (math.prod(x.shape), math.ceil(math.log2(4)))\n",
    "import torch\nimport triton.language as tl\nTL = {torch.float16: tl.float16, torch.float32: tl.float32}\n"
    "def f(x):\n    return TL[x.dtype] if hasattr(tl, 'float8e4nv') else getattr(torch, 'float16')\n",
    "import triton\nimport triton.language as tl\nfrom triton import jit\n"
    "@triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=4)], key=['n'])\n"
    "@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})\n"
    "@jit\ndef k(x, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, D: tl.constexpr = tl.float32):\n    t = tl\n"
    "def f(x):\n    k[(triton.cdiv(x.numel(), 128),)](x, x.numel())\n    return x\n",
    # a self-test is never run, and never judged
    "import torch\nif __name__ == '__main__':\n    t = torch\n    print(t)\n",
])
def test_honest_module_use_is_clean(code):
    assert scan(code) == [], [f.describe() for f in scan(code)]


def test_a_chain_is_judged_once_as_a_whole():
    """One finding per chain, not one per prefix (`triton.knobs.cache`, `triton.knobs`...)."""
    knobs = scan("import triton\ndef f(x):\n    return triton.knobs.cache.dir\n")
    assert [f.rule for f in knobs] == ["module-internal"]
    assert len(scan("import torch\ndef f(x):\n    return torch.ops.aten.sigmoid.default(x)\n")) == 1
