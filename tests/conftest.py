"""Tests run on the CPU through the Triton interpreter; workers inherit TRITON_INTERPRET=1."""

from __future__ import annotations

import datetime
import os
from collections import defaultdict
from pathlib import Path

import pytest

from .sweep import sample

os.environ.setdefault("TRITON_INTERPRET", "1")
SWEEP_CAP = int(os.environ.get("KGB_SWEEP_CAP", "12"))  # parametrisations of one `sweep` test in a sample


def pytest_addoption(parser):
    parser.addoption("--sweep", choices=("sample", "full"), default=os.environ.get("KGB_SWEEP", "sample"),
                     help="tests marked `sweep` (one per operator or corpus file): a daily sample of at most "
                          f"{SWEEP_CAP} per test function, or all of them")


def _salt() -> str:
    return os.environ.get("KGB_SWEEP_SALT") or datetime.datetime.now(datetime.timezone.utc).date().isoformat()


def pytest_configure(config):
    """One salt for the whole session: pytest-xdist's workers collect on their own, and must sample
    the same tests even if the session starts just before midnight (UTC)."""
    os.environ.setdefault("KGB_SWEEP_SALT", _salt())


def pytest_report_header(config):
    if config.getoption("--sweep") == "full":
        return "sweep: full"
    return f"sweep: sample (at most {SWEEP_CAP} per test function; KGB_SWEEP_SALT={_salt()})"


def pytest_collection_modifyitems(config, items):
    if "vllm" not in (config.getoption("markexpr") or ""):  # an optional job: `pytest -m vllm`
        skip = pytest.mark.skip(reason="vLLM CPU twins: `bash scripts/vllm_cpu.sh`, then `pytest -m vllm`")
        for item in items:
            if item.get_closest_marker("vllm"):
                item.add_marker(skip)
    if config.getoption("--sweep") == "full":
        return
    groups: dict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        if item.get_closest_marker("sweep"):
            groups[item.nodeid.split("[", 1)[0]].append(item)
    dropped = []
    for group in groups.values():
        kept = sample([i.nodeid for i in group], SWEEP_CAP, _salt())
        dropped += [i for i in group if i.nodeid not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if i not in dropped]

CANDIDATES = Path(__file__).parent / "candidates"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def candidate():
    """Path of a test candidate by file stem."""
    return lambda stem: CANDIDATES / f"{stem}.py"
