"""Scale-out on PostgreSQL: two workers share a queue of 50 scripted sessions; one worker is
killed with SIGKILL mid-way and restarted under its name (which recovers the runs it held).

All 50 finish; no tool call that completed ran twice (only a call in flight at the kill
may); pairing holds in every history; the queue's global concurrency limit held throughout.
"""

from __future__ import annotations

import time

from llm_worker import Finished
from llm_worker.testing import pairing_problems
from pod.durable import DurableRuns

from . import app
from .conftest import TIMEOUT, Scene, counts, kill

SESSIONS = 50
WORKER_CONCURRENCY = 4
CONCURRENCY = 6
KILL_AFTER = 15


def _worker(scene: Scene, name: str) -> list[str]:
    return [
        "-m", "pod", "worker", "--app", "tests.durable.app:scale_agent",
        "--database", scene.database, "--executor-id", name,
        "--concurrency", str(CONCURRENCY), "--worker-concurrency", str(WORKER_CONCURRENCY),
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


def test_two_workers_fifty_sessions_one_killed(postgres_scene: Scene) -> None:
    scene = postgres_scene
    slow = {"POD_TEST_TOOL_SECONDS": "0.05"}
    first = scene.start(_worker(scene, "w1"), **slow)
    second = scene.start(_worker(scene, "w2"), **slow)
    deadline = time.monotonic() + TIMEOUT
    while "serving" not in scene.output(first) or "serving" not in scene.output(second):
        assert first.poll() is None, scene.output(first)
        assert second.poll() is None, scene.output(second)
        assert time.monotonic() < deadline, "the workers did not start"
        time.sleep(0.05)

    submitted = scene.run(["-m", "pod", "submit", "s0", "--agent", "scale", "--run-id", "r0"])
    assert (submitted.returncode, submitted.stdout) == (0, "r0\n"), submitted.stderr
    with DurableRuns(scene.database) as runs:
        run_ids = ["r0"] + [runs.submit("scale", f"s{i}", run_id=f"r{i}") for i in range(1, 50)]

        while _finished_sessions(scene) < KILL_AFTER:
            assert time.monotonic() < deadline + TIMEOUT, "the sessions do not advance"
            time.sleep(0.05)
        kill(second)
        killed_at = _finished_sessions(scene)
        assert killed_at < SESSIONS
        scene.start(_worker(scene, "w2"), **slow)  # the same name: recovers w2's runs

        outcomes = [runs.result(run_id) for run_id in run_ids]

    assert all(isinstance(o.result, Finished) for o in outcomes)
    for outcome in outcomes:
        assert not pairing_problems(outcome.history)
    events = scene.events()
    ends = counts(events, "end ")
    assert set(ends) == {f"s{i}:{n}" for i in range(SESSIONS) for n in range(app.STEPS)}
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
