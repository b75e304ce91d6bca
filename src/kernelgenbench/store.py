"""SQLite store: the only hand-over between generation, evaluation and reporting.

WAL mode, one transaction per write, and uniqueness constraints on (run, op, sample, round) and on
one verdict per attempt, so a campaign killed at any point resumes without losing or duplicating
a row. A generated attempt is written together with its request, reply and cost in one
transaction, before it is judged: a stored reply is never asked for again.

Besides the harness's verdict statuses (verify/verdict.py), the verdicts table holds one status
decided before judging: `no_code`, a reply (or agent workspace) without a candidate to judge.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .verify.verdict import Status, Verdict

NO_CODE = "no_code"

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    method TEXT NOT NULL,
    config TEXT NOT NULL,
    platform TEXT NOT NULL,
    environment TEXT NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    op TEXT NOT NULL,
    sample INTEGER NOT NULL DEFAULT 0,
    round INTEGER NOT NULL DEFAULT 0,
    method TEXT NOT NULL,
    model TEXT,
    origin TEXT,
    source_code TEXT,
    code_sha TEXT,
    created REAL NOT NULL,
    UNIQUE (run_id, op, sample, round)
);
CREATE TABLE IF NOT EXISTS verdicts (
    attempt_id INTEGER PRIMARY KEY REFERENCES attempts(id),
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    failing_case TEXT,
    layer TEXT,
    worst_ratio REAL,
    n_cases INTEGER NOT NULL,
    seconds REAL NOT NULL,
    detail TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS timings (
    attempt_id INTEGER PRIMARY KEY REFERENCES attempts(id),
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    speedup REAL,
    n_cases INTEGER NOT NULL,
    seconds REAL NOT NULL,
    detail TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS costs (
    attempt_id INTEGER PRIMARY KEY REFERENCES attempts(id),
    tokens_in INTEGER,
    tokens_out INTEGER,
    wall_s REAL
);
CREATE TABLE IF NOT EXISTS exchanges (
    attempt_id INTEGER PRIMARY KEY REFERENCES attempts(id),
    request TEXT NOT NULL,
    reply TEXT,
    finish TEXT,
    tries INTEGER NOT NULL,
    created REAL NOT NULL
);
"""


class StoreError(Exception):
    """The database cannot be opened or is not a KernelGenBench store."""


@dataclass(frozen=True)
class Run:
    id: int
    name: str
    method: str
    config: dict[str, Any]
    platform: str
    environment: dict[str, Any]
    seed: int
    created: float
    finished: float | None


@dataclass(frozen=True)
class Attempt:
    id: int
    run_id: int
    op: str
    sample: int
    round: int
    method: str
    model: str | None
    origin: str | None
    source_code: str | None


@dataclass(frozen=True)
class Row:
    """One attempt with its verdict, as the report reads it."""

    run: str
    op: str
    source: str
    sample: int
    round: int
    status: str | None
    reason: str | None
    failing_case: str | None
    worst_ratio: float | None
    n_cases: int | None
    seconds: float | None
    model: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    wall_s: float | None = None
    speedup: float | None = None  # the operator's speed-up over the native baseline, when timed and passed
    flagged: int = 0  # timed cases faster than the memory-bandwidth floor
    baseline: str | None = None  # what the timing ran against: "library", or "reference" (the torch stand-in)
    code_sha: str | None = None  # the candidate's source hash: pairs one kernel's verdicts across platforms
    unsupported: int = 0  # cases the platform could not run (dtypes its profile lacks), counted apart


@dataclass(frozen=True)
class Exchange:
    """One request to a model or an agent and what came back; tokens are None when not reported."""

    request: Any
    reply: str | None
    finish: str | None = None
    tries: int = 1
    tokens_in: int | None = None
    tokens_out: int | None = None
    wall_s: float | None = None


def code_sha(code: str | None) -> str | None:
    return hashlib.sha256(code.encode()).hexdigest() if code is not None else None


