"""Takeover: live workers recover the runs of a worker that died, on PostgreSQL.

DBOS recovers a process's unfinished runs when a process starts under the same executor id;
nothing recovers them while that id stays down. Here every worker keeps a row in
``pod_workers`` (executor id, incarnation, heartbeat in the database's clock) and refreshes
it every ``heartbeat_seconds``. A worker whose heartbeat is older than
``dead_after_seconds`` is dead: one live worker locks its row (``FOR UPDATE SKIP LOCKED``, so
two live workers never take over the same worker), hands its runs to DBOS's own recovery for
that executor id (which puts them back on their queue, where any worker takes each exactly
once), and marks the row taken over in the same transaction. A worker that dies while
taking over releases the lock unmarked: the next live worker does it again (DBOS's recovery
is idempotent: it only re-queues runs still held by the dead id).

A worker that finds its row taken over (it was too slow to beat, e.g. cut off from the
database) or registered by a newer process under its id stops at once: its runs now run
elsewhere, and going on would run them twice.

After a lost database connection a worker waits ``dead_after_seconds`` of good heartbeats
before it declares anyone dead, so a database outage does not make the first worker back
take over all the others.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, Final, final

from dbos import DBOS

__all__ = ["Heartbeat", "TakeoverError"]

_log = logging.getLogger("pod.durable")

_TABLE: Final = "pod_workers"
_SCHEMA: Final = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} (executor_id TEXT PRIMARY KEY, "
    "incarnation TEXT NOT NULL, heartbeat_at TIMESTAMPTZ NOT NULL, "
    "taken_over_by TEXT, taken_over_at TIMESTAMPTZ)"
)
_REGISTER: Final = (
    f"INSERT INTO {_TABLE} (executor_id, incarnation, heartbeat_at) VALUES (%s, %s, now()) "
    "ON CONFLICT (executor_id) DO UPDATE SET incarnation = EXCLUDED.incarnation, "
    "heartbeat_at = now(), taken_over_by = NULL, taken_over_at = NULL"
)
_BEAT: Final = (
    f"UPDATE {_TABLE} SET heartbeat_at = now() "
    "WHERE executor_id = %s AND incarnation = %s AND taken_over_by IS NULL"
)
_DEAD: Final = (
    f"SELECT executor_id, EXTRACT(EPOCH FROM now() - heartbeat_at) FROM {_TABLE} "
    "WHERE taken_over_by IS NULL AND executor_id <> %s "
    "AND heartbeat_at < now() - make_interval(secs => %s) "
    "ORDER BY executor_id FOR UPDATE SKIP LOCKED"
)
_MARK: Final = (
    f"UPDATE {_TABLE} SET taken_over_by = %s, taken_over_at = now() WHERE executor_id = %s"
)
_TAKEN_OVER_BY: Final = f"SELECT taken_over_by FROM {_TABLE} WHERE executor_id = %s"


class TakeoverError(Exception):
    """This worker was declared dead, or another process registered under its id."""


@final
class Heartbeat:
    """This process's row in ``pod_workers``, refreshed by a thread that also takes over
    the runs of dead workers.

    Args:
        database: the system database URL (PostgreSQL).
        executor_id: this process's DBOS executor id.
        heartbeat_seconds: how often the row is refreshed (and dead workers looked for).
        dead_after_seconds: how old a heartbeat must be for its worker to be dead.
        on_fenced: called (in the thread) when this worker must stop; see the module.
    """

    def __init__(
        self,
        database: str,
        executor_id: str,
        *,
        heartbeat_seconds: float,
        dead_after_seconds: float,
        on_fenced: Callable[[TakeoverError], None],
    ) -> None:
        self._url = libpq_url(database)
        self.executor_id = executor_id
        self.incarnation = uuid.uuid4().hex
        self._interval = heartbeat_seconds
        self._dead_after = dead_after_seconds
        self._on_fenced = on_fenced
        self._stop = threading.Event()
        self._connection: Any = None
        self._healthy_since: float | None = None
        self._thread = threading.Thread(
            target=self._loop, name=f"pod-heartbeat-{executor_id}", daemon=True
        )

    def register(self) -> None:
        """Write this process's row (a restarted worker takes its name back)."""
        connection = self._connect()
        connection.execute(_REGISTER, (self.executor_id, self.incarnation))
        self._healthy_since = time.monotonic() - self._dead_after  # may take over at once

    def start(self) -> None:
        """Refresh the row and take over dead workers, in a thread, until ``stop``."""
        self._thread.start()

    def stop(self) -> None:
        """Stop beating (the row stays: a worker stopped with runs held is taken over
        after ``dead_after_seconds``, or recovers them itself if it restarts first)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self.close()

    def close(self) -> None:
        """Close the connection, even a broken one (the next use opens another)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except Exception:  # already broken
                _log.debug("closing a broken connection failed", exc_info=True)

    def beat(self) -> None:
        """Refresh the row once.

        Raises:
            TakeoverError: the row was taken over or registered by another process.
        """
        connection = self._connect()
        if connection.execute(_BEAT, (self.executor_id, self.incarnation)).rowcount == 1:
            return
        row = connection.execute(_TAKEN_OVER_BY, (self.executor_id,)).fetchone()
        if row is not None and row[0] is not None:
            raise TakeoverError(
                f"worker {self.executor_id} was declared dead (its heartbeat was late) and "
                f"its runs were taken over by {row[0]}"
            )
        raise TakeoverError(
            f"another process registered as worker {self.executor_id}: give each worker "
            "its own --executor-id"
        )

    def take_over(self) -> list[tuple[str, float, int]]:
        """Take over every dead worker no other live worker is taking over; return them
        (executor id, seconds since its last heartbeat, runs handed to recovery)."""
        connection = self._connect()
        taken: list[tuple[str, float, int]] = []
        with connection.transaction():
            dead = connection.execute(_DEAD, (self.executor_id, self._dead_after)).fetchall()
            for executor_id, silent_seconds in dead:
                handles = DBOS._recover_pending_workflows([executor_id])  # pyright: ignore[reportPrivateUsage]
                if DBOS.list_workflows(
                    status="PENDING",
                    executor_id=executor_id,
                    app_version=DBOS.application_version,  # what recovery looks at
                    load_input=False,
                    load_output=False,
                    limit=1,
                ):  # a run DBOS could not re-queue: keep the row, try again next time
                    _log.warning("worker %s: some runs could not be recovered yet", executor_id)
                    continue
                connection.execute(_MARK, (self.executor_id, executor_id))
                taken.append((str(executor_id), float(silent_seconds), len(handles)))
        return taken

    def _connect(self) -> Any:
        if self._connection is None:
            import psycopg  # installed with dbos

            self._connection = psycopg.connect(self._url, autocommit=True)
            # Two workers creating the table at once: PostgreSQL lets one win, the other fails.
            with contextlib.suppress(psycopg.errors.UniqueViolation):
                self._connection.execute(_SCHEMA)
        return self._connection

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            if not self.tick(time.monotonic()):
                return

    def tick(self, now: float) -> bool:
        """One round of the thread at ``now`` (``time.monotonic``): beat, then take over
        dead workers unless this worker is back from an outage. ``False``: fenced, stop."""
        try:
            self.beat()
        except TakeoverError as exc:
            self._on_fenced(exc)
            return False
        except Exception as exc:  # the database is out of reach: beat again later
            _log.warning("worker %s: heartbeat failed: %s", self.executor_id, exc)
            self._healthy_since = None
            self.close()
            return True
        if self._healthy_since is None:
            self._healthy_since = now
        if now - self._healthy_since < self._dead_after:
            return True  # back from an outage: let the others beat again first
        try:
            for executor_id, silent, runs in self.take_over():
                _log.warning(
                    "worker %s: took over worker %s (no heartbeat for %.1f s): "
                    "%d run(s) back on the queue",
                    self.executor_id,
                    executor_id,
                    silent,
                    runs,
                )
        except Exception as exc:
            _log.warning("worker %s: takeover failed: %s", self.executor_id, exc)
            self.close()
        return True


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL (``postgresql+psycopg://``) as libpq reads it (``postgresql://``)."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme.split('+')[0]}{sep}{rest}"
