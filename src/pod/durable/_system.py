"""Where durable runs are checkpointed: the DBOS system database, and launching DBOS on it.

No configuration means one SQLite file, ``.pod/durable.sqlite`` under the working folder:
zero setup, one process. A ``postgresql://`` URL lets several worker processes (or machines)
share runs through a DBOS queue with a concurrency limit; there, live workers take over the
runs of a dead one (``_takeover``).

Durability is an explicit setting (``sync``). ``"full"`` (the default) syncs every step's
checkpoint to disk before the run goes on, so a run survives a lost machine. ``"normal"``
hands the checkpoint to the database without waiting for the disk: SQLite in WAL mode with
``synchronous=NORMAL``, PostgreSQL with ``synchronous_commit=off`` on DBOS's connections
(the steps' included). A crashed worker *process* loses nothing; a lost machine (power loss, kernel
panic; for PostgreSQL also a crashed server) may lose the last checkpoints, whose steps then
run again. SQLite always uses WAL, so readers (``pod runs``) never block the worker.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sqlite3
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, Self, TextIO, TypeAlias, final

from dbos import DBOS, DBOSConfig
from pydantic import BaseModel, Field, model_validator

from ..hooks._errors import PodUsageError

if TYPE_CHECKING:
    from ._takeover import Heartbeat, TakeoverError

__all__ = [
    "DEFAULT_DATABASE",
    "QUEUE_NAME",
    "DurableSettings",
    "SyncMode",
    "database_url",
    "launch",
    "shutdown",
    "sqlite_path",
]

SyncMode: TypeAlias = Literal["full", "normal"]
"""``full``: each checkpoint is on disk before the run goes on (survives a lost machine);
``normal``: survives a crashed worker process, the last checkpoints may be lost with the
machine (see the module docstring)."""

DEFAULT_DATABASE: Final = "sqlite:///.pod/durable.sqlite"
"""The system database when none is given: a SQLite file under ``.pod/``."""

DATABASE_ENV: Final = "POD_DATABASE_URL"
"""The environment variable the CLI reads when ``--database`` is not given."""

QUEUE_NAME: Final = "pod-runs"
"""The DBOS queue that ``submit`` puts runs on and workers take them from."""

QUEUE_POLL_SECONDS: Final = 0.2
"""How often a worker looks for queued runs (DBOS's default, 1 s, delays every start)."""

APP_NAME: Final = "llm-pod"
APP_VERSION: Final = "llm-pod-durable-1"
"""Fixed, so every process (workers, ``pod submit``, recovery) sees the same runs: DBOS
would otherwise derive a version from the workflows' source code."""


@final
class DurableSettings(BaseModel, frozen=True, extra="forbid"):
    """Where and how durable runs are checkpointed. Every field has a default."""

    database: str = DEFAULT_DATABASE
    """System database URL: ``sqlite:///PATH`` or ``postgresql://...``."""
    sync: SyncMode = "full"
    """``full`` syncs every checkpoint; ``normal`` trades the last checkpoints on a lost
    machine for speed (see ``docs/durability.md``)."""
    executor_id: str | None = Field(default=None, min_length=1)
    """This process's name among workers; a process restarted with the same name recovers
    the runs it held. ``None``: ``local`` on SQLite; on PostgreSQL a fresh name per process
    (host name and a random suffix), whose runs other workers take over if it dies."""
    concurrency: int | None = Field(default=None, ge=1)
    """Runs of the queue in progress at once across all workers; ``None``: no limit."""
    worker_concurrency: int | None = Field(default=None, ge=1)
    """Runs of the queue this process takes at once; ``None``: no limit."""
    heartbeat_seconds: float = Field(default=5.0, gt=0, allow_inf_nan=False)
    """PostgreSQL: how often this process marks itself alive (and looks for dead workers)."""
    dead_after_seconds: float = Field(default=30.0, gt=0, allow_inf_nan=False)
    """PostgreSQL: a worker silent this long is dead; a live worker takes over its runs.
    At least twice ``heartbeat_seconds``."""

    @model_validator(mode="after")
    def _dead_after_a_few_beats(self) -> Self:
        if self.dead_after_seconds < 2 * self.heartbeat_seconds:
            raise ValueError(
                f"the dead-after time ({self.dead_after_seconds:g} s) must be at least twice "
                f"the heartbeat interval ({self.heartbeat_seconds:g} s): one late beat is not "
                "a death"
            )
        return self


_SUPPORTED: Final = ("sqlite:///", "postgresql://", "postgres://", "postgresql+psycopg://")


def database_url(url: str | None = None) -> str:
    """The database to use: ``url``, else ``$POD_DATABASE_URL``, else the SQLite default.

    Raises:
        PodUsageError: it is neither ``sqlite:///PATH`` nor a ``postgresql://`` URL.
    """
    chosen = url or os.environ.get(DATABASE_ENV) or DEFAULT_DATABASE
    scheme = next((prefix for prefix in _SUPPORTED if chosen.startswith(prefix)), None)
    if scheme is None or len(chosen) == len(scheme):
        raise PodUsageError(
            f"{chosen!r} is not a database pod can use: give sqlite:///PATH or "
            "postgresql://USER@HOST[:PORT]/DATABASE"
        )
    return chosen


def sqlite_path(url: str) -> Path | None:
    """The file of a ``sqlite:///PATH`` URL; ``None`` for another database."""
    prefix = "sqlite:///"
    return Path(url[len(prefix) :]) if url.startswith(prefix) else None


def _config(settings: DurableSettings) -> DBOSConfig:
    config: DBOSConfig = {
        "name": APP_NAME,
        "system_database_url": settings.database,
        "application_version": APP_VERSION,
        "log_level": "WARNING",
        # A durable wait (approval) is answered within this many seconds of the message.
        "notification_listener_polling_interval_sec": 0.1,
    }
    path = sqlite_path(settings.database)
    if settings.executor_id is not None:
        config["executor_id"] = settings.executor_id
    elif path is None:  # PostgreSQL: "local" would be shared by every unnamed worker
        config["executor_id"] = f"{socket.gethostname()}-{uuid.uuid4().hex[:8]}"
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        config["db_engine_kwargs"] = {"creator": _sqlite_connector(path, settings.sync)}
    elif settings.sync == "normal":  # DBOS's own commits (its steps too) skip the WAL flush
        config["db_engine_kwargs"] = {"connect_args": {"options": "-c synchronous_commit=off"}}
    return config


def _sqlite_connector(path: Path, sync: SyncMode) -> object:
    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(path, check_same_thread=False, timeout=30)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute(f"PRAGMA synchronous={sync.upper()}")
        return connection

    return connect


async def launch(settings: DurableSettings | None = None) -> None:
    """Start DBOS in this process on ``settings.database`` (once; ``shutdown`` undoes it).

    Workflows (durable agents) must be defined before: DBOS recovers this executor's
    unfinished runs at launch. On PostgreSQL the process also beats in ``pod_workers`` and
    takes over the runs of dead workers (``_takeover``); if it is itself declared dead, it
    exits at once (status 1), as its runs are running elsewhere.
    """
    settings = settings if settings is not None else DurableSettings()
    _process.lock = _only_worker(settings.database)
    DBOS(config=_config(settings))
    heartbeat = _heartbeat(settings)
    # Registered before DBOS takes runs, so a worker never holds a run without a row (but a
    # database DBOS has not created yet has no table: then just after).
    registered = heartbeat is not None and _registered(heartbeat)
    DBOS.launch()
    from ._agent import defined_agents
    from ._served import record_served

    record_served(settings.database, defined_agents())
    if heartbeat is not None:
        if not registered:
            heartbeat.register()
        heartbeat.start()
        _process.heartbeat = heartbeat
    # The queue's limits live in the database: the last worker to start sets them.
    await DBOS.register_queue_async(
        QUEUE_NAME,
        global_concurrency=settings.concurrency,
        worker_concurrency=settings.worker_concurrency,
        polling_interval_sec=QUEUE_POLL_SECONDS,
        on_conflict="always_update",
    )


def shutdown() -> None:
    """Stop DBOS in this process (running workflows stop where they are, to be recovered)."""
    from ._dbos_records import close_writers

    if _process.heartbeat is not None:
        _process.heartbeat.stop()
    close_writers()
    DBOS.destroy(destroy_registry=False)
    _process.heartbeat = None
    if _process.lock is not None:
        _process.lock.close()  # the lock goes with the file descriptor
        _process.lock = None


def _only_worker(database: str) -> TextIO | None:
    """Hold the lock of a SQLite database's one worker (``PATH.worker-lock``), for the
    life of this process's launch; ``None`` on PostgreSQL, where workers share.

    Raises:
        PodUsageError: another process holds it (it would take this one's runs over).
    """
    path = sqlite_path(database)
    if path is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".worker-lock").open("a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "another process"
        lock.close()
        raise PodUsageError(
            f"{database} is served by a worker already ({holder}): SQLite has one worker; "
            "stop it first, or use PostgreSQL for several"
        ) from None
    lock.truncate(0)
    lock.write(f"pid {os.getpid()}")
    lock.flush()
    return lock


def _heartbeat(settings: DurableSettings) -> Heartbeat | None:
    """This process's heartbeat on PostgreSQL; ``None`` on SQLite (one process: nothing
    to take over)."""
    if sqlite_path(settings.database) is not None:
        return None
    from ._takeover import Heartbeat

    return Heartbeat(
        settings.database,
        DBOS.executor_id,
        heartbeat_seconds=settings.heartbeat_seconds,
        dead_after_seconds=settings.dead_after_seconds,
        on_fenced=_exit_fenced,
    )


def _registered(heartbeat: Heartbeat) -> bool:
    """Register ``heartbeat``; ``False`` if the database is not there yet."""
    try:
        heartbeat.register()
    except Exception:  # the database does not exist yet: DBOS.launch creates it
        heartbeat.close()
        return False
    return True


def _exit_fenced(error: TakeoverError) -> None:
    """Stop this process now: its runs belong to another worker, going on runs them twice."""
    sys.stderr.write(f"error: {error}: stopping\n")
    sys.stderr.flush()
    os._exit(1)


@final
class _Process:
    """What this process launched: DBOS lives once per process, and so does this."""

    heartbeat: Heartbeat | None = None
    lock: TextIO | None = None


_process: Final = _Process()
