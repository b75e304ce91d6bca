"""Perturbed twins: derived from their originals, kept out of the 210, and the gap they measure.

The gap is shown end to end with the loopback model server: a scripted model that recites each
original's code for its twin shows a large, significant gap; one that answers both right, none.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kernelgenbench import api
from kernelgenbench.methods.files import candidate_path
from kernelgenbench.methods.reference import solutions_dir
from kernelgenbench.report.gap import MIN_PAIRS, gap
from kernelgenbench.store import Row
from kernelgenbench.suite import registry
from kernelgenbench.suite.catalog import NAMES
from kernelgenbench.suite.registry import UnknownOperator

from .loopback import Item, start

# Cheap pairs in the interpreter (few small cases), from every source.
PAIRS = ("cublas::cublasSaxpy_v2~swapped", "aten::neg~half", "aten::square~signed", "aten::rsqrt~shifted",
         "vllm::rms_norm~eps_out", "aten::floor~half_up")


def test_twins_stay_out_of_the_suite_and_its_views():
    assert len(registry.all_ids()) == 210 and len(registry.specified()) == 210
    twins = registry.twins()
    assert {t.source for t in twins} == {"aten", "vllm", "cublas"}
    assert len({t.id for t in twins}) == len(twins)
    assert not {t.id for t in twins} & set(registry.all_ids())
    for t in twins:
        assert t.name in NAMES[t.source] and t.twin_of == f"{t.source}::{t.name}" and t.perturbation
        assert registry.get(t.id) is t and registry.normalize(t.id) == t.id
        assert candidate_path(solutions_dir(), t.id).is_file(), f"{t.id} has no positive control"
    with pytest.raises(UnknownOperator, match="unknown perturbed twin"):
        registry.get("aten::silu~nosuch")


def test_a_twin_is_its_original_with_the_contract_changed():
    original, twin = registry.get("aten::silu"), registry.get("aten::silu~beta")
    assert [ov.func_name for ov in twin.overloads] == [ov.func_name for ov in original.overloads]
    assert [c.name for c in twin.cases] == [c.name for c in original.cases]
    assert (twin.family, twin.work, twin.tolerance) == (original.family, original.work, original.tolerance)
    assert twin.doc != original.doc and twin.baseline is None and not twin.native_is_library("cpu")


def _kgbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelgenbench.cli", *args], capture_output=True, text=True,
                          timeout=300)


def test_ops_lists_the_twins_and_run_refuses_a_selection_without_any():
    listed = _kgbench("ops", "--perturbed", "--source", "vllm")
    assert listed.returncode == 0 and "vllm::rms_norm~eps_out" in listed.stdout
    assert "aten::" not in listed.stdout and "never counted in MS or MC" in listed.stdout
    r = _kgbench("run", "--ops", "aten::add", "--with-perturbed", "--device", "cpu", "--no-perf")
    assert r.returncode == 2 and "none of the chosen operators has a perturbed twin" in r.stderr


def _reply(op_id: str) -> Item:
    code = candidate_path(solutions_dir(), op_id).read_text()
    return Item(f"Here is the kernel.\n\n```python\n{code}```\n")


def _campaign(tmp_path, monkeypatch, name: str, recite: bool) -> dict:
    """A run of the scripted model over PAIRS' originals with their twins; the JSON report."""
    originals = [registry.get(t).twin_of for t in PAIRS]
    scripts = {o: [_reply(o)] for o in originals}
    scripts |= {t: [_reply(registry.get(t).twin_of if recite else t)] for t in PAIRS}
    state, httpd = start(scripts)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    db = tmp_path / "gap.db"
    try:
        api.run("llm", ops=originals, db=db, device="cpu", name=name, perf=False, with_perturbed=True,
                provider="openai", model="scripted-coder", base_url=state.openai_url,
                copy_check=False)  # the shipped solutions stand in for a model's own code
    finally:
        httpd.shutdown()
    assert {g.op for g in state.generations()} == set(scripts)
    return json.loads(api.report(db, name, "json"))


