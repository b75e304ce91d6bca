"""The command line: one clear line and a non-zero exit for a user's mistakes; JSON for machines."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys

import pytest

from .conftest import CANDIDATES


def kgbench(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelgenbench.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


@pytest.mark.parametrize("args, message", [
    (["verify", str(CANDIDATES / "silu_good.py"), "--op", "aten::nope"], "unknown operator 'aten::nope'"),
    (["verify", "/no/such/file.py", "--op", "silu"], "no such file"),
    (["verify", str(CANDIDATES / "silu_good.py"), "--op", "silu", "--device", "cuda"], "needs a CUDA GPU"),
    (["verify", str(CANDIDATES / "silu_good.py"), "--op", "silu", "--device", "tpu"], "unknown device 'tpu'"),
    (["report", "--db", "/no/such/dir/k.db"], "no database at /no/such/dir/k.db"),
    (["run", "--method", "files", "--db", "/no/such/dir/k.db"], "needs --dir"),
    (["run", "--method", "files", "--dir", "/no/such/dir"], "no such folder"),
    (["run", "--method", "magic"], "unknown method 'magic'"),
    (["verify", "--op", "silu"], "verify needs a candidate FILE and --op OP (or --explain)"),
    (["run", "--db", "/no/such/dir/k.db", "--ops", "silu", "--device", "cpu"], "folder /no/such/dir does not exist"),
    (["verify", str(CANDIDATES / "silu_good.py"), "--op", "silu", "--device", "cpu", "--perf"],
     "timing (--perf) needs a CUDA GPU"),
    (["run", "--ops", "silu", "--device", "cpu", "--perf", "--db", "/tmp/kgb-never.db"],
     "timing (--perf) needs a CUDA GPU"),
    (["run", "--ops", "silu", "--device", "cpu", "--tiers", "huge", "--db", "/tmp/kgb-never.db"],
     "unknown size tier 'huge'"),
    (["ops", "--source", "xla"], "unknown source 'xla'"),
    (["report", "--run", "x"], "No such option: --run (Possible options: --out, --runs) (see `kgbench report --help`)"),
    (["rport"], "No such command 'rport'"),
    (["run", "--workers", "many"], "Invalid value for '--workers'"),
])
def test_user_errors_are_one_line(args, message, monkeypatch, capsys):
    """In this process (a fresh interpreter per case cost 5 s of CI each); the next test crosses a
    real process boundary."""
    from kernelgenbench import cli

    monkeypatch.setattr(sys, "argv", ["kgbench", *args])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert err.strip().startswith("error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err + out


def test_a_user_error_is_one_line_from_the_command_itself():
    r = kgbench("run", "--method", "magic")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().startswith("error: unknown method 'magic'") and len(r.stderr.strip().splitlines()) == 1


def test_binary_file_is_refused(tmp_path):
    f = tmp_path / "k.py"
    f.write_bytes(b"\xff\xfe\x00binary")
    r = kgbench("verify", str(f), "--op", "silu", "--device", "cpu")
    assert r.returncode == 2 and "not a UTF-8 text file" in r.stderr


def test_verify_json_and_exit_codes():
    ok = kgbench("verify", str(CANDIDATES / "silu_good.py"), "--op", "silu", "--device", "cpu", "--json")
    assert ok.returncode == 0
    v = json.loads(ok.stdout)
    assert v["op"] == "aten::silu" and v["status"] == "pass" and v["reason"]
    assert len(v["cases"]) == 36 and {"case", "status", "reason", "figures"} <= set(v["cases"][0])
    bad = kgbench("verify", str(CANDIDATES / "silu_missing_out.py"), "--op", "silu", "--device", "cpu")
    assert bad.returncode == 1 and "COMPILE_ERROR" in bad.stdout and "silu_out" in bad.stdout


def test_ops_lists_all_210_with_coverage():
    r = kgbench("ops")
    assert r.returncode == 0
    assert re.search(r"\d+ of 210 operators specified \(aten \d+/110, vllm \d+/50, cublas \d+/50\)", r.stdout)
    mc = kgbench("ops", "--view", "MC")
    assert "of 110 operators specified" in mc.stdout


def test_show_lists_functions_and_public_cases_only():
    r = kgbench("show", "aten::softmax")
    assert r.returncode == 0
    assert "def softmax_int_out" in r.stdout and "public: softmax.int" in r.stdout
    assert "hidden:" not in r.stdout


def test_run_and_report_in_three_formats(tmp_path):
    root = tmp_path / "c" / "aten"
    root.mkdir(parents=True)
    (root / "silu.py").write_text((CANDIDATES / "silu_good.py").read_text())
    db = str(tmp_path / "k.db")
    r = kgbench("run", "--method", "files", "--dir", str(root.parent), "--ops", "silu,softmax", "--db", db,
                "--device", "cpu")
    assert r.returncode == 0, r.stderr
    md = kgbench("report", "--db", db).stdout
    assert "| aten | 2 | 2 | 1 | 50.0 |" in md
    data = json.loads(kgbench("report", "--db", db, "--format", "json").stdout)
    assert data["by_source"][0]["clean_passes"] == 1
    rows = list(csv.reader(io.StringIO(kgbench("report", "--db", db, "--format", "csv").stdout)))
    assert rows[0][:3] == ["run", "source", "operator"] and len(rows) == 3
    assert all(len(r) == len(rows[0]) for r in rows)


def test_perf_table_shows_each_case_and_the_operator_speedup():
    """`verify --perf` needs a GPU; its table is checked here on a stored timing verdict."""
    from kernelgenbench import cli
    from kernelgenbench.verify.timing import CaseTiming, Stats
    from kernelgenbench.verify.verdict import Status, Verdict

    cases = [CaseTiming(f"silu: case {i}", "silu", Stats(100.0, 95.0, 105.0, 100), Stats(t, t, t, 100), 120.0,
                        t + 20, 30.0, "events", baseline_first_us=(101.0, 99.0),
                        candidate_first_us=(t + 1.25, t + 2)).to_dict() for i, t in enumerate((50.0, 200.0))]
    v = Verdict(op="aten::silu", status=Status.PASS, reason="2 cases timed", layer="timing",
                extra={"timing": {"cases": cases, "clock": {"device": "NVIDIA H200", "flush_bytes": 2 ** 27},
                                  "baseline": "library"}})
    width = cli.out.width
    cli.out.width = 200
    try:
        with cli.out.capture() as captured:
            cli._print_timing(v)
    finally:
        cli.out.width = width
    text = captured.get()
    assert "silu: case 0" in text and "2.000" in text and "0.500" in text
    assert "first sight" in text and "51.2" in text and "201.2" in text  # each case's fastest first sight
    assert "speed-up (geometric mean of 2 cases) over the library kernel: 1.000x" in text and "128 MiB" in text


def test_verify_explain_prints_every_rule_and_how_to_comply():
    r = kgbench("verify", "--explain", "--op", "aten::silu")
    assert r.returncode == 0, r.stderr
    assert "This operator's work is 'compute'" in r.stdout
    for rule in ("host-compute", "data-op-host-move", "lossy-cast", "host-read", "ghost", "profile", "timing"):
        assert f"[{rule}]" in r.stdout
    assert r.stdout.count("to comply:") >= 19
