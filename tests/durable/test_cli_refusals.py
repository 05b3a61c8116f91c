"""The durable commands check what they are given before they act, and never report success
for work they did not do: one line on stderr, exit 2 (issue 27)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO, Scene


def _pod(scene: Scene, *arguments: str) -> tuple[int, str, str]:
    done = scene.run(["-m", "pod", *arguments, "--database", scene.database])
    return done.returncode, done.stdout, done.stderr


def _pod_here(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pod", *arguments],
        cwd=folder,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        check=False,
        timeout=120,
    )


def _served(scene: Scene) -> None:
    """A worker process has launched on the scene's database (it records its agents)."""
    paused = scene.run(["-m", "tests.durable.app", "until-paused", "approval", "a", "run-a"])
    assert paused.returncode == 0, paused.stderr


def test_an_agent_no_worker_serves_is_refused(sqlite_scene: Scene) -> None:
    _served(sqlite_scene)
    code, out, err = _pod(sqlite_scene, "submit", "hello", "--agent", "nosuch")
    assert (code, out) == (2, "")
    assert err == (
        "error: no worker serves an agent 'nosuch' (agents served here: approval, claude, "
        "crash, otel, review, scale); start a `pod worker` whose --app defines it\n"
    )
    code, out, _ = _pod(sqlite_scene, "runs", "--json")
    assert [run["run_id"] for run in json.loads(out)] == ["run-a"]  # nothing was queued


def test_a_run_id_in_use_is_refused_and_its_run_untouched(sqlite_scene: Scene) -> None:
    _served(sqlite_scene)
    code, out, err = _pod(
        sqlite_scene, "submit", "again", "--agent", "approval", "--run-id", "run-a"
    )
    assert (code, out) == (2, "")
    assert err == "error: run id 'run-a' is taken: give another, or none for a fresh one\n"
    _, out, _ = _pod(sqlite_scene, "runs", "--json")
    assert [run["status"] for run in json.loads(out)] == ["paused"]


def test_wait_on_a_run_that_pauses_says_so_and_exits_5(sqlite_scene: Scene) -> None:
    _served(sqlite_scene)
    worker = sqlite_scene.start(["-m", "pod", "worker", "--app", "tests.durable.app:AGENTS_LIST"])
    try:
        code, out, err = _pod(sqlite_scene, "submit", "b", "--agent", "approval", "--run-id",
                              "run-b", "--wait")  # fmt: skip
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    assert (code, out) == (5, "run-b: paused\n"), err
    assert err.splitlines()[0] == "submitted run-b; waiting for it to end or pause"
    assert "pod approve run-b --approve" in err.splitlines()[1]


def test_approve_with_no_decision_and_no_terminal_sends_nothing(sqlite_scene: Scene) -> None:
    _served(sqlite_scene)
    code, out, err = _pod(sqlite_scene, "approve", "run-a")
    assert (code, out) == (2, "")
    assert err == (
        "error: no decision for run run-a and no terminal to ask in: give --approve CALL_ID, "
        "--skip CALL_ID[=REASON] or --abort\n"
    )
    _, out, _ = _pod(sqlite_scene, "runs", "--json")
    assert [run["status"] for run in json.loads(out)] == ["paused"]


def test_a_second_worker_on_one_sqlite_file_is_refused(sqlite_scene: Scene) -> None:
    first = sqlite_scene.start(["-m", "pod", "worker", "--app", "tests.durable.app:AGENTS_LIST"])
    deadline = time.monotonic() + 60
    while "serving" not in sqlite_scene.output(first) and time.monotonic() < deadline:
        time.sleep(0.1)
    second = sqlite_scene.run(["-m", "pod", "worker", "--app", "tests.durable.app:AGENTS_LIST"])
    first.terminate()
    first.wait(timeout=60)
    assert (second.returncode, second.stdout) == (2, "")
    assert second.stderr == (
        f"error: {sqlite_scene.database} is served by a worker already (pid {first.pid}): "
        "SQLite has one worker; stop it first, or use PostgreSQL for several\n"
    )


def test_pod_runs_in_a_folder_without_runs_creates_nothing(tmp_path: Path) -> None:
    done = _pod_here(tmp_path, "runs")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "error: no durable runs here: .pod/durable.sqlite does not exist (start `pod worker` "
        "in this folder, or give the database of the workers)\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("limit", ["0", "-1", "many"])
def test_an_impossible_limit_is_a_usage_error(tmp_path: Path, limit: str) -> None:
    done = _pod_here(tmp_path, "runs", "--limit", limit)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        f"pod runs: error: argument --limit: must be a whole number of at least 1, not {limit!r}"
    )


@pytest.mark.parametrize(
    "command", [["worker", "--app", "tests.durable.app:AGENTS_LIST"], ["runs"]]
)
@pytest.mark.parametrize("url", ["mysql://root@localhost/pod", "notaurl"])
def test_an_unsupported_database_is_one_line(tmp_path: Path, command: list[str], url: str) -> None:
    done = _pod_here(tmp_path, *command, "--database", url)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"error: --database: {url!r} is not a database pod can use: give sqlite:///PATH or "
        "postgresql://USER@HOST[:PORT]/DATABASE\n"
    )


def test_an_unreachable_postgresql_is_one_line_without_library_logs(tmp_path: Path) -> None:
    with __import__("socket").socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = _pod_here(tmp_path, "runs", "--database", f"postgresql://postgres@127.0.0.1:{port}/x")
    assert (done.returncode, done.stdout) == (1, "")
    [line] = done.stderr.splitlines()
    assert line.startswith(
        f"error: the database failed (postgresql://postgres@127.0.0.1:{port}/x): "
    )
    assert "connect" in line.lower()
