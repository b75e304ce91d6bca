"""Each kind of failure gets its own status, with the evidence a user needs; a good kernel passes."""

from __future__ import annotations

import pytest

from kernelgenbench import api
from kernelgenbench.verify.verdict import Status


def judge(path, op="aten::silu", **kw):
    return api.verify_file(path, op, device="cpu", seed=7, **kw)


def test_good_kernel_passes_every_case(candidate):
    v = judge(candidate("silu_good"))
    assert v.status is Status.PASS, v.reason
    assert len(v.cases) == 36 and all(c.status is Status.PASS for c in v.cases)
    assert v.worst_ratio is not None and v.worst_ratio < 1


@pytest.mark.parametrize("stem, status, evidence", [
    ("silu_missing_out", Status.COMPILE_ERROR, "silu_out (for silu.out)"),
    ("silu_syntax_error", Status.COMPILE_ERROR, "syntax error at line 3"),
    ("silu_raises", Status.RUNTIME_ERROR, "ValueError: block size must be a power of two"),
    ("silu_segfault", Status.CRASH, "SIGSEGV"),
    ("silu_wrong_dtype", Status.WRONG_RESULT, "expected torch.float16"),
    ("silu_mutates_input", Status.WRONG_RESULT, "modified its input `self`"),
])
def test_failure_statuses(candidate, stem, status, evidence):
    v = judge(candidate(stem))
    assert v.status is status, (v.status, v.reason)
    assert evidence in v.reason


def test_an_input_inside_a_list_must_be_left_as_it_came(candidate):
    v = judge(candidate("cat_zeroes_an_input"), op="aten::cat", copy_check=False)  # the shipped cat, then a write
    assert v.status is Status.WRONG_RESULT and "modified its input `tensors`" in v.reason, v.reason


def test_os_exit_is_a_crash_when_the_static_scan_is_off(candidate):
    v = judge(candidate("silu_exit"), checks=("ghost", "trace"))
    assert v.status is Status.CRASH and "exited with code 0 before a verdict" in v.reason
    assert judge(candidate("silu_exit")).status is Status.HACK_STATIC


def test_crash_names_the_case_that_was_running(candidate):
    v = judge(candidate("silu_segfault"))
    assert v.failing_case == "silu: self=float32[]"
    assert v.layer == "sandbox"


def test_hang_is_a_timeout_and_names_the_case(candidate):
    v = judge(candidate("silu_hang"), timeout_s=10)
    assert v.status is Status.TIMEOUT
    assert v.failing_case is not None and v.failing_case.startswith("silu")
    assert "no verdict within 10 s" in v.reason


def test_runtime_error_carries_the_traceback(candidate):
    v = judge(candidate("silu_raises"))
    assert v.traceback and "block size must be a power of two" in v.traceback
    assert v.failing_case == "silu: self=float32[]"


def test_precision_downgrade_is_wrong_result_with_error_figures(candidate):
    v = judge(candidate("silu_fp16_math"))
    assert v.status is Status.WRONG_RESULT
    failing = next(c for c in v.cases if c.status is Status.WRONG_RESULT)
    assert "float32" in failing.case
    assert failing.figures is not None and failing.figures.ratio > 10


@pytest.mark.parametrize("stem, op", [("softmax_zeros", "aten::softmax"), ("mean_zeros", "aten::mean")])
def test_all_zeros_fails(candidate, stem, op):
    v = judge(candidate(stem), op)
    assert v.status is Status.WRONG_RESULT, v.reason
    wrong = [c for c in v.cases if c.status is Status.WRONG_RESULT]
    assert wrong and all(c.figures is None or c.figures.ratio > 1 for c in wrong)
    # only empty or NaN-only results can coincide with zeros
    assert all(("0, 4]" in c.case or "[0]" in c.case) for c in v.cases if c.status is Status.PASS)


def test_public_plan_runs_public_cases_only(candidate):
    v = judge(candidate("silu_good"), public_only=True)
    assert v.passed and v.cases and all(c.visibility == "public" for c in v.cases)


def test_fail_fast_stops_at_the_first_failure(candidate):
    v = judge(candidate("silu_fp16_math"), fail_fast=True)
    assert v.status is Status.WRONG_RESULT and v.cases[-1].status is Status.WRONG_RESULT
    assert len(v.cases) < 36


def test_memory_exhaustion_is_a_crash(candidate):
    v = judge(candidate("silu_memory_hog"))
    assert v.status is Status.CRASH and "memory" in v.reason


def test_small_real_error_is_wrong_result_with_figures(candidate):
    v = judge(candidate("rms_norm_wrong_eps"), "vllm::rms_norm")
    assert v.status is Status.WRONG_RESULT, v.reason
    failing = next(c for c in v.cases if c.status is Status.WRONG_RESULT)
    assert failing.case == v.failing_case and "numerical error too large" in failing.reason
    f = failing.figures
    assert f is not None and f.ratio > 1 and f.max_err > f.max_tol and f.native_rms_err < f.rms_err


def test_noop_fails_an_in_place_float64_routine(candidate):
    # Regression: the float64 reference must never run on the candidate's own buffers.
    v = judge(candidate("dgemv_noop"), "cublas::cublasDgemv_v2")
    assert v.status is Status.WRONG_RESULT, v.reason


def test_ghost_replay_poisons_every_uninitialised_allocation_of_the_candidate():
    """A 0-d float16 output once read as right with the kernels skipped: the CPU allocator had
    written its bookkeeping into the freed block, and those two bytes happened to be close."""
    import torch
    from torch.utils._python_dispatch import _get_current_dispatch_mode

    from kernelgenbench.verify.launches import LaunchMonitor

    monitor = LaunchMonitor()
    with monitor.poison_fresh_memory():  # a normal run: the candidate's allocations are left alone
        assert _get_current_dispatch_mode() is None
    with monitor.ghosting(), monitor.poison_fresh_memory():
        half = torch.empty((), dtype=torch.float16)
        single = torch.empty_like(torch.ones(3, 5).t())
        ints = torch.ones(4, dtype=torch.int32).new_empty(7)
    assert half.view(torch.int16).item() == 0x7F7F  # NaN
    assert torch.all(single == torch.tensor(0x7F7F7F7F, dtype=torch.int32).view(torch.float32))
    assert ints.tolist() == [0x7F7F7F7F] * 7
