"""L1 on its own: what host code may do, and what it may not, with the line of each finding."""

from __future__ import annotations

import pytest

from kernelgenbench.verify.static import scan

ALLOWED = '''
import math
import torch
import triton
import triton.language as tl

CONFIGS = {"BLOCK": 128}


@triton.jit
def _k(x, o, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + i, mask=i < n)
    tl.store(o + i, tl.exp(v) @ v if False else v.to(tl.float32).sum(), mask=i < n)


def op(self, dim, out=None):
    shape = list(self.shape)
    shape[dim] = 1
    x = self.contiguous().view(-1)
    out = torch.empty(shape, dtype=torch.promote_types(self.dtype, torch.float32), device=self.device)
    grid = (triton.cdiv(x.numel(), CONFIGS["BLOCK"]),)
    _k[grid](x, out, x.numel(), BLOCK=triton.next_power_of_2(max(1, math.ceil(x.numel() / 4))))
    return out
'''


def test_idiomatic_host_code_is_clean():
    assert scan(ALLOWED) == []


@pytest.mark.parametrize("code, rule", [
    ("import torch\ndef f(x):\n    return x.sum()\n", "tensor-compute"),
    ("import torch\ndef f(x):\n    return torch.exp(x)\n", "torch-compute"),
    ("import torch\ndef f(x, w):\n    return x @ w\n", "tensor-compute"),
    ("import torch as T\ndef f(x):\n    return T.nn.functional.silu(x)\n", "torch-compute"),
    ("import torch\ndef f(x):\n    return getattr(torch, 'soft' + 'max')(x, 0)\n", "dynamic-code"),
    ("import torch\ndef f(x):\n    return getattr(x, 'exp')()\n", "tensor-compute"),
    ("import torch\ndef f(x):\n    return x.__class__\n", "dunder"),
    ("import torch\ntorch.allclose = None\n", "monkey-patch"),
    ("import torch\n_c = {}\n", "module-state"),
    ("import torch\nC = dict(a=1)\ndef f(k):\n    C[k] = 1\n", "module-state"),
    ("import torch\ndef f():\n    global X\n", "module-state"),
    ("import os\n", "import"),
    ("from torch import nn\n", "torch-compute"),
    ("import torch\ndef f(x):\n    return x.data_ptr()\n", "pointer-key"),
    ("import torch\nclass T(torch.Tensor):\n    pass\n", "class"),
    ("import torch\ndef f(x):\n    try:\n        pass\n    except Exception:\n        pass\n", "fallback"),
    ("import torch\ndef f(x):\n    with torch.no_grad():\n        pass\n", "context"),
    ("import torch\ndef f(x):\n    s = torch.cuda.Stream()\n", "stream"),
    ("import torch\ndef f(x):\n    return eval('x')\n", "dynamic-code"),
    ("import functools\n", "import"),
    ("import torch\n@functools.cache\ndef f(x):\n    return x\n", "decorator"),
    ("import torch\ndef f(k):\n    k.warmup(grid=(1,))\n", "launch"),
])
def test_forbidden_host_code_is_found_with_its_line(code, rule):
    findings = scan(code)
    assert findings, code
    assert rule in {f.rule for f in findings}, [f.describe() for f in findings]
    assert all(f.line >= 1 for f in findings)
