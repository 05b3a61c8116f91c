"""Fixtures of the durable-run tests: other processes, a system database each, event counts.

The runs under test live in other processes (they are killed with SIGKILL); their model
requests and tool executions are counted in ``events.log``, outside any process.
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from tests.throwaway_postgres import PostgresNotFoundError, throwaway_cluster

REPO: Final = Path(__file__).resolve().parents[2]
POSTGRES_ENV: Final = "POD_TEST_POSTGRES_URL"
TIMEOUT: Final = 120.0


@dataclass
class Scene:
    """One test's world: a system database, a folder for counts, and its processes."""

    database: str
    folder: Path
    processes: list[subprocess.Popen[str]]

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("POD_TEST_BLOCK_TOOL", "POD_TEST_BLOCK_MODEL"):
            env.pop(name, None)
        env.update(
            POD_DATABASE_URL=self.database, POD_TEST_COUNTS=str(self.folder), PYTHONPATH=str(REPO)
        )
        env.update(extra)
        return env

    def start(self, argv: Sequence[str], **extra: str) -> subprocess.Popen[str]:
        """Start ``python ARGV...`` in the repository, with this scene's environment; its
        output goes to ``process-N.log`` (a pipe nobody reads could block it)."""
        log = self.folder / f"process-{len(self.processes)}.log"
        with log.open("w") as output:
            process = subprocess.Popen(
                [sys.executable, *argv],
                cwd=REPO,
                env=self.env(**extra),
                stdout=output,
                stderr=subprocess.STDOUT,
                text=True,
            )
        self.processes.append(process)
        return process

    def output(self, process: subprocess.Popen[str]) -> str:
        """What a started process printed so far."""
        return (self.folder / f"process-{self.processes.index(process)}.log").read_text()

    def run(self, argv: Sequence[str], **extra: str) -> subprocess.CompletedProcess[str]:
        """Run ``python ARGV...`` to its end (fails the test after ``TIMEOUT``)."""
        return subprocess.run(
            [sys.executable, *argv],
            cwd=REPO,
            env=self.env(**extra),
            capture_output=True,
            stdin=subprocess.DEVNULL,  # never a terminal: nobody is asked
            text=True,
            timeout=TIMEOUT,
            check=False,
        )

    def wait_for(self, name: str, process: subprocess.Popen[str] | None = None) -> None:
        """Wait until the file ``name`` appears in the folder (a process signals it)."""
        deadline = time.monotonic() + TIMEOUT
        while not (self.folder / name).exists():
            if process is not None and process.poll() is not None:
                pytest.fail(f"the process ended before {name!r}: {self.output(process)}")
            if time.monotonic() > deadline:
                pytest.fail(f"{name!r} did not appear within {TIMEOUT} s")
            time.sleep(0.02)

    def events(self) -> collections.Counter[str]:
        """How many times each event line (``start s:1``, ``model s:2``, ...) was logged."""
        path = self.folder / "events.log"
        lines = path.read_text().splitlines() if path.exists() else []
        return collections.Counter(lines)


def kill(process: subprocess.Popen[str]) -> None:
    """SIGKILL: no clean-up of any kind runs in the process."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=TIMEOUT)


@pytest.fixture
def reference_folder(tmp_path: Path) -> Path:
    """Where the uninterrupted reference run (in this process) counts its events."""
    folder = tmp_path / "reference"
    folder.mkdir()
    return folder


@pytest.fixture
def sqlite_scene(tmp_path: Path) -> Iterator[Scene]:
    scene = Scene(f"sqlite:///{tmp_path / 'durable.sqlite'}", tmp_path, [])
    yield scene
    _stop(scene.processes)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server: ``$POD_TEST_POSTGRES_URL``, else a throwaway cluster
    started for this session (``tests/throwaway_postgres.py``)."""
    server = os.environ.get(POSTGRES_ENV)
    if server:
        yield server
        return
    try:
        with throwaway_cluster() as url:
            yield url
    except PostgresNotFoundError as exc:
        pytest.fail(str(exc))


@pytest.fixture
def postgres_scene(tmp_path: Path, postgres_server: str) -> Iterator[Scene]:
    """A fresh database on the server of ``postgres_server``."""
    base, _, _ = postgres_server.rpartition("/")
    scene = Scene(f"{base}/pod_test_{uuid.uuid4().hex[:10]}", tmp_path, [])
    yield scene
    _stop(scene.processes)


def _stop(processes: Sequence[subprocess.Popen[str]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=TIMEOUT)


def counts(events: Mapping[str, int], prefix: str) -> dict[str, int]:
    """The counts of the events starting with ``prefix`` (e.g. ``"start "``), by key."""
    return {line.removeprefix(prefix): n for line, n in events.items() if line.startswith(prefix)}
