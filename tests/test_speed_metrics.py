"""Speed metrics against hand-computed examples (DESIGN.md, Metrics)."""

from __future__ import annotations

import math

import pytest

from kernelgenbench import metrics as m
from kernelgenbench.store import Row


def test_geomean_median_iqm_by_hand():
    assert m.geomean([1.0, 4.0]) == pytest.approx(2.0)
    assert m.geomean([2.0, 8.0, 4.0]) == pytest.approx(4.0)
    assert m.median([3.0, 1.0, 2.0]) == 2.0 and m.median([4.0, 1.0, 3.0, 2.0]) == 2.5
    # 8 values: drop 2 at each end, mean of 3, 4, 5, 6
    assert m.iqm([1, 2, 3, 4, 5, 6, 7, 100]) == pytest.approx(4.5)
    with pytest.raises(ValueError):
        m.geomean([1.0, 0.0])


def test_two_level_geomean_weighs_operators_not_cases():
    # operator a: cases 2x and 8x -> 4x; operator b: one case at 1x -> 1x; method: sqrt(4 * 1) = 2
    s = m.method_speedup({"a": [2.0, 8.0], "b": [1.0]})
    assert s is not None and s.operators == 2
    assert s.geomean == pytest.approx(2.0) and s.median == pytest.approx(2.5) and s.iqm == pytest.approx(2.5)
    assert m.method_speedup({}) is None
    assert m.case_speedup(3.0, 1.5) == 2.0


def test_fast_p_counts_failures_as_slow():
    speedups = {"a": 2.5, "b": 1.2, "c": 0.7, "d": None}
    assert m.fast_p(speedups, 0.0) == 0.75
    assert m.fast_p(speedups, 1.0) == 0.5
    assert m.fast_p(speedups, 2.0) == 0.25
    assert m.fast_p({}, 1.0) == 0.0


def test_matched_set_is_what_every_run_passed():
    assert m.matched_set({"x": {"a", "b", "c"}, "y": {"b", "c", "d"}, "z": {"c", "b"}}) == {"b", "c"}
    assert m.matched_set({}) == set()


def test_bootstrap_ci_brackets_the_statistic_and_is_reproducible():
    values = [0.8, 1.0, 1.1, 1.3, 2.0, 2.2, 0.9, 1.5]
    lo, hi = m.bootstrap_ci(values, m.geomean, seed=7)
    assert lo <= m.geomean(values) <= hi and lo < hi
    assert (lo, hi) == m.bootstrap_ci(values, m.geomean, seed=7)
    same = m.bootstrap_ci([1.5] * 5, m.geomean)
    assert same == (pytest.approx(1.5), pytest.approx(1.5))


def test_pass_at_k_by_hand():
    # n=5, c=2: pass@1 = 2/5; pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert m.pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert m.pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert m.pass_at_k(5, 0, 3) == 0.0 and m.pass_at_k(5, 4, 2) == 1.0
    assert math.isclose(m.pass_at_k(10, 3, 10), 1.0)


def row(op: str, status: str, speedup: float | None, sample: int = 0, flagged: int = 0) -> Row:
    return Row("r", op, op.split("::")[0], sample, 0, status, "", None, None, 1, 1.0, speedup=speedup,
               flagged=flagged)


def test_an_operator_speedup_is_its_first_passing_sample():
    rows = [row("aten::a", "wrong_result", None, 0), row("aten::a", "pass", 2.0, 1), row("aten::a", "pass", 9.0, 2),
            row("aten::b", "hack_timing", None)]
    assert m.operator_speedups(rows) == {"aten::a": 2.0, "aten::b": None}


def test_speed_summary_by_hand():
    rows = [row("aten::a", "pass", 4.0), row("aten::b", "pass", 1.0, flagged=2), row("aten::c", "pass", 0.25),
            row("aten::d", "wrong_result", None)]
    s = m.speed_summary(rows, "all")
    assert (s.operators, s.timed, s.flagged_cases) == (4, 3, 2)
    assert s.speedup.geomean == pytest.approx(1.0) and s.speedup.median == 1.0
    assert s.fast[0.0] == 0.75 and s.fast[1.0] == 0.25 and s.fast[2.0] == 0.25
    assert s.ci[0] <= 1.0 <= s.ci[1]
