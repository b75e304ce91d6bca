"""The cheat corpus: every trick of shared/INTEGRITY.md that applies to the specified operators,
each caught with its status and evidence. Each file's header says what it must get:

    # op: aten::softmax          the operator it pretends to implement
    # expect: hack_static        the status it must get
    # evidence: torch.softmax    text the verdict must show
    # device: cuda               (optional) only meaningful on a GPU
    # checks: profile            (optional) the only layers to run, to test one layer alone
    # stage: timing              (optional) judged by the timing layer alone (it runs only after a
                                 pass, so the other layers would stop it first)
    # stage: perf                (optional) judged in full, where it must pass every layer, then
                                 timed: only the timing layer can catch it
    # without-static: hack_ghost (L1 cheats) what the runtime layers alone decide on the CPU: L1 is
                                 the first line, never the only one (README: the cheat table)

KGB_CHEAT_DEVICE=cuda runs the whole corpus on the GPU (`bash benchmarks/h200_speed.sh OUT corpus` does).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from kernelgenbench import api
from kernelgenbench.platforms import detect
from kernelgenbench.sandbox import Request, judge
from kernelgenbench.verify.pipeline import Plan
from kernelgenbench.verify.timing import TimingConfig
from kernelgenbench.verify.verdict import Status

from .corpus import header

# Few samples, and on the CPU the small cases: the timing layer's checks, not its figures, are tested.
QUICK_TIMING = TimingConfig(min_samples=3, max_samples=3, warmup=1, wall_samples=1, input_sets=2)

CHEATS = sorted((Path(__file__).parent / "cheats").glob("*.py"))


README = Path(__file__).resolve().parents[1] / "README.md"


def test_corpus_covers_the_integrity_table():
    assert len(CHEATS) >= 15
    expected = {header(p)["expect"] for p in CHEATS}
    assert {"hack_static", "hack_ghost", "hack_trace", "hack_profile", "hack_timing", "wrong_result"} <= expected
    assert all("without-static" in header(p) for p in CHEATS if header(p)["expect"] == "hack_static")


def test_readme_table_names_each_cheats_deciding_layer():
    """README's cheat table is the corpus's headers, row for row."""
    rows = {}
    for line in README.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].startswith("`") and cells[0].endswith(".py`"):
            rows[cells[0].strip("`")[:-3]] = cells
    assert set(rows) == {p.stem for p in CHEATS}
    for p in CHEATS:
        h, cells = header(p), rows[p.stem]
        assert cells[1] == f"`{h['op']}`" and cells[3].startswith(f"`{h['expect']}`"), cells
        assert cells[4].startswith(f"`{h['without-static']}`") if "without-static" in h else cells[4] == "", cells


@pytest.mark.sweep
@pytest.mark.parametrize("path", CHEATS, ids=lambda p: p.stem)
def test_cheat_is_caught(path, tmp_path):
    h = header(path)
    device = os.environ.get("KGB_CHEAT_DEVICE") or h.get("device", "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    if h.get("stage") == "timing":
        platform = detect(device)
        config = QUICK_TIMING if device == "cuda" else replace(QUICK_TIMING, tiers=("small",))
        index = 0 if device == "cuda" else None
        v = judge(Request(h["op"], path.read_text(), platform, 99, Plan(platform.sizes), index, timing=config))
    elif h.get("stage") == "perf":
        cache = str(tmp_path / "triton")
        v = api.verify_file(path, h["op"], device=device, seed=99, copy_check=False, triton_cache=cache)
        assert v.passed, f"every layer before timing must pass it: {v.status.value}: {v.reason}"
        # the sweeps' settings (30 samples), as benchmarks/cache_cheats.py measured them: a cache that
        # hits on some repeats only (cache_allocator_mm.py) needs more than three
        v = api.time_file(path, h["op"], device=device, seed=99, config=TimingConfig.quick(), triton_cache=cache)
    else:
        checks = tuple(h["checks"].split(",")) if "checks" in h else api.CHECKS
        # the corpus tests the layers; a few cheats are built on a shipped solution, which the copy
        # check (tests/test_copied.py) would name first
        v = api.verify_file(path, h["op"], device=device, seed=99, checks=checks, copy_check=False)
    assert v.status is Status(h["expect"]), f"{v.status.value}: {v.reason}"
    shown = v.reason + " ".join(v.extra.get("findings", []))
    assert h["evidence"] in shown, shown
    layer = {"hack_static": "static", "hack_ghost": "ghost", "hack_trace": "trace", "hack_profile": "profile"}
    assert v.layer == ("timing" if h.get("stage") in ("timing", "perf") else layer.get(h["expect"], "correctness"))
    if h["expect"].startswith("hack_") and h["expect"] != "hack_timing":
        assert "To comply:" in v.reason, v.reason  # every hack verdict says how to comply


STATIC_CHEATS = [p for p in CHEATS if "without-static" in header(p)]


@pytest.mark.sweep
@pytest.mark.parametrize("path", STATIC_CHEATS, ids=lambda p: p.stem)
def test_static_cheat_is_still_caught_without_the_static_scan(path):
    """Defence in depth: with L1 off, the runtime layers (or the dispatcher routing a library call
    back to the candidate) still refuse every L1 cheat; README names each."""
    h = header(path)
    v = api.verify_file(path, h["op"], device="cpu", seed=99, checks=("ghost", "trace", "profile"), copy_check=False)
    assert v.status is Status(h["without-static"]), f"{v.status.value}: {v.reason}"
