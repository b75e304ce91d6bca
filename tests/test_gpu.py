"""What only a GPU can show: precision downgrades, device faults, and the cuBLAS baseline."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench import api
from kernelgenbench.store import Store
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


@pytest.mark.parametrize("src_dtype, dtype, to", [(torch.float64, torch.float64, "cpu"),
                                                  (torch.float32, torch.float64, "cpu"),
                                                  (torch.complex128, torch.complex128, "cuda")])
def test_a_copy_across_lets_go_of_the_gpu_for_every_piece_of_host_work(src_dtype, dtype, to):
    """A float64 truth copies its inputs off the GPU and its outputs back through a page-locked buffer:
    the host's side of each piece (on the H200 the slow part) runs where timing lets go of the device."""
    from contextlib import contextmanager

    from kernelgenbench.suite.transfer import copy_across

    entered = []

    @contextmanager
    def host_work():
        entered.append(torch.cuda.current_stream().query())  # the piece's device work is done
        yield

    src = torch.randn(1000, dtype=src_dtype, device="cuda" if to == "cpu" else "cpu")
    got = copy_across(src, dtype, to, host_work, piece_bytes=1024)
    assert got.device.type == to and torch.equal(got.cpu(), src.cpu().to(dtype))
    pieces = -(-1000 * max(src.element_size(), got.element_size()) // 1024)
    assert len(entered) >= pieces and all(entered)


def test_a_second_run_of_the_same_source_compiles_nothing(tmp_path, monkeypatch):
    """The per-source Triton cache beside the store is shared by every worker of that source, also
    with a relative store path: on the H200 a second run of the same solutions compiled all of
    aten::mm's 57 kernels again (each worker's cache lay in its own deleted folder)."""
    monkeypatch.chdir(tmp_path)
    compiled = []
    for name in ("first", "second"):
        result = api.run("reference", ops=["silu"], db="k.db", device="cuda", name=name, tiers=["small"],
                         perf=True, quick_timing=True)
        with Store("k.db") as store:
            (attempt,) = store.attempts(result.run.id)
            phases = [store.verdict(attempt.id).extra["phases"], store.timing(attempt.id).extra["phases"]]
        compiled.append([p["kernels_compiled"] for p in phases])
    assert compiled[0][0] > 0 and compiled[1] == [0, 0], compiled
