#!/usr/bin/env bash
# Take a device call's results home: unpack FILES_AT/results.tgz into runs/out-N and install its store
# as runs/h200.db, so the next call (carry: ["runs/h200.db"]) resumes from it instead of the old one.
# Usage: bash benchmarks/take_results.sh FILES_AT
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:?usage: take_results.sh FILES_AT}
dest=runs/out-$(date +%H%M%S)
mkdir -p "$dest"
tar xzf "$src/results.tgz" -C "$dest"
cp "$dest/out/h200.db" runs/h200.db
echo "unpacked into $dest; runs/h200.db is the call's store"
