"""A worker process killed with SIGKILL mid-run; a new process recovers the run.

Counted outside the processes: every tool call that completed before the kill ran exactly
once, the one in flight at most twice; the final history is well-formed and equal to an
uninterrupted run's (a plain, in-memory ``Pod`` with the same parts).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_worker import Finished, ToolResult
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


def _recover(scene: Scene, run_id: str, **extra: str) -> RunOutcome:
    done = scene.run(["-m", "tests.durable.app", "recover", run_id], **extra)
    assert done.returncode == 0, done.stderr
    return RunOutcome.model_validate_json(done.stdout)


@pytest.mark.parametrize("killed_in", ["tool", "model"])
async def test_a_killed_run_is_recovered_and_no_completed_step_runs_again(
    killed_in: str,
    sqlite_scene: Scene,
    reference_folder: Path,
    monkeypatch: pytest.MonkeyPatch,
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


async def test_a_recovered_run_replays_recorded_hook_decisions(sqlite_scene: Scene) -> None:
    first = sqlite_scene.start(
        ["-m", "tests.durable.app", "run", "crash", "s", "run-1"], POD_TEST_BLOCK_TOOL="2"
    )
    sqlite_scene.wait_for("blocked", first)
    kill(first)

    # The hook now skips every call: the decisions recorded for calls 0 and 1 stand. The call
    # in flight at the kill (2) had its decision recorded with nothing yet (a decision is
    # committed with the step it leads to): it is decided anew, like call 3, and skipped.
    outcome = _recover(sqlite_scene, "run-1", POD_TEST_HOOK_SKIPS="1")

    results = {i.call_id: i.content for i in outcome.history if isinstance(i, ToolResult)}
    assert results == {
        "s-0": "s: step 0 done",
        "s-1": "s: step 1 done",
        "s-2": "tool call skipped: the hook changed its mind about step 2",
        "s-3": "tool call skipped: the hook changed its mind about step 3",
    }
    events = sqlite_scene.events()
    assert counts(events, "end ") == {"s:0": 1, "s:1": 1}
    assert counts(events, "start ") == {"s:0": 1, "s:1": 1, "s:2": 1}  # 2: killed, not rerun
    assert_well_formed(outcome.history)


def _traces(folder: Path) -> list[list[str]]:
    """The trace events in ``folder``, process by process (in the order they started)."""
    by_process: dict[str, list[str]] = {}
    for line in (folder / "trace.log").read_text().splitlines():
        process, _, event = line.partition(" ")
        by_process.setdefault(process, []).append(event)
    return list(by_process.values())


async def test_a_recovered_run_traces_from_where_its_replay_ends(
    sqlite_scene: Scene,
    reference_folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = sqlite_scene.start(
        ["-m", "tests.durable.app", "run", "crash", "s", "run-1"],
        POD_TEST_BLOCK_TOOL="2",
    )
    sqlite_scene.wait_for("blocked", first)
    kill(first)

    _recover(sqlite_scene, "run-1")

    await _uninterrupted("s", reference_folder, monkeypatch)
    (expected,) = _traces(reference_folder)
    reached = expected.index('PRE_TOOL_CALL: s-2 work({"session": "s", "step": 2}) -> Continue')
    killed, recovered = _traces(sqlite_scene.folder)
    assert killed == expected[: reached + 1]  # up to the decision to run call 2
    # Quiet while the recorded steps replay; traced again from the last checkpoint on (so
    # what followed it is traced twice in all). The last checkpoint is model request 2
    # (call 2's decision is committed with the call).
    replied = expected.index(next(e for e in expected if "request_index=2" in e))
    assert replied == reached - 1
    assert recovered == expected[replied:]
