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
# what the next call will carry, so a call that resumes a run can be checked against it
python3 - runs/h200.db <<'PY'
import sqlite3, sys
with sqlite3.connect(sys.argv[1]) as c:
    for name, v, t in c.execute("SELECT r.name, COUNT(v.attempt_id), COUNT(t.attempt_id) FROM runs r JOIN attempts a "
                                "ON a.run_id = r.id LEFT JOIN verdicts v ON v.attempt_id = a.id LEFT JOIN timings t ON "
                                "t.attempt_id = a.id GROUP BY r.id ORDER BY r.created DESC LIMIT 3"):
        print(f"  run {name}: {v} verdicts, {t} timings")
PY
