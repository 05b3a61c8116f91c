"""Which agents the workers of a system database serve, so ``pod submit`` can refuse a name
no worker knows (a run of it would wait in the queue for ever).

Every process that launches DBOS records the agents it defines in the table
``pod_served_agents`` of the system database (SQLite or PostgreSQL, the same SQL); the table
only grows: an agent served once is taken to be served again.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable
from typing import Final

from ._system import sqlite_path

__all__ = ["record_served", "served_agents"]

_CREATE: Final = "CREATE TABLE IF NOT EXISTS pod_served_agents (agent TEXT PRIMARY KEY)"
_INSERT: Final = "INSERT INTO pod_served_agents (agent) VALUES ({}) ON CONFLICT (agent) DO NOTHING"
_SELECT: Final = "SELECT agent FROM pod_served_agents"


def record_served(database: str, agents: Iterable[str]) -> None:
    """Record ``agents`` as served by a worker of ``database``."""
    names = [(name,) for name in agents]
    path = sqlite_path(database)
    if path is not None:
        with contextlib.closing(sqlite3.connect(path, timeout=30)) as lite, lite:
            lite.execute(_CREATE)
            lite.executemany(_INSERT.format("?"), names)
        return
    import psycopg  # installed with dbos

    from ._takeover import libpq_url

    with psycopg.connect(libpq_url(database), autocommit=True) as server:
        server.execute(_CREATE)
        server.cursor().executemany(_INSERT.format("%s"), names)


def served_agents(database: str) -> frozenset[str]:
    """The agents some worker of ``database`` has served (none if no worker recorded any)."""
    path = sqlite_path(database)
    if path is not None:
        with contextlib.closing(sqlite3.connect(path, timeout=30)) as lite:
            try:
                return frozenset(str(row[0]) for row in lite.execute(_SELECT))
            except sqlite3.OperationalError:  # no such table: no worker recorded any
                return frozenset()
    import psycopg

    from ._takeover import libpq_url

    with psycopg.connect(libpq_url(database), autocommit=True) as connection:
        connection.execute(_CREATE)
        return frozenset(str(row[0]) for row in connection.execute(_SELECT))
