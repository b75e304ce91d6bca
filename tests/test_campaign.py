"""Campaigns store every attempt once, survive a kill, and never let a candidate lose a stored row."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelgenbench import api
from kernelgenbench.store import Store

from .conftest import CANDIDATES


def _layout(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "cands"
    (root / "aten").mkdir(parents=True)
    for name, stem in files.items():
        shutil.copy(CANDIDATES / f"{stem}.py", root / "aten" / f"{name}.py")
    return root


def test_files_campaign_stores_each_verdict(tmp_path):
    root = _layout(tmp_path, {"silu": "silu_good", "softmax": "softmax_zeros"})
    db = tmp_path / "k.db"
    result = api.run("files", dir=str(root), ops=["silu", "softmax", "mean"], db=db, device="cpu")
    assert (result.judged, result.total) == (3, 3)
    with Store(db) as s:
        by_op = {r.op: r.status for r in s.rows(result.run.id)}
    assert by_op == {"aten::silu": "pass", "aten::softmax": "wrong_result", "aten::mean": "compile_error"}


def test_a_crashing_candidate_leaves_the_store_intact(tmp_path):
    root = _layout(tmp_path, {"silu": "silu_segfault", "softmax": "softmax_zeros"})
    db = tmp_path / "k.db"
    first = api.run("files", dir=str(root), ops=["softmax"], db=db, device="cpu", name="before")
    result = api.run("files", dir=str(root), ops=["silu"], db=db, device="cpu", name="crash")
    with Store(db) as s:
        assert [r.status for r in s.rows(result.run.id)] == ["crash"]
        assert [r.status for r in s.rows(first.run.id)] == ["wrong_result"]
        assert s.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_killed_campaign_resumes_without_duplicates(tmp_path):
    root = _layout(tmp_path, {"silu": "silu_good", "rsqrt": "rsqrt_hang", "softmax": "softmax_zeros"})
    db = tmp_path / "k.db"
    cmd = [sys.executable, "-m", "kernelgenbench.cli", "run", "--method", "files", "--dir", str(root),
           "--ops", "silu,rsqrt,softmax", "--db", str(db), "--device", "cpu", "--name", "killed",
           "--timeout", "20"]  # a hang judged first (workers race for the one slot) costs 20 s, not more
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 120
    judged = 0
    # kill once the first verdict is stored: workers forked from a warm server judge an operator in
    # about 0.3 s, so a coarser poll saw the hang's timeout and the two others stored at once
    while time.time() < deadline and judged == 0:
        time.sleep(0.05)
        if db.exists():
            with Store(db) as s:
                run = s.find_run("killed")
                judged = s.counts(run.id)[1] if run else 0
    assert judged >= 1, "the campaign never stored a verdict"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    with Store(db) as s:
        run = s.find_run("killed")
        attempts, verdicts = s.counts(run.id)
        assert run.finished is None and attempts == 3 and verdicts < 3

    result = api.run("files", dir=str(root), ops=["silu", "rsqrt", "softmax"], db=db, device="cpu",
                     name="killed", timeout_s=20)
    assert result.already_judged == verdicts and result.judged == 3 - verdicts
    with Store(db) as s:
        rows = list(s.rows(result.run.id))
        assert sorted(r.op for r in rows) == ["aten::rsqrt", "aten::silu", "aten::softmax"]
        assert {r.op: r.status for r in rows}["aten::rsqrt"] == "timeout"
        assert s.counts(result.run.id) == (3, 3)
        assert s.find_run("killed").finished is not None


def test_rerunning_a_finished_campaign_judges_nothing_twice(tmp_path):
    root = _layout(tmp_path, {"silu": "silu_good"})
    db = tmp_path / "k.db"
    first = api.run("files", dir=str(root), ops=["silu"], db=db, device="cpu")
    again = api.run("files", dir=str(root), ops=["silu"], db=db, device="cpu")
    assert first.run.id == again.run.id and again.judged == 0 and again.already_judged == 1
    fresh = api.run("files", dir=str(root), ops=["silu"], db=db, device="cpu", fresh=True)
    assert fresh.run.id != first.run.id and fresh.judged == 1


def test_timing_phase_times_each_pass_once_and_resumes(tmp_path):
    """On the CPU the timing layer runs on the host clock (its figures mean nothing here): what is
    tested is that passes, and only passes, are timed after judging, and a cut phase resumes."""
    from kernelgenbench import methods
    from kernelgenbench.execute import run_campaign
    from kernelgenbench.platforms import INTERPRETER
    from kernelgenbench.suite import registry
    from kernelgenbench.verify.pipeline import Plan
    from kernelgenbench.verify.timing import TimingConfig

    root = _layout(tmp_path, {"silu": "silu_good", "softmax": "softmax_zeros"})
    quick = TimingConfig(min_samples=2, max_samples=2, warmup=1, wall_samples=1, input_sets=2, tiers=("small",))
    ops = [registry.get("aten::silu"), registry.get("aten::softmax")]

    def campaign(store, these=ops):
        return run_campaign(store, methods.create("files", dir=str(root)), these, INTERPRETER, name="timed",
                            plan=Plan(("small",)), timing=quick)

    with Store(tmp_path / "k.db") as store:
        started = time.time()
        run = campaign(store).run
        wall = time.time() - started
        rows = {r.op: r for r in store.rows(run.id)}
        assert rows["aten::silu"].status == "pass" and rows["aten::silu"].speedup > 0
        assert rows["aten::softmax"].status == "wrong_result" and rows["aten::softmax"].speedup is None
        assert store.db.execute("SELECT COUNT(*) FROM timings").fetchone()[0] == 1
        verify_s, timing_s = store.phase_walls(run.id)  # the throughput benchmark's two phases, one after the other
        assert verify_s is not None and timing_s is not None and verify_s > 0 and timing_s > 0
        assert verify_s + timing_s <= wall + 0.1
        store.db.execute("DELETE FROM timings")  # as if the run had been killed during timing
        assert [a.op for a in store.untimed_passes(run.id)] == ["aten::silu"]
        campaign(store, ops[1:])  # resumed for another operator: silu's timing waits for its own resume
        assert store.db.execute("SELECT COUNT(*) FROM timings").fetchone()[0] == 0
        campaign(store)
        assert store.db.execute("SELECT COUNT(*) FROM timings").fetchone()[0] == 1
        assert "## Speed" in api.report(str(tmp_path / "k.db"), "timed", "md")


def test_timing_workers_share_the_device_and_one_crowded_out_is_timed_again_alone(tmp_path, monkeypatch):
    """Two timing workers at once (their measurements take turns through the device gate) time both
    passes; a worker that cannot get the device (here: the gate held elsewhere, as by a stuck
    neighbour) is not the candidate's failure: it is timed again alone, and says so."""
    from kernelgenbench import methods
    from kernelgenbench.execute import LocalPool, run_campaign
    from kernelgenbench.platforms import INTERPRETER
    from kernelgenbench.suite import registry
    from kernelgenbench.verify.device_gate import DeviceGate, gate_path
    from kernelgenbench.verify.pipeline import Plan
    from kernelgenbench.verify.timing import TimingConfig

    monkeypatch.setenv("KGB_GATE_DIR", str(tmp_path / "gates"))
    monkeypatch.setenv("KGB_GATE_WAIT_S", "1")
    quick = TimingConfig(min_samples=2, max_samples=2, warmup=1, wall_samples=1, input_sets=2, tiers=("small",))
    ops = [registry.get("aten::silu"), registry.get("aten::zero_")]

    def campaign(store, name, these=ops):
        return run_campaign(store, methods.create("reference"), these, INTERPRETER, name=name,
                            plan=Plan(("small",)), timing=quick, executor=LocalPool(INTERPRETER, workers=2, timers=2))

    with Store(tmp_path / "k.db") as store:
        run = campaign(store, "shared").run
        timings = [store.timing(a.id) for a in store.attempts(run.id)]
        assert [t.status.value for t in timings] == ["pass", "pass"]
        assert not any("timed_alone_after" in t.extra for t in timings)
        silu = next(a for a in store.attempts(run.id) if a.op == "aten::silu")
        store.db.execute("DELETE FROM timings WHERE attempt_id=?", (silu.id,))  # to be timed again
        with DeviceGate(gate_path("cpu")).shared():  # no measurement can start
            campaign(store, "shared", ops[:1])
        timings = [store.timing(silu.id)]
        assert [t.status.value for t in timings] == ["infra_error"]
        assert all("held by another timing worker" in t.reason for t in timings)
        assert all(t.extra["timed_alone_after"].startswith("infra_error: during timing") for t in timings)


