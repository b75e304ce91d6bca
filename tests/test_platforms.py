"""Platform profiles, detection, the stored descriptor, and cases a platform cannot run."""

from __future__ import annotations

import secrets
import sys

import pytest

from kernelgenbench import prompts
from kernelgenbench.methods.reference import solutions_dir
from kernelgenbench.platforms import INTERPRETER, PROFILES, Descriptor, PlatformError, describe, detect, profile
from kernelgenbench.sandbox import Request, judge
from kernelgenbench.store import Store
from kernelgenbench.suite import registry
from kernelgenbench.verify.pipeline import Plan
from kernelgenbench.verify.verdict import Status


def test_every_profile_says_how_it_is_found_dispatched_timed_and_compared():
    assert set(PROFILES) == {"cuda", "hip", "xpu", "npu", "musa", "mlu", "interpreter"}
    for p in PROFILES.values():
        assert p.torch_device and p.triton_backend and p.dispatch_key and p.baseline and p.hint
        assert p.clock in ("events", "host")
    assert {n for n, p in PROFILES.items() if p.proven} == {"cuda", "interpreter"}
    assert profile("rocm") is PROFILES["hip"] and profile("cpu") is PROFILES["interpreter"]
    assert not PROFILES["npu"].supports("float64") and PROFILES["cuda"].supports("float64")


def test_platforms_this_machine_lacks_are_refused_in_one_line():
    assert detect("cpu") == INTERPRETER
    with pytest.raises(PlatformError, match="platform hip needs a ROCm GPU"):
        detect("hip")
    with pytest.raises(PlatformError, match="unknown device 'tpu'"):
        detect("tpu")


def test_a_run_carries_a_descriptor_and_old_stores_still_load(tmp_path):
    now = describe(INTERPRETER)
    assert (now.platform, now.triton_backend, now.arch) == ("interpreter", "interpreter", now.host)
    assert now.torch and now.triton
    # what runs stored before the descriptor existed (an H200 run's environment, as then recorded)
    old = {"platform": "cuda", "python": "3.12.3", "torch": "2.11.0+cu130", "triton": "3.6.0", "host": "x86_64",
           "cpu_count": "16", "device": "NVIDIA H200", "cuda": "13.0", "driver": "580.159.04", "device_count": "1"}
    with Store(tmp_path / "k.db") as s:
        s.open_run("old", "reference", {}, "cuda", old, 1)
        s.open_run("new", "reference", {}, "interpreter", now.to_dict(), 2)
        runs = {r.name: r for r in s.runs()}
    d = Descriptor.from_dict(runs["old"].environment, runs["old"].platform)
    assert (d.device, d.runtime, d.driver, d.device_count, d.arch) == ("NVIDIA H200", "CUDA 13.0", "580.159.04", 1,
                                                                        None)
    assert d.triton_backend == "cuda"
    assert Descriptor.from_dict(runs["new"].environment) == now


def _judge(op: str, unsupported: tuple[str, ...]):
    code = (solutions_dir() / "aten" / f"{op}.py").read_text()
    plan = Plan(("small",), unsupported_dtypes=unsupported)
    return judge(Request(f"aten::{op}", code, INTERPRETER, secrets.randbits(47), plan))


def test_cases_in_a_dtype_the_platform_lacks_are_unsupported_not_failed():
    all_small = registry.get("aten::sin").select_cases(sizes=("small",))
    fp64 = [c for c in all_small if "float64" in c.dtypes]
    assert fp64
    v = _judge("sin", ("float64", "complex128"))
    assert v.status is Status.PASS
    assert len(v.cases) == len(all_small) - len(fp64)
    assert v.extra["unsupported"] == {"cases": len(fp64), "dtypes": ["float64"]}
    assert f"{len(fp64)} cases in float64 unsupported" in v.reason


def test_an_operator_with_no_runnable_case_is_unsupported_and_not_held_against_the_model():
    v = _judge("add", ("bfloat16", "float16", "float32"))
    assert v.status is Status.UNSUPPORTED and not v.status.counts_against_model
    assert not v.cases


