"""Tests run on the CPU through the Triton interpreter; workers inherit TRITON_INTERPRET=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")

CANDIDATES = Path(__file__).parent / "candidates"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def candidate():
    """Path of a test candidate by file stem."""
    return lambda stem: CANDIDATES / f"{stem}.py"