def test_the_longest_operators_of_earlier_runs_start_first(tmp_path):
    """On the H200 `sort` (120 s to judge) was started 88 s into a run whose other jobs were done at
    100 s: ordered by earlier runs' times, a long job no longer runs on alone at the end."""
    from kernelgenbench.execute.campaign import longest_first
    from kernelgenbench.verify.verdict import Status, Verdict

    with Store(tmp_path / "k.db") as store:
        for name, seconds in (("a", {"aten::add": 2.0, "aten::sort": 120.0, "aten::mean": 9.0}),
                              ("b", {"aten::add": 4.0, "aten::sort": 100.0, "aten::mean": 1.0})):
            run = store.open_run(name, "reference", {}, "cuda", {}, 1)
            for op, s in seconds.items():
                attempt = store.add_attempt(run.id, op, "reference", "x")
                store.put_verdict(attempt, Verdict(op, Status.PASS, "ok", seconds=s))
        past = store.past_seconds("cuda", "verify")
        assert past == {"aten::add": 3.0, "aten::sort": 110.0, "aten::mean": 5.0}
        assert store.past_seconds("interpreter", "verify") == {}
    ops = ["aten::add", "aten::silu", "aten::mean", "aten::sort"]
    assert longest_first(ops, past, str) == ["aten::silu", "aten::sort", "aten::mean", "aten::add"]


