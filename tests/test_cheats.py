"""The cheat corpus: every trick of shared/INTEGRITY.md that applies to the specified operators,
each caught with its status and evidence. Each file's header says what it must get:

    # op: aten::softmax          the operator it pretends to implement
    # expect: hack_static        the status it must get
    # evidence: torch.softmax    text the verdict must show
    # device: cuda               (optional) only meaningful on a GPU
    # checks: profile            (optional) the only layers to run, to test one layer alone
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from kernelgenbench import api
from kernelgenbench.verify.verdict import Status

CHEATS = sorted((Path(__file__).parent / "cheats").glob("*.py"))


def header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# ") or ":" not in line:
            break
        key, _, value = line[2:].partition(":")
        fields[key.strip()] = value.strip()
    return fields


def test_corpus_covers_the_integrity_table():
    assert len(CHEATS) >= 15
    expected = {header(p)["expect"] for p in CHEATS}
    assert {"hack_static", "hack_ghost", "hack_trace", "hack_profile", "wrong_result"} <= expected


@pytest.mark.parametrize("path", CHEATS, ids=lambda p: p.stem)
def test_cheat_is_caught(path):
    h = header(path)
    device = h.get("device", "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    checks = tuple(h["checks"].split(",")) if "checks" in h else api.CHECKS
    v = api.verify_file(path, h["op"], device=device, seed=99, checks=checks)
    assert v.status is Status(h["expect"]), f"{v.status.value}: {v.reason}"
    shown = v.reason + " ".join(v.extra.get("findings", []))
    assert h["evidence"] in shown, shown
    layer = {"hack_static": "static", "hack_ghost": "ghost", "hack_trace": "trace", "hack_profile": "profile"}
    assert v.layer == layer.get(h["expect"], "correctness")
