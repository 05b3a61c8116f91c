"""Scale-out on PostgreSQL: two workers share a queue of scripted sessions; one is killed
with SIGKILL mid-way.

Not restarted, its runs are taken over by the live worker once its heartbeat is older than
``--dead-after``: all 50 sessions finish there. Restarted under its name (before or after the
takeover), it recovers what is still its own and runs nothing a second time. In every case:
no tool call that completed ran twice (only a call in flight at the kill may); pairing holds
in every history; the queue's global concurrency limit held throughout.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable

import psycopg
import pytest

from llm_worker import Finished
from llm_worker.testing import pairing_problems
from pod.durable import DurableRuns, RunDecision, RunOutcome

from . import app
from .conftest import TIMEOUT, Scene, counts, kill

WORKER_CONCURRENCY = 4
CONCURRENCY = 6
HEARTBEAT = "0.5"
DEAD_AFTER = "5"
TAKEOVER_LINE = "took over worker w2"


def _worker(
    scene: Scene, name: str, *, dead_after: str = DEAD_AFTER, agent: str = "scale_agent"
) -> list[str]:
    return [
        "-m", "pod", "worker", "--app", f"tests.durable.app:{agent}",
        "--database", scene.database, "--executor-id", name,
        "--concurrency", str(CONCURRENCY), "--worker-concurrency", str(WORKER_CONCURRENCY),
        "--heartbeat", HEARTBEAT, "--dead-after", dead_after,
    ]  # fmt: skip


def _finished_sessions(scene: Scene) -> int:
    return sum(1 for line in scene.events() if line.endswith(f":{app.STEPS}"))


def _max_in_flight(lines: list[str]) -> int:
    """The most sessions between their first and last model request at one time."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for index, line in enumerate(lines):
        kind, _, key = line.partition(" ")
        session, _, _ = key.partition(":")
        if kind == "model":
            first.setdefault(session, index)
            last[session] = index
    return max(sum(1 for s in first if first[s] <= index <= last[s]) for index in range(len(lines)))


def _wait_until(what: str, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not ready():
        assert time.monotonic() < deadline, f"{what}: not within {TIMEOUT} s"
        time.sleep(0.05)


def _held(runs: DurableRuns, worker: str) -> set[str]:
    """The runs in progress that ``worker`` holds."""
    return {i.run_id for i in runs.list_runs() if i.status == "running" and i.executor == worker}


def _freeze_holding_runs(
    runs: DurableRuns, process: subprocess.Popen[str], worker: str, *, alone: bool = False
) -> set[str]:
    """Stop ``process`` (SIGSTOP) at a moment it holds runs; return them. A worker between
    two runs holds none for an instant: then it goes on, and the next moment is tried.
    ``alone``: it is the database's only worker, to stay frozen: also not inside a
    transaction, whose locks would stall the others until it thaws."""
    while True:
        _wait_until(f"{worker} holds a run", lambda: bool(_held(runs, worker)))
        process.send_signal(signal.SIGSTOP)
        held = _held(runs, worker)  # it can change nothing now
        if held and not (alone and _in_a_transaction(runs.database)):
            return held
        process.send_signal(signal.SIGCONT)


def _in_a_transaction(database: str) -> bool:
    """Whether a session of ``database`` is inside a transaction (other than the one where
    DBOS holds an advisory lock, which others only try, and which times out)."""
    with psycopg.connect(database, autocommit=True) as connection:
        row = connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%' "
            "AND query NOT LIKE '%pg_try_advisory_xact_lock%'"
        ).fetchone()
    return row is not None and row[0] > 0


def _results(runs: DurableRuns, run_ids: list[str]) -> list[RunOutcome]:
    """The runs' outcomes once all have ended (fails the test after ``TIMEOUT``, where a bare
    ``result`` would wait for ever)."""
    ended = ("finished", "failed", "cancelled")

    def all_ended() -> bool:
        return all(info.status in ended for info in runs.list_runs() if info.run_id in run_ids)

    _wait_until("every run ends", all_ended)
    return [runs.result(run_id) for run_id in run_ids]


