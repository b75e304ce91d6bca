"""The header of a corpus file (tests/cheats/, tests/genuine/): `# key: value` lines at its top."""

from __future__ import annotations

from pathlib import Path


def header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# ") or ":" not in line:
            break
        key, _, value = line[2:].partition(":")
        fields[key.strip()] = value.strip()
    return fields
