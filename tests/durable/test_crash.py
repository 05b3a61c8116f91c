"""A worker process killed with SIGKILL mid-run; a new process recovers the run.

Counted outside the processes: every tool call that completed before the kill ran exactly
once, the one in flight at most twice; the final history is well-formed and equal to an
uninterrupted run's (a plain, in-memory ``Pod`` with the same parts).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_worker import Finished
from llm_worker.testing import assert_well_formed
from pod import Pod
from pod.durable import RunOutcome

from . import app
from .conftest import Scene, counts, kill


async def _uninterrupted(prompt: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Pod:
    monkeypatch.setenv("POD_TEST_COUNTS", str(folder))
    pod = Pod(**app.parts())
    result = await pod.run(prompt)
    assert isinstance(result, Finished)
    return pod


def _recover(scene: Scene, run_id: str) -> RunOutcome:
    done = scene.run(["-m", "tests.durable.app", "recover", run_id])
    assert done.returncode == 0, done.stderr
    return RunOutcome.model_validate_json(done.stdout)


@pytest.mark.parametrize("killed_in", ["tool", "model"])
async def test_a_killed_run_is_recovered_and_no_completed_step_runs_again(
    killed_in: str, sqlite_scene: Scene, reference_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Killed inside tool call 2, or inside model request 2 (tool calls 0 and 1 done).
    block = {f"POD_TEST_BLOCK_{killed_in.upper()}": "2"}
    first = sqlite_scene.start(["-m", "tests.durable.app", "run", "crash", "s", "run-1"], **block)
    sqlite_scene.wait_for("blocked", first)
    kill(first)
    before = sqlite_scene.events()

    outcome = _recover(sqlite_scene, "run-1")

    after = sqlite_scene.events()
    starts, ends, models = counts(after, "start "), counts(after, "end "), counts(after, "model ")
    if killed_in == "tool":
        assert before["start s:2"] == 1  # killed in the middle
        assert before["end s:2"] == 0
        assert starts == {"s:0": 1, "s:1": 1, "s:2": 2, "s:3": 1}  # in flight: run again
        assert models == {f"s:{n}": 1 for n in range(app.STEPS + 1)}
    else:
        assert before["model s:2"] == 1
        assert "start s:2" not in before
        assert starts == {f"s:{n}": 1 for n in range(app.STEPS)}
        assert models == {"s:0": 1, "s:1": 1, "s:2": 2, "s:3": 1, "s:4": 1}
    assert ends == {f"s:{n}": 1 for n in range(app.STEPS)}  # every call completed once

    assert outcome.result == Finished(text="s: finished after 4 steps", turn=0)
    assert_well_formed(outcome.history)
    reference = await _uninterrupted("s", reference_folder, monkeypatch)
    assert outcome.history == reference.history


async def test_recovering_a_finished_run_runs_nothing(sqlite_scene: Scene) -> None:
    done = sqlite_scene.run(["-m", "tests.durable.app", "run", "crash", "s", "run-1"])
    assert done.returncode == 0, done.stderr
    ran = sqlite_scene.events()

    outcome = _recover(sqlite_scene, "run-1")

    assert sqlite_scene.events() == ran
    assert outcome == RunOutcome.model_validate_json(done.stdout)
