"""The Ray executor judges a campaign as Ray tasks (here on a local two-CPU cluster) to the same verdicts
as the local pool; without Ray, `--executor ray` is one line and exit 2."""

from __future__ import annotations

import sys
from importlib.util import find_spec

import pytest

from kernelgenbench import api, cli
from kernelgenbench.store import Store

from .test_campaign import _layout

needs_ray = pytest.mark.skipif(find_spec("ray") is None, reason="ray is not installed (pip install '.[ray]')")


@pytest.fixture(scope="module")
def cluster():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
    yield ray
    ray.shutdown()


def _statuses(result) -> dict[str, str]:
    with Store(result.db) as s:
        return {r.op: r.status for r in s.rows(result.run.id)}


@needs_ray
@pytest.mark.ray
def test_ray_and_local_pool_give_the_same_verdicts(tmp_path, cluster):
    root = _layout(tmp_path, {"silu": "silu_good", "softmax": "softmax_zeros", "add_": "add__writes_a_copy"})
    files = {"method": "files", "dir": str(root), "ops": ["silu", "softmax", "add_", "mean"]}
    reference = {"method": "reference", "ops": ["add", "softmax"]}
    for options in (files, reference):
        results = {kind: api.run(**options, db=tmp_path / f"{kind}.db", device="cpu", tiers=["small"], executor=kind)
                   for kind in ("ray", "local")}
        statuses = {kind: _statuses(r) for kind, r in results.items()}
        assert statuses["ray"] == statuses["local"]
        assert results["ray"].judged == len(options["ops"]) and results["ray"].run.config["workers"] == 2
    assert statuses["ray"] == {"aten::add": "pass", "aten::softmax": "pass"}
    assert cluster.is_initialized()  # a cluster the caller started is left running


@needs_ray
@pytest.mark.ray
def test_ray_runs_jobs_in_tasks_that_pickle(cluster):
    from kernelgenbench.execute.cluster import RayExecutor
    from kernelgenbench.platforms import INTERPRETER

    ex = RayExecutor(INTERPRETER)
    assert (ex.workers, ex.threads) == (2, 1)
    assert sorted(r for _, r in ex.map(_square_and_device, [1, 2, 3])) == [(1, None), (4, None), (9, None)]


def _square_and_device(x: int, device: int | None) -> tuple[int, int | None]:
    return x * x, device


def test_executor_ray_without_ray_is_one_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    monkeypatch.setattr(sys, "argv", ["kgbench", "run", "--ops", "silu", "--device", "cpu", "--executor", "ray",
                                      "--db", str(tmp_path / "k.db")])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and err.startswith("error: --executor ray needs Ray")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "k.db").exists()


@pytest.mark.parametrize("options, message", [
    ({"executor": "slurm"}, "unknown executor 'slurm'"),
    ({"address": "ray://head:10001"}, "goes with --executor ray"),
    ({"timers": 0}, "--timers must be at least 1, not 0"),
    ({"workers": -2}, "--workers must be at least 1, not -2"),
])
def test_executor_options_are_checked(tmp_path, options, message):
    with pytest.raises(api.UsageError, match=message):
        api.run(ops=["silu"], device="cpu", db=tmp_path / "k.db", **options)


def test_an_address_nothing_listens_on_fails_at_once():
    import socket
    import time

    from kernelgenbench.execute.cluster import ExecutorError, check_reachable

    with socket.socket() as s:  # a port just freed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(ExecutorError, match="cannot reach the Ray cluster"):
        check_reachable(f"127.0.0.1:{port}")
    assert time.monotonic() - start < 10
    with pytest.raises(ExecutorError, match="not HOST:PORT"):
        check_reachable("nowhere")
