"""The statistical judge of random operators: torch's own samplers pass it on every case the suite
draws, and what a cheat or a broken sampler produces (the mean, a constant, a repeated tile, a
bias, a wrong law) fails it. The shipped Triton solutions and the cheat corpus are judged end to
end by the positive-control and cheat sweeps; `benchmarks/random_judge.py` runs 100 seeds."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.inputs import clone_values
from kernelgenbench.verify import statistics
from kernelgenbench.verify.correctness import case_inputs, outputs_of
from kernelgenbench.verify.rules import judge_aten
from kernelgenbench.verify.static import scan

RANDOM = ("bernoulli", "exponential_", "poisson", "rrelu_with_noise")


def draws_of(op_name, case, produce, seed=0):
    op = registry.get(f"aten::{op_name}")
    ov = op.overload(case.overload)
    values = case_inputs(case, seed, "cpu")
    before = clone_values(values)
    args, kwargs = ov.split(values)
    produced = outputs_of(ov, produce(ov, args, kwargs), values)
    return op, ov, before, op.law(ov, before, produced)


def native(op_name):
    op = registry.get(f"aten::{op_name}")
    return lambda ov, args, kwargs: op.native("cpu", ov)(*args, **kwargs)


def statistical_cases(op_name, overload=None):
    op = registry.get(f"aten::{op_name}")
    return [c for c in op.select_cases(sizes=("small",))
            if (overload is None or c.overload == overload)
            and statistics.MIN_DRAWS <= draws_of(op_name, c, native(op_name))[3].count]


@pytest.mark.parametrize("op_name", RANDOM)
def test_torch_samplers_pass_every_case_over_seeds(op_name):
    op = registry.get(f"aten::{op_name}")
    cases = op.select_cases(sizes=("small",))
    for seed in range(3):
        for case in cases:
            found = statistics.judge(draws_of(op_name, case, native(op_name), seed)[3], seed)
            assert found.ok, f"{case.name} (seed {seed}): {found.reason}"
    assert statistical_cases(op_name), "no case has enough draws for the statistical tests"


def test_every_random_operator_has_cases_where_the_tests_have_power():
    for op_name in RANDOM:
        assert len(statistical_cases(op_name)) >= 4, op_name


def test_kolmogorov_p_matches_the_known_critical_values():
    n = 2000
    for p, c in ((0.05, 1.358), (0.01, 1.628), (0.001, 1.949)):
        d = c / (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n))
        assert statistics.kolmogorov_p(d, n) == pytest.approx(p, rel=0.02)


def _exponential(values: torch.Tensor, rate: float = 1.0) -> statistics.Draws:
    op = registry.get("aten::exponential_")
    return op.law(op.overloads[0], {"lambd": rate}, [values])


def test_the_judge_rejects_what_is_not_an_independent_draw():
    g = torch.Generator().manual_seed(5)
    good = torch.empty(64, 96).exponential_(generator=g)
    assert statistics.judge(_exponential(good), 1).ok
    constant = torch.full((64, 96), 1.0)  # the mean
    assert "do not follow the law" in statistics.judge(_exponential(constant), 1).reason
    tiled = good.reshape(-1)[:1024].repeat(6).reshape(64, 96)
    assert "not independent" in statistics.judge(_exponential(tiled), 1).reason
    rows = torch.empty(1, 4096).exponential_(generator=g).expand(3, 4096).contiguous()  # one row for every row
    assert "lag-4096" in statistics.judge(_exponential(rows), 1).reason
    biased = torch.empty(64, 96).exponential_(0.93, generator=g)  # 7.5% too large a mean
    assert not statistics.judge(_exponential(biased), 1).ok
    assert "outside [0, inf)" in statistics.judge(_exponential(-good), 1).reason


def test_bernoulli_probabilities_of_zero_and_one_are_exact():
    op = registry.get("aten::bernoulli")
    ov = op.overload("bernoulli")
    p = torch.tensor([0.0, 1.0, 0.5, 0.0])
    assert op.law(ov, {"self": p}, [torch.tensor([0.0, 1.0, 1.0, 0.0])]).problem is None
    assert "exactly 0 or 1" in op.law(ov, {"self": p}, [torch.tensor([0.0, 1.0, 1.0, 1.0])]).problem
    assert "other than 0 and 1" in op.law(ov, {"self": p}, [torch.tensor([0.0, 1.0, 0.5, 0.0])]).problem


def test_poisson_counts_are_integers_and_rate_zero_gives_zero():
    op = registry.get("aten::poisson")
    ov = op.overload("poisson")
    rate = torch.tensor([0.0, 3.0])
    assert op.law(ov, {"self": rate}, [torch.tensor([0.0, 2.0])]).problem is None
    assert "not counts" in op.law(ov, {"self": rate}, [torch.tensor([0.0, 2.5])]).problem
    assert "rate of 0" in op.law(ov, {"self": rate}, [torch.tensor([1.0, 2.0])]).problem


def test_rrelu_noise_must_be_the_slope_applied():
    op = registry.get("aten::rrelu_with_noise")
    ov = op.overload("rrelu_with_noise")
    x = torch.tensor([-2.0, 3.0, -1.0])
    inputs = {"self": x, "noise": torch.zeros(3), "lower": 0.1, "upper": 0.3, "training": True}
    noise = torch.tensor([0.2, 1.0, 0.15])
    assert op.law(ov, inputs, [x * noise, noise]).problem is None
    assert "self * noise" in op.law(ov, inputs, [torch.where(x > 0, x, x * 0.25), noise]).problem
    too_steep = torch.tensor([0.5, 1.0, 0.5])
    assert "noise outside" in op.law(ov, inputs, [torch.where(x > 0, x, x * 0.5), too_steep]).problem
    eval_inputs = {**inputs, "training": False}
    assert op.law(ov, eval_inputs, [torch.tensor([-0.4, 3.0, -0.2]), torch.zeros(3)]).problem is None
    assert "left as it came" in op.law(ov, eval_inputs, [torch.tensor([-0.4, 3.0, -0.2]), noise]).problem


def test_rounding_interval_brackets_each_low_precision_value():
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        x = torch.tensor([0.0, 1e-3, 0.7, 3.0, 200.0], dtype=dtype)
        lo, hi = statistics.rounding_interval(x)
        assert bool((lo < x.double()).all() and (x.double() < hi).all())
        inside = (lo + (hi - lo) * 0.49).to(dtype)  # a real inside the interval rounds to the value
        assert torch.equal(inside[1:], x[1:])


def test_a_seed_draw_is_allowed_to_random_operators_only():
    seed_draw = ("randint", (0, 2**31 - 1, [2]), {})
    assert judge_aten("random", *seed_draw) is None
    assert judge_aten("compute", *seed_draw).rule == "host-random"
    assert judge_aten("random", "randint", (0, 2**31 - 1, [4096]), {}).rule == "host-random"
    assert judge_aten("random", "rand_like", (torch.empty(3),), {}).rule == "host-compute"
    source = "import torch\n\ndef f(x, generator=None):\n    return torch.randint(0, 9, (2,), generator=generator)\n"
    assert not scan(source, "random")
    assert [f.rule for f in scan(source, "compute")] == ["host-random"]