def test_a_phases_wall_time_leaves_out_the_pause_of_a_run_resumed_later(tmp_path):
    """A whole-suite run on the H200 is timed over two device calls: the throughput figure counts
    the time a job of the phase was running, not the minutes between the calls, and the time both
    phases ran at once (session L's runs that timed while verifying) once."""
    from kernelgenbench.verify.verdict import Status, Verdict

    with Store(tmp_path / "k.db") as store:
        run = store.open_run("r", "reference", {}, "cuda", {}, 1)
        for i, (op, start, stop) in enumerate((("aten::add", 0, 10), ("aten::mean", 5, 20), ("aten::sort", 500, 530))):
            attempt = store.add_attempt(run.id, op, "reference", "x")
            store.put_verdict(attempt, Verdict(op, Status.PASS, "ok", seconds=1.0))
            store.put_timing(attempt, Verdict(op, Status.PASS, "ok", seconds=stop - start))
            store.db.execute("UPDATE timings SET created=? WHERE attempt_id=?", (1000.0 + stop, attempt))
            store.db.execute("UPDATE verdicts SET created=? WHERE attempt_id=?", (900.0 + 2 * i, attempt))
        assert store.phase_walls(run.id) == (3.0, 20.0 + 30.0)
        attempt = store.add_attempt(run.id, "aten::mul", "reference", "x")  # verified while others were timed
        store.put_verdict(attempt, Verdict("aten::mul", Status.PASS, "ok", seconds=4.0))
        store.db.execute("UPDATE verdicts SET created=? WHERE attempt_id=?", (1008.0, attempt))
        assert store.phase_walls(run.id) == (7.0, 50.0)
        assert store.busy_wall(run.id) == 3.0 + 50.0  # the overlap counts once


def test_a_folder_of_candidates_per_operator_is_judged_as_its_samples(tmp_path):
    """SOURCE/NAME/*.py: each file one sample, in name order (a model's k samples, the throughput
    benchmark's mixed set); an operator with a plain NAME.py keeps one sample."""
    root = tmp_path / "cands"
    (root / "aten" / "silu").mkdir(parents=True)
    for name, stem in (("0-good", "silu_good"), ("1-broken", "silu_syntax_error"), ("2-raises", "silu_raises")):
        shutil.copy(CANDIDATES / f"{stem}.py", root / "aten" / "silu" / f"{name}.py")
    shutil.copy(CANDIDATES / "softmax_zeros.py", root / "aten" / "softmax.py")
    result = api.run("files", dir=str(root), ops=["silu", "softmax"], db=tmp_path / "k.db", device="cpu",
                     tiers=["small"])
    with Store(tmp_path / "k.db") as store:
        rows = {(r.op, r.sample): r.status for r in store.rows(result.run.id)}
    assert rows == {("aten::silu", 0): "pass", ("aten::silu", 1): "compile_error",
                    ("aten::silu", 2): "runtime_error", ("aten::softmax", 0): "wrong_result"}


