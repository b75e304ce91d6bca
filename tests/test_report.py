"""Reports a spreadsheet and a markdown viewer read correctly, with the speed figures computed
as DESIGN.md defines them (checked here against hand-computed values)."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from kernelgenbench import api
from kernelgenbench.store import Store
from kernelgenbench.verify.timing import CaseTiming, Stats
from kernelgenbench.verify.verdict import Status, Verdict


def timed(op: str, speedups: list[float], status: Status = Status.PASS, floor: float | None = None) -> Verdict:
    cases = [CaseTiming(f"case {i}", op, Stats(100.0, 90.0, 110.0, 100), Stats(100.0 / s, 1.0, 2.0, 100),
                        100.0, 100.0 / s, floor, "events").to_dict() for i, s in enumerate(speedups)]
    baseline = "reference" if op.startswith("vllm::") else "library"
    return Verdict(op=op, status=status, reason="timed" if status is Status.PASS else "thread(s) started",
                   layer="timing", extra={"timing": {"cases": cases, "clock": {}, "baseline": baseline}})


def make_run(store: Store, name: str, results: dict[str, tuple[Status, list[float] | None]]) -> None:
    run = store.open_run(name, "files", {"samples": 1, "timing": {"graph": False}}, "cuda",
                         {"device": "NVIDIA H200", "torch": "2.11"}, 1)
    for op, (status, speedups) in results.items():
        aid = store.add_attempt(run.id, op, "files", "code")
        store.put_verdict(aid, Verdict(op=op, status=status, reason="r"))
        if speedups is not None:
            store.put_timing(aid, timed(op, speedups))


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "k.db"
    with Store(path) as store:
        make_run(store, "a", {"aten::add": (Status.PASS, [2.0, 8.0]),  # operator: 4.0
                              "aten::mul": (Status.PASS, [1.0]),
                              "vllm::rms_norm": (Status.PASS, [0.5, 0.5]),
                              "cublas::cublasSaxpy_v2": (Status.WRONG_RESULT, None)})
        make_run(store, "b", {"aten::add": (Status.PASS, [1.0]), "aten::mul": (Status.WRONG_RESULT, None),
                              "vllm::rms_norm": (Status.PASS, [2.0]),
                              "cublas::cublasSaxpy_v2": (Status.PASS, [3.0])})
        aid = store.add_attempt(store.find_run("b").id, "aten::mm", "files", "code")
        store.put_verdict(aid, Verdict(op="aten::mm", status=Status.PASS, reason="r"))
        store.put_timing(aid, timed("aten::mm", [1.0], Status.HACK_TIMING))
    return str(path)


def md_tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip("|").split("|")])
        elif current:
            tables.append(current)
            current = []
    return tables


def test_markdown_tables_are_well_formed_and_carry_the_speed_view(db):
    text = api.report(db, "a", "md")
    tables = md_tables(text)
    assert len(tables) == 5  # by source, speed, by operator; the failure taxonomy's by family and semantics
    for table in tables:
        assert all(len(row) == len(table[0]) for row in table), table
    speed = {row[0]: dict(zip(tables[1][0], row)) for row in tables[1][2:]}
    overall = math.exp((math.log(4.0) + math.log(1.0) + math.log(0.5)) / 3)
    assert speed["all"]["speed-up geomean (x)"] == f"{overall:.3f}"
    assert speed["all"]["speed-up median (x)"] == "1.000"
    assert speed["all"]["fast_1 (%)"] == "25.0"  # add only, of 4 operators
    assert speed["aten"]["speed-up geomean (x)"] == "2.000"
    ops = {row[0]: dict(zip(tables[2][0], row)) for row in tables[2][2:]}
    assert ops["aten::add"]["speed-up (x)"] == "4.000"
    assert ops["cublas::cublasSaxpy_v2"]["speed-up (x)"] == ""


def test_a_speed_up_over_a_stand_in_baseline_is_named_as_such(db):
    text = api.report(db, "a", "md")
    ops = {row[0]: dict(zip(md_tables(text)[2][0], row)) for row in md_tables(text)[2][2:]}
    assert ops["aten::add"]["speed-up over"] == "library kernel"
    assert ops["vllm::rms_norm"]["speed-up over"] == "torch reference"
    assert ops["cublas::cublasSaxpy_v2"]["speed-up over"] == ""  # not timed
    assert "no library kernel was importable: vllm::rms_norm;" in text


def test_failed_timing_overrides_a_passed_verification(db):
    ops = {row["op"]: row for row in json.loads(api.report(db, "b", "json"))["operators"]}
    assert ops["aten::mm"]["status"] == "hack_timing"
    assert ops["aten::mm"]["reason"].startswith("timing: thread")
    assert ops["aten::mm"]["speedup"] is None


def test_csv_is_one_rectangular_table(db):
    rows = list(csv.reader(io.StringIO(api.report(db, "a", "csv"))))
    assert len(rows) == 5 and all(len(r) == len(rows[0]) for r in rows)
    assert "speed-up (x)" in rows[0]


def test_json_has_the_speed_view(db):
    data = json.loads(api.report(db, "a", "json"))
    overall = [s for s in data["speed"] if s["group"] == "all"][0]
    assert overall["timed_passes"] == 3 and overall["fast_p"]["0.8"] == 0.5
    lo, hi = overall["geomean_ci95"]
    assert lo <= overall["geomean"] <= hi


def test_comparison_uses_only_the_matched_set(db):
    text = api.report(db, ["a", "b"], "md")
    table = md_tables(text)[0]  # then the difficulty ranking and the failure taxonomy
    rows = {r[0]: dict(zip(table[0], r)) for r in table[2:]}
    assert rows["a"]["matched set (operators)"] == "2"  # add and rms_norm: passed and timed by both
    assert rows["a"]["speed-up geomean on matched set (x)"] == f"{math.sqrt(4.0 * 0.5):.3f}"
    assert rows["b"]["speed-up geomean on matched set (x)"] == f"{math.sqrt(1.0 * 2.0):.3f}"
    assert rows["a"]["method"] == "files" and rows["a"]["timed with"] == "CUDA events"
    parsed = list(csv.reader(io.StringIO(api.report(db, ["a", "b"], "csv"))))
    assert len(parsed) == 3 and all(len(r) == len(parsed[0]) for r in parsed)


def test_a_case_beyond_the_floor_is_counted_and_capped(tmp_path):
    path = tmp_path / "f.db"
    with Store(path) as store:
        run = store.open_run("f", "files", {"samples": 1}, "cuda", {}, 1)
        aid = store.add_attempt(run.id, "aten::add", "files", "code")
        store.put_verdict(aid, Verdict(op="aten::add", status=Status.PASS, reason="r"))
        verdict = timed("aten::add", [100.0], floor=10.0)  # candidate 1 us; the bytes need 10 us
        store.put_timing(aid, Verdict(op="aten::add", status=Status.PASS, reason="t", layer="timing",
                                      extra={"timing": {"cases": verdict.extra["timing"]["cases"]}}))
    data = json.loads(api.report(str(path), "f", "json"))
    assert data["operators"][0]["speedup"] == pytest.approx(10.0)
    assert data["speed"][-1]["cases_over_bandwidth_floor"] == 1


def test_a_verdict_holding_nan_and_infinity_still_reports(tmp_path):
    """A candidate's error figures can be NaN or infinite; Python's JSON stores them, SQLite's JSON
    functions reject them: the report reads every verdict whatever its figures."""
    path = tmp_path / "n.db"
    with Store(path) as store:
        run = store.open_run("n", "files", {"samples": 1}, "cuda", {}, 1)
        aid = store.add_attempt(run.id, "aten::add", "files", "code")
        store.put_verdict(aid, Verdict(op="aten::add", status=Status.WRONG_RESULT, reason="nan",
                                       extra={"figures": {"max_err": math.nan, "ratio": math.inf},
                                              "unsupported": {"cases": 2}}))
        (row,) = list(store.rows(run.id))
    assert row.status == "wrong_result" and row.unsupported == 2
    assert "wrong_result" in api.report(str(path), "n", "md")


def _op_row(run: str, op: str, status: str, speedup: float | None):
    from kernelgenbench.store import Row

    return Row(run, op, "aten", 0, 0, status, None, None, None, 1, 1.0, speedup=speedup, baseline="library")


def test_a_later_run_is_set_against_the_first_with_paired_intervals():
    from kernelgenbench.metrics import differences

    ops = [f"aten::op{i}" for i in range(12)]
    base = [_op_row("a", op, "pass", 1.0 + 0.1 * i) for i, op in enumerate(ops)]
    faster = [_op_row("b", op, "pass", 1.5 * (1.0 + 0.1 * i)) for i, op in enumerate(ops)]
    same = [_op_row("c", op, "pass", (1.0 + 0.1 * i) * (1.01 if i % 2 else 0.99)) for i, op in enumerate(ops)]
    worse = [_op_row("d", op, "pass" if i < 3 else "wrong_result", 1.0 + 0.1 * i if i < 3 else None)
             for i, op in enumerate(ops)]
    found = {d.run: d for d in differences({"a": base, "b": faster, "c": same, "d": worse})}
    assert found["b"].speed == pytest.approx(1.5) and found["b"].verdict == "accuracy within noise, faster"
    assert found["c"].verdict == "accuracy within noise, speed within noise"
    assert found["d"].accuracy == pytest.approx(-0.75) and found["d"].verdict.startswith("accuracy lower")
    assert found["d"].speed_pairs == 3
