"""What only a GPU can show: precision downgrades, device faults, and the cuBLAS baseline."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench import api
from kernelgenbench.suite import registry
from kernelgenbench.verify.verdict import Status

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]


def test_ieee_tiled_matmul_passes_and_tf32_fails(candidate, tmp_path):
    ieee = api.verify_file(candidate("mm_tiled"), "aten::mm", device="cuda", seed=11)
    assert ieee.status is Status.PASS, ieee.reason
    tf32 = tmp_path / "mm_tf32.py"
    tf32.write_text(candidate("mm_tiled").read_text().replace('PRECISION = "ieee"', 'PRECISION = "tf32"'))
    v = api.verify_file(tf32, "aten::mm", device="cuda", seed=11)
    assert v.status is Status.WRONG_RESULT and "float32" in (v.failing_case or "")
    assert v.cases[[c.case for c in v.cases].index(v.failing_case)].figures.ratio > 10


def test_illegal_memory_access_is_a_crash(candidate):
    v = api.verify_file(candidate("silu_segfault"), "aten::silu", device="cuda", seed=1)
    assert v.status is Status.CRASH, v.reason
    after = api.verify_file(candidate("silu_good"), "aten::silu", device="cuda", seed=1)
    assert after.status is Status.PASS


def test_cublas_baseline_is_the_library_routine():
    op = registry.get("cublas::cublasSgemm_v2")
    ov = op.overloads[0]
    assert op.native("cuda", ov) is not ov.reference
