"""The MC view over real interpreter verdicts, relabelled as other platforms' runs.

Only the interpreter runs here: the source run and its rejudges are judged for real, then their
descriptors are rewritten to say cuda, hip and npu (the npu rejudge ran with npu's dtype limits),
and timings are recorded for the "cuda" and "hip" runs, so the report's pairing, maths and layout
are proven without the hardware.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from kernelgenbench import api
from kernelgenbench.execute import run_campaign
from kernelgenbench.methods.stored import StoredMethod
from kernelgenbench.platforms import INTERPRETER, PROFILES, Descriptor
from kernelgenbench.report.mc import mc_tables
from kernelgenbench.store import Store
from kernelgenbench.suite import registry
from kernelgenbench.verify.pipeline import Plan

OPS = ["aten::sin", "aten::add"]


def _relabel(db, run: str, platform: str, speedup: float | None = None) -> None:
    """Say the run was on `platform` (a descriptor as that machine would record it), with `speedup`
    recorded for each of its passed attempts."""
    d = Descriptor(platform, device=f"fake {platform}", arch="fake", triton_backend=PROFILES[platform].triton_backend)
    with sqlite3.connect(db) as c:
        c.execute("UPDATE runs SET platform=?, environment=? WHERE name=?", (platform, json.dumps(d.to_dict()), run))
        if speedup is not None:
            c.execute("INSERT INTO timings SELECT a.id, 'pass', '', ?, 1, 0, '{}', 0 FROM attempts a JOIN verdicts v "
                      "ON v.attempt_id = a.id JOIN runs r ON r.id = a.run_id WHERE r.name=? AND v.status='pass'",
                      (speedup, run))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = tmp_path_factory.mktemp("mc") / "mc.db"
    api.run("reference", ops=OPS, db=db, device="cpu", name="src")
    api.rejudge(db, "src", "cpu", name="src@hip")
    with Store(db) as s:
        run_campaign(s, StoredMethod(db, "src"), registry.select(OPS), INTERPRETER, name="src@npu", check=False,
                     plan=Plan(("small",), unsupported_dtypes=("complex128", "float64")))
    _relabel(db, "src", "cuda", speedup=2.0)
    _relabel(db, "src@hip", "hip", speedup=1.0)
    _relabel(db, "src@npu", "npu")
    return db


def _tables(db):
    with Store(db) as s:
        return mc_tables([(r, list(s.rows(r.id))) for r in s.runs()])


def test_the_rejudge_replays_every_candidate_unchanged_and_links_its_source(store):
    with Store(store) as s:
        src, hip = s.find_run("src"), s.find_run("src@hip")
        assert hip.config["rejudge_of"] == "src" and hip.method == "stored"
        pairs = {(r.op, r.sample, r.code_sha) for r in s.rows(src.id)}
        assert {(r.op, r.sample, r.code_sha) for r in s.rows(hip.id)} == pairs


def test_per_platform_accuracy_counts_unsupported_cases_apart(store):
    t = _tables(store)
    by = {r.platform: r for r in t.results}
    assert t.reference == "cuda" and t.platforms[0] == "cuda"
    assert all((r.operators, r.passed, r.unsupported_ops, r.accuracy) == (2, 2, 0, 1.0) for r in t.results)
    assert by["npu"].unsupported_cases > 0 and by["hip"].unsupported_cases == 0
    assert (by["cuda"].speedup, by["hip"].speedup, by["npu"].speedup) == (2.0, 1.0, None)


def test_the_transfer_matrix_pairs_kernels_and_divides_their_speedups(store):
    cells = {(c.source, c.target): c for c in _tables(store).transfers}
    assert len(cells) == 9
    to_hip = cells["cuda", "hip"]
    assert (to_hip.kernels, to_hip.passed, to_hip.pass_rate, to_hip.timed) == (2, 2, 1.0, 2)
    assert to_hip.speedup_ratio == pytest.approx(0.5) and cells["hip", "cuda"].speedup_ratio == pytest.approx(2.0)
    npu = cells["cuda", "npu"]
    assert (npu.kernels, npu.timed, npu.speedup_ratio) == (2, 0, None)
    assert cells["hip", "npu"].kernels == 2  # two rejudges of one source judged the same kernels
    assert all(cells[p, p].kernels == 0 for p in ("cuda", "hip", "npu"))


def test_a_kernel_judged_once_on_a_platform_counts_once_however_many_runs_passed_it(store, tmp_path):
    """On the H200 the five runs of `mc_transfer.sh` counted each interpreter judgement twice (from
    the CUDA run and from its CUDA rejudge), giving 9 transfers for 3 kernels judged 6 times."""
    db = tmp_path / "mc.db"
    with sqlite3.connect(store) as src, sqlite3.connect(db) as dst:
        src.backup(dst)  # the store's WAL included
    api.rejudge(db, "src", "cpu", name="src@cuda-again")
    _relabel(db, "src@cuda-again", "cuda", speedup=4.0)
    cells = {(c.source, c.target): c for c in _tables(db).transfers}
    assert cells["cuda", "hip"].kernels == 2 and cells["cuda", "npu"].kernels == 2
    assert cells["cuda", "hip"].speedup_ratio == pytest.approx(0.5)  # against the earliest cuda run
    assert cells["cuda", "cuda"].kernels == 2 and cells["cuda", "cuda"].speedup_ratio == pytest.approx(2.0)
    assert cells["hip", "cuda"].kernels == 4  # two cuda runs judged the two kernels hip passed


def test_the_portability_tax_says_when_a_method_reports_no_tokens(store):
    with Store(store) as s:
        s.open_run("gen-npu", "reference", {}, "npu", Descriptor("npu").to_dict(), 3)
    t = _tables(store)
    (tax,) = t.taxes
    assert tax.run == "gen-npu" and "no operator solved on both" in tax.note


def test_kgbench_report_view_mc_renders_markdown_and_json(store):
    cmd = [sys.executable, "-m", "kernelgenbench.cli", "report", "--view", "MC", "--db", str(store)]
    md = subprocess.run(cmd + ["src", "src@hip"], capture_output=True, text=True, timeout=120)
    assert md.returncode == 0, md.stderr
    assert "| **cuda** | - | 100.0% (2/2); speed 0.5x (n=2) |" in md.stdout
    js = json.loads(subprocess.run(cmd + ["--format", "json"], capture_output=True, text=True, timeout=120).stdout)
    assert js["reference"] == "cuda" and len(js["transfers"]) == 9
    bad = subprocess.run(cmd + ["--format", "csv"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "md or json" in bad.stderr


def test_rejudge_on_a_platform_this_machine_lacks_is_one_line_and_exit_2(store):
    r = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "rejudge", "--run", "src", "--platform", "hip",
                        "--db", str(store)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "needs a ROCm GPU" in r.stderr