def test_a_model_reciting_originals_shows_a_significant_gap_and_an_honest_one_none(tmp_path, monkeypatch):
    assert len(PAIRS) >= MIN_PAIRS
    recited = _campaign(tmp_path, monkeypatch, "recites", recite=True)
    assert recited["by_source"][-1]["operators"] == len(PAIRS)  # the suite's figures: originals only
    g = recited["perturbed"]
    assert g["original_accuracy"] == 1.0 and g["twin_accuracy"] == 0.0
    assert g["accuracy_gap"]["value"] == 1.0 and g["accuracy_gap"]["significant"]
    assert {r["op"]: r["status"] for r in recited["perturbed_operators"]} == dict.fromkeys(PAIRS, "wrong_result")

    derived = _campaign(tmp_path, monkeypatch, "derives", recite=False)["perturbed"]
    assert derived["twin_accuracy"] == 1.0 and derived["accuracy_gap"]["value"] == 0.0
    assert not derived["accuracy_gap"]["significant"]
    assert not any(p["flagged"] for p in derived["by_twin"])

    md = api.report(tmp_path / "gap.db", "recites", "md")
    assert "## Perturbed twins: the gap" in md and "| accuracy: original minus twin (points) | 100.0 |" in md
    page = api.report_html(tmp_path / "gap.db", tmp_path / "site", ["recites", "derives"]).read_text()
    gaps = page[page.index('<section id="perturbed">'):page.index('<section id="failures">')]
    assert gaps.count("<h3>") == 2 and gaps.count("<td>significant</td>") == 1  # the reciting run's accuracy


def _row(op: str, sample: int, status: str, speedup: float | None) -> Row:
    return Row("r", op, op.split("::")[0], sample, 0, status, None, None, None, 1, 1.0, speedup=speedup,
               baseline="reference")


def test_speed_gap_is_the_geomean_of_paired_ratios_and_flags_one_operator_over_its_samples():
    twins = [t.id for t in registry.twins()][:MIN_PAIRS]
    rows = []
    for i, t in enumerate(twins):
        rows += [_row(registry.get(t).twin_of, 0, "pass", 2.0 * (1 + i)), _row(t, 0, "pass", 1.0 + i)]
    g = gap(rows)
    assert g is not None and g.speed is not None
    assert g.speed.value == pytest.approx(2.0) and g.speed.significant and not g.accuracy.significant
    # one operator's samples: the twin fails 6 of 6 where the original passes
    one = twins[0]
    per_sample = [r for s in range(MIN_PAIRS) for r in (_row(registry.get(one).twin_of, s, "pass", None),
                                                         _row(one, s, "wrong_result", None))]
    flagged = gap(per_sample)
    assert flagged is not None and flagged.pairs[0].flagged and flagged.pairs[0].accuracy.pairs == MIN_PAIRS
    assert not gap(per_sample[:2 * (MIN_PAIRS - 1)]).pairs[0].flagged  # too few samples to say


@pytest.mark.parametrize("method", ["llm", "agent"])
def test_a_twin_is_asked_for_under_its_originals_id(method):
    """A contamination probe must not announce itself: the model reads the twin's contract (its doc)
    under the original's name, never the twin's id or tag."""
    from kernelgenbench import prompts
    from kernelgenbench.verify.verdict import Status, Verdict

    for twin in registry.twins():
        text = prompts.render(twin, method)
        assert twin.id not in text and "~" not in text, twin.id
        assert f"`{twin.twin_of}`" in text and twin.doc.strip() in text
        told = prompts.feedback(twin, prompts.Judged("wrong_result", f"{twin.id}: output 0 is off",
                                                     Verdict(twin.id, Status.WRONG_RESULT, "off")))
        assert twin.id not in told and twin.twin_of in told


def test_verify_under_the_originals_id_judges_the_twin_in_its_agent_workspace(monkeypatch):
    """The agent's `kgbench` wrapper sets KGB_OP_ALIAS=ORIGINAL=TWIN: the verify command its task shows
    (with the original's id) then judges the twin's contract, which the original's code fails."""
    from kernelgenbench import prompts

    twin = registry.get("aten::neg~half")
    code = candidate_path(solutions_dir(), twin.id)
    monkeypatch.setenv(prompts.ALIAS_ENV, f"{twin.twin_of}={twin.id}")
    v = api.verify_file(code, "aten::neg", device="cpu", public_only=True, seed=3)
    assert v.op == twin.id and v.passed
    original = api.verify_file(candidate_path(solutions_dir(), "aten::neg"), "neg", device="cpu", public_only=True,
                               seed=3, fail_fast=True)
    assert original.op == twin.id and not original.passed
    monkeypatch.delenv(prompts.ALIAS_ENV)
    assert api.verify_file(code, "aten::neg", device="cpu", public_only=True, seed=3, fail_fast=True).op == "aten::neg"