def _start_two_workers(
    scene: Scene, *, dead_after: str = DEAD_AFTER
) -> tuple[subprocess.Popen[str], subprocess.Popen[str]]:
    slow = {"POD_TEST_TOOL_SECONDS": "0.05"}
    first = scene.start(_worker(scene, "w1", dead_after=dead_after), **slow)
    second = scene.start(_worker(scene, "w2", dead_after=dead_after), **slow)

    def serving() -> bool:
        assert first.poll() is None, scene.output(first)
        assert second.poll() is None, scene.output(second)
        return "serving" in scene.output(first) and "serving" in scene.output(second)

    _wait_until("the workers start", serving)
    return first, second


def _check_every_session(scene: Scene, sessions: int, outcomes: list[RunOutcome]) -> None:
    assert all(isinstance(o.result, Finished) for o in outcomes)
    for outcome in outcomes:
        assert not pairing_problems(outcome.history)
    events = scene.events()
    ends = counts(events, "end ")
    assert set(ends) == {f"s{i}:{n}" for i in range(sessions) for n in range(app.STEPS)}
    twice = sorted(key for key, n in ends.items() if n > 1)
    assert len(twice) <= WORKER_CONCURRENCY, twice  # at most w2's calls in flight
    # What was in flight in w2 at the kill (calls, model requests) ran again, nothing else.
    rerun = [
        k for prefix in ("start ", "model ") for k, n in counts(events, prefix).items() if n > 1
    ]
    assert len(rerun) <= WORKER_CONCURRENCY, rerun
    assert max(ends.values()) <= 2
    lines = (scene.folder / "events.log").read_text().splitlines()
    assert _max_in_flight(lines) <= CONCURRENCY


def test_a_killed_worker_is_taken_over_and_the_other_finishes_all_fifty(
    postgres_scene: Scene,
) -> None:
    scene, sessions = postgres_scene, 50
    first, second = _start_two_workers(scene)
    submitted = scene.run(["-m", "pod", "submit", "s0", "--agent", "scale", "--run-id", "r0"])
    assert (submitted.returncode, submitted.stdout) == (0, "r0\n"), submitted.stderr
    with DurableRuns(scene.database) as runs:
        run_ids = ["r0"] + [runs.submit("scale", f"s{i}", run_id=f"r{i}") for i in range(1, 50)]
        _wait_until("15 sessions finish", lambda: _finished_sessions(scene) >= 15)
        held_by_w2 = _freeze_holding_runs(runs, second, "w2")
        kill(second)  # and never restarted
        assert _finished_sessions(scene) < sessions
        outcomes = _results(runs, run_ids)
        listed = {info.run_id: info for info in runs.list_runs()}

    assert TAKEOVER_LINE in scene.output(first)
    assert first.poll() is None  # alive: it was never declared dead itself
    _check_every_session(scene, sessions, outcomes)
    assert {listed[run_id].executor for run_id in held_by_w2} == {"w1"}
    shown = scene.run(["-m", "pod", "runs", "--json", "--database", scene.database])
    assert {r["run_id"]: r["executor"] for r in json.loads(shown.stdout)} == {
        run_id: info.executor for run_id, info in listed.items()
    }


@pytest.mark.parametrize("when", ["before the takeover", "after the takeover"])
def test_a_worker_restarted_under_its_name_runs_nothing_twice(
    postgres_scene: Scene, when: str
) -> None:
    scene, sessions = postgres_scene, 20
    # Before: a takeover that never comes, so the restarted worker recovers its own runs.
    dead_after = "600" if when == "before the takeover" else DEAD_AFTER
    first, second = _start_two_workers(scene, dead_after=dead_after)
    with DurableRuns(scene.database) as runs:
        run_ids = [runs.submit("scale", f"s{i}", run_id=f"r{i}") for i in range(sessions)]
        _wait_until("6 sessions finish", lambda: _finished_sessions(scene) >= 6)
        _freeze_holding_runs(runs, second, "w2")
        kill(second)
        if when == "after the takeover":
            _wait_until("w1 takes over", lambda: TAKEOVER_LINE in scene.output(first))
        restarted = scene.start(
            _worker(scene, "w2", dead_after=dead_after), POD_TEST_TOOL_SECONDS="0.05"
        )
        outcomes = _results(runs, run_ids)

    _check_every_session(scene, sessions, outcomes)
    assert restarted.poll() is None, scene.output(restarted)
    assert first.poll() is None, scene.output(first)
    if when == "before the takeover":
        assert TAKEOVER_LINE not in scene.output(first)