@pytest.mark.parametrize(("op", "fifth"), [("aten::silu", "wrong_result"), ("cublas::cublasSgemvBatched", "pass")])
def test_the_throughput_benchmarks_mixed_set_is_judged_one_way_each(tmp_path, op, fifth):
    """benchmarks/mixed_candidates.py: per operator the solution, a truncated file, one that raises,
    one that zeroes its outputs (out= written too; on the H200 a batched cuBLAS routine, whose outputs
    only its pointer arrays reach, came through that one unharmed, so it skips the call) and a corpus
    cheat or the solution again, each failing or passing as its kind must."""
    import subprocess

    out = tmp_path / "mixed"
    subprocess.run([sys.executable, "benchmarks/mixed_candidates.py", "--out", str(out), "--ops", op],
                   check=True, cwd=Path(__file__).resolve().parents[1], capture_output=True)
    result = api.run("files", dir=str(out), ops=[op], db=tmp_path / "k.db", device="cpu", tiers=["small"],
                     copy_check=False)  # built from the solutions, it studies the harness
    with Store(tmp_path / "k.db") as store:
        statuses = [r.status for r in sorted(store.rows(result.run.id), key=lambda r: r.sample)]
    assert statuses == ["pass", "compile_error", "runtime_error", "wrong_result", fifth]


def test_a_slim_store_keeps_only_the_named_runs_whole(tmp_path):
    """benchmarks/slim_store.py: the store carried to the device keeps the named runs with their
    verdicts and timings, drops the rest, and leaves the full store as it was."""
    import subprocess

    from kernelgenbench.verify.verdict import Status, Verdict

    full = tmp_path / "full.db"
    with Store(full) as store:
        for name in ("kept", "dropped"):
            run = store.open_run(name, "reference", {}, "cuda", {}, 1)
            attempt = store.add_attempt(run.id, "aten::add", "reference", "x")
            store.put_verdict(attempt, Verdict("aten::add", Status.PASS, "ok", seconds=1.0))
            store.put_timing(attempt, Verdict("aten::add", Status.PASS, "ok", seconds=2.0))
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "benchmarks/slim_store.py", str(full), str(tmp_path / "slim.db"),
                          "--runs", "kept"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "slim.db") as slim:
        assert [r.name for r in slim.runs()] == ["kept"]
        (row,) = slim.rows(slim.find_run("kept").id)
        assert row.status == "pass"
        assert slim.timing(slim.attempts(slim.find_run("kept").id)[0].id) is not None
    with Store(full) as store:
        assert sorted(r.name for r in store.runs()) == ["dropped", "kept"]
    missing = subprocess.run([sys.executable, "benchmarks/slim_store.py", str(full), str(tmp_path / "x.db"),
                             "--runs", "nowhere"], cwd=root, capture_output=True, text=True)
    assert missing.returncode != 0 and missing.stderr.strip() == f"error: no run nowhere in {full}"


def test_identical_samples_are_timed_once_and_share_that_timing(tmp_path):
    """pass@k without early stopping, or the throughput benchmark's mixed set, judges the same source
    text more than once: it is timed once, and its twins take that timing (marked `same_code_as`),
    also when the run resumes after its twin was timed."""
    from kernelgenbench import methods
    from kernelgenbench.execute import LocalPool, run_campaign
    from kernelgenbench.platforms import INTERPRETER
    from kernelgenbench.suite import registry
    from kernelgenbench.verify.pipeline import Plan
    from kernelgenbench.verify.timing import TimingConfig

    class Counting(LocalPool):
        timed: list[str] = []

        def time_each(self, fn, jobs, slots=None):
            jobs = list(jobs)
            self.timed.extend(job.op for job in jobs)
            return super().time_each(fn, jobs, slots)

    root = tmp_path / "cands"
    (root / "aten" / "silu").mkdir(parents=True)
    for name, stem in (("0-good", "silu_good"), ("1-same", "silu_good"), ("2-broken", "silu_syntax_error")):
        shutil.copy(CANDIDATES / f"{stem}.py", root / "aten" / "silu" / f"{name}.py")
    quick = TimingConfig(min_samples=2, max_samples=2, warmup=1, wall_samples=1, input_sets=2, tiers=("small",))

    def campaign(store, pool):
        return run_campaign(store, methods.create("files", dir=str(root)), [registry.get("aten::silu")], INTERPRETER,
                            name="twins", plan=Plan(("small",)), timing=quick, executor=pool).run

    with Store(tmp_path / "k.db") as store:
        run = campaign(store, Counting(INTERPRETER))
        assert Counting.timed == ["aten::silu"]
        rows = sorted(store.rows(run.id), key=lambda r: r.sample)
        assert [r.status for r in rows] == ["pass", "pass", "compile_error"]
        assert rows[0].speedup > 0 and rows[1].speedup == rows[0].speedup
        first, same = sorted((store.find_attempt(run.id, "aten::silu", s, 0) for s in (0, 1)),
                             key=lambda a: "same_code_as" in store.timing(a.id).extra)
        assert "same_code_as" not in store.timing(first.id).extra  # one was measured, the other took it
        assert store.timing(same.id).extra["same_code_as"] == first.id
        store.db.execute("DELETE FROM timings WHERE attempt_id=?", (same.id,))  # cut before the twin was stored
        Counting.timed.clear()
        campaign(store, Counting(INTERPRETER))
        assert Counting.timed == [] and store.timing(same.id).extra["same_code_as"] == first.id


