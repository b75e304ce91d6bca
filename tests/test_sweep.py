"""The sampled sweep: bounded per test function, stable for a salt, and every id's turn comes."""

from __future__ import annotations

from .sweep import sample


def test_a_sample_is_bounded_stable_and_rotates_through_every_id():
    ids = [f"test_x[op{i}]" for i in range(100)]
    assert sample(ids[:10], 48, "2026-12-01") == set(ids[:10])
    day = sample(ids, 48, "2026-12-01")
    assert len(day) == 48 and day == sample(list(reversed(ids)), 48, "2026-12-01")
    assert day != sample(ids, 48, "2026-12-02")
    seen = set().union(*(sample(ids, 48, f"2026-12-{d:02d}") for d in range(1, 31)))
    assert seen == set(ids)
