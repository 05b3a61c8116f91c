"""The step journal: one row per step of a durable run, in the run's system database.

A DBOS step costs two transactions (a check, then the record) and three hops to a thread:
2-2.4 ms for an empty step on SQLite, 4.4-4.7 ms on PostgreSQL (``bench.durable_floor``), so
two per turn already miss the targets (3 and 5 ms per turn). The journal keeps DBOS's
contract for steps and does less per step: a step is one ``INSERT`` committed on a
connection of its own (``pod_steps``: run id, sequence number, step name, pickled outcome),
in the event loop's thread; a run reads its whole journal once, when it starts (empty for a
new run, the recorded steps when it is recovered), never per step. A replayed step must have
the recorded name, or the run fails (as DBOS's ``DBOSUnexpectedStepError``): the code changed.

Connections are per process and per database, shared by the runs of the process.
"""

from __future__ import annotations

import pickle
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol, cast, final

from ._system import SyncMode, sqlite_path

__all__ = ["Journal", "RecordedStep", "open_journal"]

_TABLE: Final = "pod_steps"
_SQLITE_SCHEMA: Final = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} (run_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "name TEXT NOT NULL, outcome BLOB NOT NULL, PRIMARY KEY (run_id, seq))"
)
_POSTGRES_SCHEMA: Final = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} (run_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "name TEXT NOT NULL, outcome BYTEA NOT NULL, PRIMARY KEY (run_id, seq))"
)

_SQLITE_INSERT: Final = f"INSERT INTO {_TABLE} VALUES (?, ?, ?, ?)"
_POSTGRES_INSERT: Final = f"INSERT INTO {_TABLE} VALUES (%s, %s, %s, %s)"

RecordedStep = tuple[str, bytes]
"""A recorded step: its name and its pickled outcome."""


class Journal(Protocol):
    """Where the steps of durable runs are recorded."""

    def load(self, run_id: str) -> dict[int, RecordedStep]:
        """Every recorded step of ``run_id``, by sequence number."""
        ...

    def record(self, run_id: str, rows: Sequence[tuple[int, str, bytes]]) -> None:
        """Record steps (sequence number, name, outcome), committed together before
        returning."""
        ...

    def last_step(self, run_id: str) -> str | None:
        """The name of the last step recorded for ``run_id``; ``None`` if none."""
        ...

    def close(self) -> None: ...


@final
class _SqliteJournal:
    def __init__(self, path: str, sync: SyncMode) -> None:
        # Autocommit: every INSERT is its own transaction, committed when it returns.
        self._connection = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=30
        )
        # Runs may record from more than one thread (DBOS runs queued workflows on a loop of
        # its own when it was launched outside one): one statement at a time.
        self._lock = threading.Lock()
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute(f"PRAGMA synchronous={sync.upper()}")
        self._connection.execute(_SQLITE_SCHEMA)

    def load(self, run_id: str) -> dict[int, RecordedStep]:
        with self._lock:
            rows = self._connection.execute(
                f"SELECT seq, name, outcome FROM {_TABLE} WHERE run_id = ?", (run_id,)
            ).fetchall()
        return {seq: (name, outcome) for seq, name, outcome in rows}

    def record(self, run_id: str, rows: Sequence[tuple[int, str, bytes]]) -> None:
        with self._lock:
            if len(rows) == 1:  # autocommit: one statement, one transaction
                self._connection.execute(
                    f"INSERT INTO {_TABLE} VALUES (?, ?, ?, ?)", (run_id, *rows[0])
                )
                return
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                self._connection.executemany(_SQLITE_INSERT, [(run_id, *row) for row in rows])
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")

    def last_step(self, run_id: str) -> str | None:
        with self._lock:
            row = self._connection.execute(
                f"SELECT name FROM {_TABLE} WHERE run_id = ? ORDER BY seq DESC LIMIT 1",
                (run_id,),
            ).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        self._connection.close()


@final
class _PostgresJournal:
    def __init__(self, url: str, sync: SyncMode) -> None:
        import psycopg  # installed with dbos

        # A psycopg connection serialises its own use across threads.
        self._connection: Any = psycopg.connect(url, autocommit=True)
        self._connection.execute(_POSTGRES_SCHEMA)
        if sync == "normal":  # commit without waiting for the WAL flush (this session only)
            self._connection.execute("SET synchronous_commit = off")

    def load(self, run_id: str) -> dict[int, RecordedStep]:
        rows = self._connection.execute(
            f"SELECT seq, name, outcome FROM {_TABLE} WHERE run_id = %s", (run_id,)
        ).fetchall()
        return {seq: (name, bytes(outcome)) for seq, name, outcome in rows}

    def record(self, run_id: str, rows: Sequence[tuple[int, str, bytes]]) -> None:
        if len(rows) == 1:  # autocommit: one statement, one round trip, one commit
            self._connection.execute(_POSTGRES_INSERT, (run_id, *rows[0]))
            return
        with self._connection.transaction(), self._connection.cursor() as cursor:
            cursor.executemany(_POSTGRES_INSERT, [(run_id, *row) for row in rows])

    def last_step(self, run_id: str) -> str | None:
        row = self._connection.execute(
            f"SELECT name FROM {_TABLE} WHERE run_id = %s ORDER BY seq DESC LIMIT 1", (run_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        self._connection.close()


def open_journal(database: str, sync: SyncMode = "full") -> Journal:
    """The journal in ``database`` (the DBOS system database URL); creates its table."""
    path = sqlite_path(database)
    if path is not None:
        return _SqliteJournal(str(path), sync)
    return _PostgresJournal(_libpq_url(database), sync)


def _libpq_url(url: str) -> str:
    """A SQLAlchemy URL (``postgresql+psycopg://``) as libpq reads it (``postgresql://``)."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme.split('+')[0]}{sep}{rest}"


def dumps(outcome: object) -> bytes:
    """Pickle a step's outcome (highest protocol: the fastest to write and read)."""
    return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)


def loads(data: bytes) -> object:
    """Unpickle a recorded outcome (the journal is written by this project's own runs)."""
    return pickle.loads(data)


def steps_of(journal: Journal, run_id: str) -> list[tuple[str, bool, object]]:
    """A run's recorded steps in order: (name, whether it raised, output or exception)."""
    recorded: Mapping[int, RecordedStep] = journal.load(run_id)
    steps: list[tuple[str, bool, object]] = []
    for _, (name, data) in sorted(recorded.items()):
        kind, value = cast("tuple[str, object]", loads(data))
        steps.append((name, kind == "raised", value))
    return steps
