"""Which per-operator and per-corpus-file tests run: all (`--sweep full`), or a sample.

The sample keeps at most `cap` parametrisations of each test function marked `sweep`, chosen by a
hash of their ids salted with the UTC date, so every parametrisation runs on some day's CI while
one run stays within its time budget as operators are added. The test header prints the salt;
`KGB_SWEEP_SALT=... pytest` reproduces a day's sample.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def sample(ids: Sequence[str], cap: int, salt: str) -> set[str]:
    """The ids kept: all of them when there are at most `cap`, else `cap` of them by salted hash."""
    if len(ids) <= cap:
        return set(ids)
    return set(sorted(ids, key=lambda i: hashlib.sha256(f"{salt}:{i}".encode()).hexdigest())[:cap])