def test_fail_fast_gives_the_same_verdicts_from_fewer_cases(tmp_path):
    """`fail_fast`: a failing candidate is judged only up to its first failing case, whose status,
    reason and case decide the verdict anyway; a passing one runs every case."""
    root = _layout(tmp_path, {"silu": "silu_good", "softmax": "softmax_zeros"})
    verdicts = {}
    for fast in (False, True):
        result = api.run("files", dir=str(root), ops=["silu", "softmax"], db=tmp_path / f"{fast}.db", device="cpu",
                         tiers=["small"], fail_fast=fast)
        with Store(tmp_path / f"{fast}.db") as store:
            verdicts[fast] = {r.op: r for r in store.rows(result.run.id)}
            assert store.find_run(result.run.id).config["fail_fast"] is fast
    full, fast = verdicts[False], verdicts[True]
    for op in ("aten::silu", "aten::softmax"):
        assert (fast[op].status, fast[op].reason, fast[op].failing_case) == \
            (full[op].status, full[op].reason, full[op].failing_case)
    assert fast["aten::silu"].n_cases == full["aten::silu"].n_cases
    assert fast["aten::softmax"].status == "wrong_result"
    assert fast["aten::softmax"].n_cases < full["aten::softmax"].n_cases


def _worker_caches(monkeypatch) -> list[tuple[str, Path]]:
    """(TRITON_CACHE_DIR, worker folder) of every worker started from here on."""
    from kernelgenbench.sandbox import runner

    seen: list[tuple[str, Path]] = []
    real = runner.worker_env

    def recording(platform, workdir, device_index, extra=None, triton_cache=None):
        env = real(platform, workdir, device_index, extra, triton_cache)
        seen.append((env["TRITON_CACHE_DIR"], workdir))
        return env

    monkeypatch.setattr(runner, "worker_env", recording)
    return seen


def test_a_candidates_compiled_kernels_outlive_its_worker_with_the_default_relative_store(tmp_path, monkeypatch):
    """Verification and timing of a candidate (and later runs of the same source text) share one
    Triton cache beside the store. Each worker runs in a folder of its own that is deleted after
    it: a relative cache path (the default store is `kgbench.db`) landed in there, and on the H200
    a second run of the same 16 solutions compiled all 57 of aten::mm's kernels again."""
    from kernelgenbench.execute import run_campaign
    from kernelgenbench.methods import create
    from kernelgenbench.platforms import INTERPRETER
    from kernelgenbench.suite import registry
    from kernelgenbench.verify.pipeline import Plan
    from kernelgenbench.verify.timing import TimingConfig

    root = _layout(tmp_path, {"silu": "silu_good"})
    caches = _worker_caches(monkeypatch)
    monkeypatch.chdir(tmp_path)
    quick = TimingConfig(min_samples=2, max_samples=2, warmup=1, wall_samples=1, input_sets=2, tiers=("small",))
    with Store("k.db") as store:
        run_campaign(store, create("files", dir=str(root)), [registry.get("aten::silu")], INTERPRETER,
                     name="cache", plan=Plan(("small",)), timing=quick)
    assert len(caches) == 2  # its verification, then its timing
    (verify_cache, verify_dir), (timing_cache, timing_dir) = caches
    assert verify_cache == timing_cache
    assert Path(verify_cache).is_absolute() and Path(verify_cache).parent == tmp_path / "k.db.triton"
    assert Path(verify_cache).is_dir() and not verify_dir.exists() and not timing_dir.exists()


def test_a_single_file_verified_then_timed_can_keep_its_kernels_between_the_two_workers(tmp_path, monkeypatch):
    """`kgbench verify FILE --perf` verifies in one worker and times in another: given one cache
    folder, the second finds what the first compiled (the CLI passes a temporary one to both)."""
    seen = _worker_caches(monkeypatch)
    cache = str(tmp_path / "kernels")
    verdict = api.verify_file(CANDIDATES / "silu_good.py", "aten::silu", device="cpu", seed=3, triton_cache=cache)
    assert verdict.status.value == "pass" and [c for c, _ in seen] == [cache]