def test_a_worker_declared_dead_stops_and_one_live_worker_takes_over(
    postgres_scene: Scene,
) -> None:
    """A worker frozen past ``--dead-after`` (SIGSTOP: a long pause, a cut-off network) is
    taken over by exactly one of two live workers, started together; thawed, it stops at
    once (exit 1) rather than run beside the worker that took its runs."""
    scene, sessions = postgres_scene, 12
    slow = {"POD_TEST_TOOL_SECONDS": "0.05"}
    frozen = scene.start(_worker(scene, "w2"), **slow)  # alone first: it surely holds runs
    _wait_until("w2 starts", lambda: "serving" in scene.output(frozen))
    with DurableRuns(scene.database) as runs:
        run_ids = [runs.submit("scale", f"s{i}", run_id=f"r{i}") for i in range(sessions)]
        _freeze_holding_runs(runs, frozen, "w2", alone=True)
        takers = [scene.start(_worker(scene, name), **slow) for name in ("w1", "w3")]
        _wait_until(
            "w2 is taken over", lambda: any(TAKEOVER_LINE in scene.output(w) for w in takers)
        )
        frozen.send_signal(signal.SIGCONT)
        assert frozen.wait(timeout=TIMEOUT) == 1
        outcomes = _results(runs, run_ids)

    assert "error: worker w2 was declared dead" in scene.output(frozen)
    assert sum(scene.output(w).count(TAKEOVER_LINE) for w in takers) == 1
    _check_every_session(scene, sessions, outcomes)


def test_a_second_worker_under_the_same_name_stops_the_first(postgres_scene: Scene) -> None:
    """Two live processes under one name would each recover the other's runs: the newer one
    takes the name, the older one stops at its next heartbeat (exit 1, one line)."""
    scene = postgres_scene
    older = scene.start(_worker(scene, "w1"))
    _wait_until("w1 starts", lambda: "serving" in scene.output(older))
    newer = scene.start(_worker(scene, "w1"))
    assert older.wait(timeout=TIMEOUT) == 1
    assert scene.output(older).endswith(
        "error: another process registered as worker w1: give each worker its own "
        "--executor-id: stopping\n"
    )
    assert newer.poll() is None, scene.output(newer)


def test_a_paused_run_of_a_dead_worker_waits_in_the_worker_that_took_it_over(
    postgres_scene: Scene,
) -> None:
    scene = postgres_scene
    workers = {n: scene.start(_worker(scene, n, agent="approval_agent")) for n in ("w1", "w2")}
    _wait_until(
        "the workers start", lambda: all("serving" in scene.output(w) for w in workers.values())
    )
    with DurableRuns(scene.database) as runs:
        runs.submit("approval", "a", run_id="run-a")
        _wait_until("the run pauses", lambda: runs.get("run-a").status == "paused")
        holder = runs.get("run-a").executor
        assert holder in workers
        kill(workers.pop(holder))
        ((survivor_name, survivor),) = workers.items()
        _wait_until(
            "the run is taken over and pauses again",
            lambda: (
                runs.get("run-a").executor == survivor_name and runs.get("run-a").status == "paused"
            ),
        )
        paused = runs.get("run-a").paused
        assert paused is not None
        runs.approve("run-a", RunDecision.approving(*paused.pending_calls))
        (outcome,) = _results(runs, ["run-a"])

    assert f"took over worker {holder}" in scene.output(survivor)
    assert isinstance(outcome.result, Finished)
    assert not pairing_problems(outcome.history)
    assert counts(scene.events(), "end ") == {f"a:{n}": 1 for n in range(app.STEPS)}
