"""An approval is consumed once: a crash after it, or a second approver, never runs the
approved call twice.

The run pauses and its process exits; ``pod approve`` approves in a second process; a third
process takes the approval and is killed with SIGKILL (inside the approved call, after its
side effect, or in the model request after it); a fourth recovers the run. Counted outside
the processes, the call's side effect happened once, and a replayed approval is refused.
"""

from __future__ import annotations

import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from llm_worker import Finished, ToolResult
from llm_worker.testing import assert_well_formed
from pod import PodUsageError
from pod.durable import DurableRuns, RunDecision, RunOutcome
from pod.durable._steps import APPROVED_CALL_INTERRUPTED

from . import app
from .conftest import Scene, counts, kill

PAUSED_CALL = f"a-{app.APPROVAL_STEP}"
ANSWERED = (
    "error: run run-a: this pause was already answered by another decision (the run takes the "
    "first); nothing sent\n"
)


def _paused(scene: Scene) -> Scene:
    """``scene``, with run-a paused at its approval step (and its process ended)."""
    paused = scene.run(["-m", "tests.durable.app", "until-paused", "approval", "a", "run-a"])
    assert paused.returncode == 0, paused.stderr
    return scene


def _pause_and_approve(scene: Scene) -> str:
    """Pause run-a at its approval step, approve it with ``pod approve``; return the digest."""
    _paused(scene)
    with DurableRuns(scene.database) as runs:
        shown = runs.get("run-a").paused
    assert shown is not None
    digest = shown.pending_calls[0].digest
    approved = _pod(scene, "approve", "run-a", f"--approve={PAUSED_CALL}={digest}")
    assert approved.returncode == 0, approved.stderr
    return digest


def _pod(scene: Scene, *arguments: str) -> subprocess.CompletedProcess[str]:
    return scene.run(["-m", "pod", *arguments, "--database", scene.database])


def _recover(scene: Scene) -> RunOutcome:
    done = scene.run(["-m", "tests.durable.app", "recover", "run-a"])
    assert done.returncode == 0, done.stderr
    return RunOutcome.model_validate_json(done.stdout)


@pytest.mark.parametrize("killed_in", ["the approved call", "the model request after it"])
def test_a_crash_after_the_approval_is_taken_never_runs_the_call_twice(
    killed_in: str, sqlite_scene: Scene
) -> None:
    digest = _pause_and_approve(sqlite_scene)
    block = (
        {"POD_TEST_BLOCK_TOOL": str(app.APPROVAL_STEP)}
        if killed_in == "the approved call"
        else {"POD_TEST_BLOCK_MODEL": str(app.APPROVAL_STEP + 1)}
    )
    taker = sqlite_scene.start(["-m", "tests.durable.app", "recover", "run-a"], **block)
    sqlite_scene.wait_for("blocked", taker)
    kill(taker)  # it took the approval and ran the call's side effect ("start a:1")
    assert sqlite_scene.events()["start a:1"] == 1

    outcome = _recover(sqlite_scene)

    events = sqlite_scene.events()
    assert counts(events, "start ") == {f"a:{n}": 1 for n in range(app.STEPS)}
    results = {i.call_id: i for i in outcome.history if isinstance(i, ToolResult)}
    if killed_in == "the approved call":
        # Started by the killed process, not finished: not run again on that approval.
        assert results[PAUSED_CALL].is_error
        assert results[PAUSED_CALL].content == (
            f"tool work failed: ApprovedCallInterrupted: {APPROVED_CALL_INTERRUPTED}"
        )
        assert "end a:1" not in events
    else:
        assert results[PAUSED_CALL].content == "a: step 1 done"  # recorded: not run again
        assert events["end a:1"] == 1
    assert isinstance(outcome.result, Finished)
    assert_well_formed(outcome.history)

    # The same approval, replayed: refused, nothing sent, nothing run.
    replayed = _pod(sqlite_scene, "approve", "run-a", f"--approve={PAUSED_CALL}={digest}")
    assert (replayed.returncode, replayed.stderr) == (
        2,
        "error: run run-a is not paused (it is finished)\n",
    )
    assert sqlite_scene.events() == events


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_two_approvers_at_once_one_decision_is_taken_the_other_refused(
    database: str, request: pytest.FixtureRequest
) -> None:
    scene = _paused(request.getfixturevalue(f"{database}_scene"))

    # Two processes at once: one approves the call, the other skips it.
    approvers = [
        scene.start(["-m", "pod", "approve", "run-a", *decision, "--database", scene.database])
        for decision in ([f"--approve={PAUSED_CALL}"], [f"--skip={PAUSED_CALL}=no"])
    ]
    for approver in approvers:
        approver.wait(timeout=120)
    codes = sorted(approver.returncode for approver in approvers)
    assert codes == [0, 2], [scene.output(a) for a in approvers]
    (taken,) = [a for a in approvers if a.returncode == 0]
    (refused,) = [a for a in approvers if a.returncode == 2]
    assert scene.output(refused).endswith(ANSWERED)
    approved = taken is approvers[0]

    outcome = _recover(scene)

    results = {i.call_id: i.content for i in outcome.history if isinstance(i, ToolResult)}
    events = scene.events()
    if approved:
        assert results[PAUSED_CALL] == "a: step 1 done"
        assert events["start a:1"] == 1
    else:
        assert results[PAUSED_CALL] == "tool call skipped: no"
        assert "start a:1" not in events
    assert isinstance(outcome.result, Finished)
    assert_well_formed(outcome.history)


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_of_many_simultaneous_decisions_for_one_pause_one_is_sent(
    database: str, request: pytest.FixtureRequest
) -> None:
    scene = _paused(request.getfixturevalue(f"{database}_scene"))
    approvers = 6
    clients = [DurableRuns(scene.database) for _ in range(approvers)]
    ready = threading.Barrier(approvers)

    def approve(runs: DurableRuns, number: int) -> str:
        shown = runs.get("run-a").paused
        assert shown is not None
        decision = RunDecision(skip={PAUSED_CALL: f"approver {number}"})
        ready.wait()  # the checks and sends of all of them as close together as can be
        try:
            runs.approve("run-a", decision)
        except PodUsageError as exc:
            return str(exc)
        return "sent"

    try:
        with ThreadPoolExecutor(approvers) as pool:
            answers = list(pool.map(approve, clients, range(approvers)))
    finally:
        for runs in clients:
            runs.close()

    assert answers.count("sent") == 1, answers
    assert set(answers) - {"sent"} == {ANSWERED.removeprefix("error: ").removesuffix("\n")}
    outcome = _recover(scene)
    winner = answers.index("sent")
    results = {i.call_id: i.content for i in outcome.history if isinstance(i, ToolResult)}
    assert results[PAUSED_CALL] == f"tool call skipped: approver {winner}"