def test_prompts_carry_the_profile_hint_and_only_cases_the_platform_runs():
    op = registry.get("aten::sin")
    npu = prompts.render(op, "llm", prompts.platform_named("npu"))
    assert "Ascend NPU" in npu and "Cases in complex128, float64 are not run" in npu
    assert "--device npu" in prompts.render(op, "agent", prompts.platform_named("npu"))
    public = prompts.public_cases(op, prompts.platform_named("cuda"))
    assert any("float64" in c for c in public)
    assert not any("float64" in c for c in prompts.public_cases(op, prompts.platform_named("npu")))
    with pytest.raises(prompts.PromptError, match="unknown platform 'tpu'"):
        prompts.platform_named("tpu")


def test_this_interpreter_runs_a_loop_over_a_runtime_bound():
    from kernelgenbench.platforms.probe import interpreter_problem

    assert interpreter_problem() is None


def test_an_interpreter_that_cannot_loop_is_refused_before_any_candidate_is_judged(monkeypatch, tmp_path, capsys):
    """Triton 3.6's interpreter on numpy 2.4 fails every kernel looping over a runtime bound: the
    run must stop with the reason in one line, not judge honest candidates as runtime errors."""
    from kernelgenbench import cli
    from kernelgenbench.platforms import probe

    why = "the Triton 3.6.0 interpreter cannot run a loop over a runtime bound with numpy 2.5.2"
    monkeypatch.setattr(probe, "interpreter_problem", lambda: why)
    with pytest.raises(PlatformError, match="numpy 2.5.2"):
        detect("cpu")
    db = tmp_path / "k.db"
    monkeypatch.setattr(sys, "argv", ["kgbench", "run", "--method", "reference", "--ops", "aten::mm",
                                      "--device", "cpu", "--db", str(db)])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    printed = capsys.readouterr().err
    assert exit_.value.code == 2 and why in " ".join(printed.split())
    assert not db.exists() or not Store(db).runs()


@pytest.mark.parametrize("name", [n for n in PROFILES if n != "interpreter"])
def test_every_accelerator_pins_a_worker_with_its_own_variable_and_asks_ray_for_its_device(name, tmp_path):
    from kernelgenbench.execute.cluster import task_options
    from kernelgenbench.platforms import platform_of
    from kernelgenbench.sandbox.runner import worker_env

    p = PROFILES[name]
    assert p.accelerated and p.visible_devices
    assert worker_env(platform_of(p, 2), tmp_path, 1)[p.visible_devices] == "1"
    options = task_options(p)
    asked = options.get("num_gpus") and "GPU" or next(iter(options.get("resources", {})), None)
    assert options["num_cpus"] == 1 and asked == p.ray_resource
    quarter = task_options(p, 0.25)  # a timing task among four on one device
    assert quarter.get("num_gpus", quarter.get("resources", {}).get(p.ray_resource)) == 0.25


def test_the_interpreter_pins_nothing_and_asks_ray_for_a_cpu_only(tmp_path, monkeypatch):
    from kernelgenbench.execute.cluster import task_options
    from kernelgenbench.sandbox.runner import worker_env

    for p in PROFILES.values():
        if p.visible_devices:
            monkeypatch.delenv(p.visible_devices, raising=False)
    env = worker_env(INTERPRETER, tmp_path, None)
    assert not any(p.visible_devices in env for p in PROFILES.values() if p.visible_devices)
    assert not PROFILES["interpreter"].accelerated and task_options(PROFILES["interpreter"]) == {"num_cpus": 1}


def test_timing_spreads_over_every_device_of_a_rocm_host_as_of_a_cuda_one():
    from kernelgenbench.execute.local import LocalPool
    from kernelgenbench.platforms import platform_of

    held = []
    list(LocalPool(platform_of(PROFILES["hip"], 2), workers=4).time_each(lambda j, d: held.append(d), range(6)))
    assert sorted(set(held)) == [0, 1]


def test_timing_runs_where_the_event_clock_does_and_is_refused_in_one_line_elsewhere(monkeypatch):
    from kernelgenbench import api
    from kernelgenbench.platforms import platform_of

    monkeypatch.setattr(api, "detect", lambda device=None: platform_of(PROFILES["hip"]))
    assert api.time_platform("hip").name == "hip"
    assert api.platform_and_timing("hip", None)[1] is True
    for name in ("xpu", "npu", "musa", "mlu"):
        monkeypatch.setattr(api, "detect", lambda device=None, n=name: platform_of(PROFILES[n]))
        with pytest.raises(api.UsageError, match=f"timing \\(--perf\\) on {name} is not implemented"):
            api.time_platform(name)
        assert api.platform_and_timing(name, None)[1] is False
