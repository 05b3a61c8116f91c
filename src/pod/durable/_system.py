"""Where durable runs are checkpointed: the DBOS system database, and launching DBOS on it.

No configuration means one SQLite file, ``.pod/durable.sqlite`` under the working folder:
zero setup, one process. A ``postgresql://`` URL lets several worker processes (or machines)
share runs through a DBOS queue with a concurrency limit.

Durability is an explicit setting (``sync``). ``"full"`` (the default) syncs every step's
checkpoint to disk before the run goes on, so a run survives a lost machine. ``"normal"``
hands the checkpoint to the database without waiting for the disk: SQLite in WAL mode with
``synchronous=NORMAL``, PostgreSQL with ``synchronous_commit=off`` on DBOS's connections
(the steps' included). A crashed worker *process* loses nothing; a lost machine (power loss, kernel
panic; for PostgreSQL also a crashed server) may lose the last checkpoints, whose steps then
run again. SQLite always uses WAL, so readers (``pod runs``) never block the worker.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Final, Literal, TypeAlias, final

from dbos import DBOS, DBOSConfig
from pydantic import BaseModel, Field

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
    executor_id: str | None = None
    """This process's name among workers; a process restarted with the same name recovers
    the runs it held. ``None``: DBOS's default (``local``)."""
    concurrency: int | None = Field(default=None, ge=1)
    """Runs of the queue in progress at once across all workers; ``None``: no limit."""
    worker_concurrency: int | None = Field(default=None, ge=1)
    """Runs of the queue this process takes at once; ``None``: no limit."""


def database_url(url: str | None = None) -> str:
    """The database to use: ``url``, else ``$POD_DATABASE_URL``, else the SQLite default."""
    return url or os.environ.get(DATABASE_ENV) or DEFAULT_DATABASE


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
    if settings.executor_id is not None:
        config["executor_id"] = settings.executor_id
    path = sqlite_path(settings.database)
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
    unfinished runs at launch.
    """
    settings = settings if settings is not None else DurableSettings()
    DBOS(config=_config(settings))
    DBOS.launch()
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

    close_writers()
    DBOS.destroy(destroy_registry=False)