class Store:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            if self.path.parent and not self.path.parent.exists():
                raise StoreError(f"cannot open database {self.path}: folder {self.path.parent} does not exist")
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot open database {self.path}: {e}") from None
        self.lock = threading.RLock()  # campaign threads share one connection; a transaction holds it
        version = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
        if int(version) != SCHEMA_VERSION:
            raise StoreError(f"{self.path} has store schema {version}; this kgbench reads {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _q(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self.lock:
            return self.db.execute(sql, params).fetchall()

    def _one(self, sql: str, params: tuple = ()) -> tuple | None:
        rows = self._q(sql, params)
        return rows[0] if rows else None

    # runs -----------------------------------------------------------------------------------
    def _run(self, row: tuple) -> Run:
        return Run(row[0], row[1], row[2], json.loads(row[3]), row[4], json.loads(row[5]), row[6], row[7], row[8])

    _RUN_COLS = "id, name, method, config, platform, environment, seed, created, finished"

    def find_run(self, ref: str | int | None = None) -> Run | None:
        """A run by name or id; the newest run when `ref` is None."""
        if ref is None:
            row = self._one(f"SELECT {self._RUN_COLS} FROM runs ORDER BY id DESC LIMIT 1")
        elif isinstance(ref, int) or str(ref).isdigit():
            row = self._one(f"SELECT {self._RUN_COLS} FROM runs WHERE id=?", (int(ref),))
        else:
            row = self._one(f"SELECT {self._RUN_COLS} FROM runs WHERE name=?", (ref,))
        return self._run(row) if row else None

    def runs(self) -> list[Run]:
        return [self._run(r) for r in self._q(f"SELECT {self._RUN_COLS} FROM runs ORDER BY id")]

    def open_run(self, name: str, method: str, config: dict[str, Any], platform: str,
                 environment: dict[str, Any], seed: int) -> Run:
        """The run called `name`, created if new; an existing one is resumed as it was configured."""
        existing = self.find_run(name)
        if existing is not None:
            return existing
        self._q(
            "INSERT OR IGNORE INTO runs (name, method, config, platform, environment, seed, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, method, json.dumps(config, sort_keys=True), platform, json.dumps(environment), seed, time.time()),
        )
        run = self.find_run(name)
        assert run is not None
        return run

    def finish_run(self, run_id: int) -> None:
        self._q("UPDATE runs SET finished=? WHERE id=?", (time.time(), run_id))

    # attempts -------------------------------------------------------------------------------
    def _insert_attempt(self, run_id: int, op: str, method: str, source_code: str | None, sample: int,
                        round: int, model: str | None, origin: str | None) -> tuple[int, bool]:
        cur = self.db.execute(
            "INSERT OR IGNORE INTO attempts (run_id, op, sample, round, method, model, origin, source_code, "
            "code_sha, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, op, sample, round, method, model, origin, source_code, code_sha(source_code), time.time()),
        )
        row = self.db.execute("SELECT id FROM attempts WHERE run_id=? AND op=? AND sample=? AND round=?",
                              (run_id, op, sample, round)).fetchone()
        return row[0], cur.rowcount == 1

    def add_attempt(self, run_id: int, op: str, method: str, source_code: str | None, *, sample: int = 0,
                    round: int = 0, model: str | None = None, origin: str | None = None) -> int:
        """Insert once; a second call for the same (run, op, sample, round) returns the first id."""
        with self.lock:
            return self._insert_attempt(run_id, op, method, source_code, sample, round, model, origin)[0]

    def add_generated(self, run_id: int, op: str, method: str, source_code: str | None, *, sample: int,
                      round: int, model: str | None, origin: str | None, exchange: Exchange | None,
                      no_code: str | None = None) -> int:
        """An attempt with its request, reply and cost (and its `no_code` outcome), all or nothing."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                attempt_id, new = self._insert_attempt(run_id, op, method, source_code, sample, round, model,
                                                       origin)
                if new and exchange is not None:
                    self.db.execute(
                        "INSERT INTO exchanges (attempt_id, request, reply, finish, tries, created) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (attempt_id, json.dumps(exchange.request), exchange.reply, exchange.finish, exchange.tries,
                         time.time()))
                    self.db.execute("INSERT OR REPLACE INTO costs VALUES (?, ?, ?, ?)",
                                    (attempt_id, exchange.tokens_in, exchange.tokens_out, exchange.wall_s))
                if new and no_code is not None:
                    self._put_outcome(attempt_id, NO_CODE, no_code, "generation")
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            return attempt_id

    def _attempts(self, where: str, params: tuple) -> list[Attempt]:
        rows = self._q(
            "SELECT a.id, a.run_id, a.op, a.sample, a.round, a.method, a.model, a.origin, a.source_code "
            f"FROM attempts a LEFT JOIN verdicts v ON v.attempt_id = a.id WHERE {where} ORDER BY a.id", params)
        return [Attempt(*r) for r in rows]

    def pending(self, run_id: int) -> list[Attempt]:
        return self._attempts("a.run_id=? AND v.attempt_id IS NULL", (run_id,))

    def attempts(self, run_id: int) -> list[Attempt]:
        return self._attempts("a.run_id=?", (run_id,))

    def find_attempt(self, run_id: int, op: str, sample: int, round: int) -> Attempt | None:
        found = self._attempts("a.run_id=? AND a.op=? AND a.sample=? AND a.round=?", (run_id, op, sample, round))
        return found[0] if found else None

    def exchange(self, attempt_id: int) -> Exchange | None:
        row = self._one("SELECT e.request, e.reply, e.finish, e.tries, c.tokens_in, c.tokens_out, c.wall_s "
                        "FROM exchanges e LEFT JOIN costs c ON c.attempt_id = e.attempt_id WHERE e.attempt_id=?",
                        (attempt_id,))
        return Exchange(json.loads(row[0]), *row[1:]) if row else None

    # verdicts -------------------------------------------------------------------------------
    def put_verdict(self, attempt_id: int, verdict: Verdict) -> None:
        self._q(
            "INSERT OR REPLACE INTO verdicts (attempt_id, status, reason, failing_case, layer, worst_ratio, "
            "n_cases, seconds, detail, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (attempt_id, verdict.status.value, verdict.reason, verdict.failing_case, verdict.layer,
             verdict.worst_ratio, len(verdict.cases), verdict.seconds, json.dumps(verdict.to_dict()), time.time()),
        )

    def _put_outcome(self, attempt_id: int, status: str, reason: str, layer: str) -> None:
        detail = {"status": status, "reason": reason, "layer": layer}
        self.db.execute(
            "INSERT OR REPLACE INTO verdicts (attempt_id, status, reason, failing_case, layer, worst_ratio, "
            "n_cases, seconds, detail, created) VALUES (?, ?, ?, NULL, ?, NULL, 0, 0, ?, ?)",
            (attempt_id, status, reason, layer, json.dumps(detail), time.time()))

    def status(self, attempt_id: int) -> tuple[str, str] | None:
        """(status, reason) of a judged or `no_code` attempt; None while it waits for judging."""
        row = self._one("SELECT status, reason FROM verdicts WHERE attempt_id=?", (attempt_id,))
        return (row[0], row[1]) if row else None

    def verdict(self, attempt_id: int) -> Verdict | None:
        """The harness's verdict; None when there is none (not judged yet, or `no_code`)."""
        row = self._one("SELECT status, detail FROM verdicts WHERE attempt_id=?", (attempt_id,))
        if row is None or row[0] not in Status._value2member_map_:
            return None
        return Verdict.from_dict(json.loads(row[1]))

    def put_cost(self, attempt_id: int, tokens_in: int | None, tokens_out: int | None, wall_s: float | None) -> None:
        self._q("INSERT OR REPLACE INTO costs VALUES (?, ?, ?, ?)", (attempt_id, tokens_in, tokens_out, wall_s))

    # timings --------------------------------------------------------------------------------
    def put_timing(self, attempt_id: int, verdict: Verdict) -> None:
        """A timing verdict; `extra["timing"]` holds the per-case figures."""
        from .verify.timing import operator_speedup

        cases = verdict.extra.get("timing", {}).get("cases", [])
        speedup = operator_speedup(verdict)
        self._q("INSERT OR REPLACE INTO timings VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (attempt_id, verdict.status.value, verdict.reason, speedup, len(cases), verdict.seconds,
                 json.dumps(verdict.to_dict()), time.time()))

    def timing(self, attempt_id: int) -> Verdict | None:
        row = self._one("SELECT detail FROM timings WHERE attempt_id=?", (attempt_id,))
        return Verdict.from_dict(json.loads(row[0])) if row else None

    def timed_twin(self, run_id: int, op: str, source_code: str | None) -> tuple[int, Verdict] | None:
        """An attempt of the run with the same operator and source text that has been timed, with its
        timing: an identical sample needs no measurement of its own."""
        row = self._one("SELECT a.id, t.detail FROM attempts a JOIN timings t ON t.attempt_id = a.id "
                        "WHERE a.run_id=? AND a.op=? AND a.code_sha=? ORDER BY a.id LIMIT 1",
                        (run_id, op, code_sha(source_code)))
        return (row[0], Verdict.from_dict(json.loads(row[1]))) if row else None

    def last_activity(self, run_id: int) -> float | None:
        """When the run's last verdict or timing was stored."""
        row = self._one("SELECT MAX(x) FROM (SELECT v.created AS x FROM verdicts v JOIN attempts a "
                        "ON a.id = v.attempt_id WHERE a.run_id=? UNION ALL SELECT t.created FROM timings t "
                        "JOIN attempts a ON a.id = t.attempt_id WHERE a.run_id=?)", (run_id, run_id))
        return row[0] if row else None

    def past_seconds(self, platform: str, phase: str) -> dict[str, float]:
        """Each operator's median seconds of judging (`phase` "verify") or timing ("timing") over every
        run stored for `platform`: the longest jobs start first, so none is left running alone at the end."""
        table = "verdicts" if phase == "verify" else "timings"
        seen: dict[str, list[float]] = {}
        for op, seconds in self._q(f"SELECT a.op, x.seconds FROM {table} x JOIN attempts a ON a.id = x.attempt_id "
                                   "JOIN runs r ON r.id = a.run_id WHERE r.platform=?", (platform,)):
            seen.setdefault(op, []).append(seconds)
        return {op: statistics.median(xs) for op, xs in seen.items()}

    def phase_walls(self, run_id: int) -> tuple[float | None, float | None]:
        """Wall seconds of a run's verification and of its timing: the time at least one of the
        phase's jobs was running, as stored, so a run resumed in a later call (a device call ran out)
        does not count the pause between; None where a phase has nothing."""
        spans = [self._spans(table, run_id) for table in ("verdicts", "timings")]
        return tuple(_busy(s) if s else None for s in spans)  # type: ignore[return-value]

    def busy_wall(self, run_id: int) -> float:
        """Wall seconds during which any job of the run was running, verification or timing: less than
        the two phases' sum where they overlapped (the H200 runs of session L timed while verifying)."""
        return _busy(self._spans("verdicts", run_id) + self._spans("timings", run_id))

    def _spans(self, table: str, run_id: int) -> list[tuple[float, float]]:
        return self.db.execute(f"SELECT x.created - x.seconds, x.created FROM {table} x JOIN attempts a "
                               "ON a.id = x.attempt_id WHERE a.run_id=?", (run_id,)).fetchall()

    def untimed_passes(self, run_id: int) -> list[Attempt]:
        """Attempts that passed verification and have no timing yet."""
        return self._attempts("a.run_id=? AND a.id IN (SELECT attempt_id FROM verdicts WHERE status='pass') "
                              "AND a.id NOT IN (SELECT attempt_id FROM timings)", (run_id,))

    def rows(self, run_id: int) -> Iterator[Row]:
        """A failed timing (wrong timed outputs, a timing trick) overrides a passed verification."""
        q = ("SELECT r.name, a.op, a.sample, a.round, "
             "CASE WHEN v.status='pass' AND t.status IS NOT NULL AND t.status!='pass' THEN t.status "
             "ELSE v.status END, "
             "CASE WHEN v.status='pass' AND t.status IS NOT NULL AND t.status!='pass' THEN 'timing: ' || t.reason "
             "ELSE v.reason END, "
             "v.failing_case, v.worst_ratio, v.n_cases, v.seconds, a.model, c.tokens_in, c.tokens_out, c.wall_s, "
             "t.speedup, t.detail, a.code_sha, v.detail "
             "FROM attempts a JOIN runs r ON r.id = a.run_id "
             "LEFT JOIN verdicts v ON v.attempt_id = a.id LEFT JOIN costs c ON c.attempt_id = a.id "
             "LEFT JOIN timings t ON t.attempt_id = a.id "
             "WHERE a.run_id=? ORDER BY a.op, a.sample, a.round")
        from .verify.timing import speedup_of_cases  # lazily: the timing layer imports torch

        for r in self._q(q, (run_id,)):
            detail = json.loads(r[15]) if r[15] else {}
            timing = detail.get("extra", {}).get("timing", {})
            # derived from the stored measurements by today's rules (the floor's plausibility among them)
            speedup, flagged = r[14], 0
            if timing.get("cases"):
                speedup, flagged = speedup_of_cases(timing["cases"], passed=r[14] is not None)
            # parsed here, not with SQLite's json_extract: Python's JSON holds NaN and Infinity, SQLite's does not
            unsupported = (json.loads(r[17]).get("extra") or {}).get("unsupported", {}).get("cases", 0) if r[17] else 0
            yield Row(r[0], r[1], r[1].split("::", 1)[0], *r[2:14], speedup, flagged=flagged,
                      baseline=timing.get("baseline"), code_sha=r[16], unsupported=unsupported)

    def counts(self, run_id: int) -> tuple[int, int]:
        """(attempts, verdicts) of a run."""
        a = self._q("SELECT COUNT(*) FROM attempts WHERE run_id=?", (run_id,))[0][0]
        v = self._q("SELECT COUNT(*) FROM verdicts v JOIN attempts a ON a.id=v.attempt_id "
                    "WHERE a.run_id=?", (run_id,))[0][0]
        return a, v


def _busy(spans: list[tuple[float, float]]) -> float:
    """Seconds covered by the union of (start, stop) spans."""
    busy, end = 0.0, float("-inf")
    for start, stop in sorted(spans):
        busy += max(stop - max(start, end), 0.0)
        end = max(end, stop)
    return busy
