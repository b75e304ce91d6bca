"""The genuine corpus: honest kernels written the way people and models write them.

A false `hack_*` is as bad a defect as a missed cheat. Each file in tests/genuine/ computes every
output value in its own Triton kernels and uses one or more of the host-side idioms the rule allows
(copies into `out`, casts, fills, autotune, self-tests...); every one must pass every layer. Each
file's header names its operator (`# op:`) and idiom (`# idiom:`); `# device: cuda` marks the few
that Triton's interpreter cannot run (libdevice calls return None there). On a GPU,
`bash benchmarks/h200_speed.sh OUT genuine` judges them on the large cases and times them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from kernelgenbench import api
from kernelgenbench.suite import registry
from kernelgenbench.verify.verdict import Status

from .corpus import header

GENUINE = sorted((Path(__file__).parent / "genuine").rglob("*.py"))

# The idioms the corpus must show somewhere, each found in the source itself (not in a header).
IDIOMS = {
    "a result copied into an out= buffer": r"\bout\.copy_\(",
    "resize_ of an output": r"\.resize_\(",
    "an output cast on the host": r"\.to\((self|x|input|out|[a-z_]+)\.dtype\)",
    "empty_like": r"torch\.empty_like\(",
    "new_empty": r"\.new_empty\(",
    "contiguous() of an input": r"\.contiguous\(\)",
    "@triton.autotune": r"@triton\.autotune\(",
    "@triton.heuristics": r"@triton\.heuristics\(",
    "a 2-D launch grid": r"tl\.program_id\(1\)",
    "a persistent kernel": r"tl\.num_programs\(0\)",
    "tl.make_block_ptr": r"tl\.make_block_ptr\(",
    'tl.dot with input_precision="ieee"': r"input_precision=\"ieee\"",
    "libdevice": r"from triton\.language\.extra import libdevice|libdevice\.",
    "a __main__ self-test": r"if __name__ == \"__main__\":",
    "typing hints": r"from typing import",
    "a helper function": r"\ndef _[a-z_]+\(",
    "constants at module level": r"\n[A-Z][A-Z0-9_]* = ",
}


def test_corpus_is_broad():
    assert len(GENUINE) >= 30
    assert sum(not header(p).get("device", "").startswith("cuda") for p in GENUINE) >= 30  # the interpreter's
    ops = {header(p)["op"] for p in GENUINE}
    kinds = {(o.source, o.family, o.work) for o in registry.specified()}
    covered = {(o.source, o.family, o.work) for o in registry.specified() if o.id in ops}
    assert covered == kinds, f"no honest candidate for these (source, family, work): {sorted(kinds - covered)}"
    assert all(header(p).get("idiom") for p in GENUINE)
    sources = [p.read_text() for p in GENUINE]
    missing = [name for name, pattern in IDIOMS.items() if not any(re.search(pattern, s) for s in sources)]
    assert not missing, missing
    assert any(s.count("@triton.jit") >= 2 for s in sources), "several kernels in one file"


@pytest.mark.sweep
@pytest.mark.parametrize("path", GENUINE, ids=lambda p: p.stem)
def test_genuine_candidate_passes_every_layer(path):
    if header(path).get("device", "").startswith("cuda") and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU (benchmarks/genuine.py judges it there)")
    op = header(path)["op"]
    v = api.verify_file(path, op, device="cpu", seed=2026, timeout_s=900)
    assert v.status is Status.PASS, f"{v.status.value}: {v.reason} (case {v.failing_case})\n{v.traceback or ''}"
    assert len(v.cases) == len(registry.get(op).select_cases(sizes=("small",)))
