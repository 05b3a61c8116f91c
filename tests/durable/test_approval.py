"""Durable approval: a run pauses and its process exits; ``pod approve`` runs in a second
process; a third process completes the run. Bad decisions are refused and send nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_worker import Continue, Finished, Paused
from llm_worker.testing import assert_well_formed
from pod import Pod
from pod.durable import DurableRuns, RunOutcome

from . import app
from .conftest import Scene, counts

PAUSED_CALL = f"a-{app.APPROVAL_STEP}"


def _pause(scene: Scene, run_id: str = "run-a") -> None:
    paused = scene.run(["-m", "tests.durable.app", "until-paused", "approval", "a", run_id])
    assert paused.returncode == 0, paused.stderr


def _pod(scene: Scene, *arguments: str) -> tuple[int, str, str]:
    done = scene.run(["-m", "pod", *arguments, "--database", scene.database])
    return done.returncode, done.stdout, done.stderr


async def _reference(
    folder: Path, monkeypatch: pytest.MonkeyPatch, decision: Continue | None
) -> Pod:
    monkeypatch.setenv("POD_TEST_COUNTS", str(folder))
    pod = Pod(**app.parts(approval=True))
    paused = await pod.run("a")
    assert isinstance(paused, Paused)
    assert isinstance(await pod.resume({PAUSED_CALL: decision or Continue()}), Finished)
    return pod


async def test_approval_across_three_processes(
    sqlite_scene: Scene, reference_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pause(sqlite_scene)  # process 1: runs until the pause, then exits
    code, out, err = _pod(sqlite_scene, "runs", "--json")
    assert code == 0, err
    (listed,) = json.loads(out)
    assert listed["status"] == "paused"
    assert listed["pending_calls"] == [PAUSED_CALL]

    code, out, err = _pod(sqlite_scene, "runs", "show", "run-a", "--json")
    assert code == 0, err
    so_far = [line["text"] for line in json.loads(out)["history"]]
    assert so_far[0] == "user: a"
    assert "output: a: step 0 done" in so_far
    assert not any("step 1 done" in line for line in so_far)

    code, out, err = _pod(sqlite_scene, "approve", "run-a", "--approve", PAUSED_CALL)  # process 2
    assert (code, err) == (0, ""), err
    assert "sent to run-a" in out

    third = sqlite_scene.run(["-m", "tests.durable.app", "recover", "run-a"])  # process 3
    assert third.returncode == 0, third.stderr
    outcome = RunOutcome.model_validate_json(third.stdout)

    assert isinstance(outcome.result, Finished)
    assert_well_formed(outcome.history)
    assert counts(sqlite_scene.events(), "end ") == {f"a:{n}": 1 for n in range(app.STEPS)}
    reference = await _reference(reference_folder, monkeypatch, None)
    assert outcome.history == reference.history
    code, out, err = _pod(sqlite_scene, "runs", "show", "run-a", "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown["run"]["status"] == "finished"
    assert len(shown["history"]) == len(outcome.history)
    code, out, err = _pod(sqlite_scene, "approve", "run-a")  # too late: nothing is sent
    assert (code, out, err) == (2, "", "error: run run-a is not paused (it is finished)\n")


async def test_skip_with_a_reason_reaches_the_model(sqlite_scene: Scene) -> None:
    _pause(sqlite_scene)
    code, _, err = _pod(sqlite_scene, "approve", "run-a", "--skip", f"{PAUSED_CALL}=not today")
    assert code == 0, err
    outcome = RunOutcome.model_validate_json(
        sqlite_scene.run(["-m", "tests.durable.app", "recover", "run-a"]).stdout
    )
    skipped = [i for i in outcome.history if getattr(i, "call_id", None) == PAUSED_CALL]
    assert skipped[-1].model_dump()["content"] == "tool call skipped: not today"
    assert "start a:1" not in sqlite_scene.events()
    assert_well_formed(outcome.history)


async def test_abort_ends_the_run_with_the_pending_call_closed(sqlite_scene: Scene) -> None:
    _pause(sqlite_scene)
    code, _, err = _pod(sqlite_scene, "approve", "run-a", "--abort", "changed my mind")
    assert code == 0, err
    outcome = RunOutcome.model_validate_json(
        sqlite_scene.run(["-m", "tests.durable.app", "recover", "run-a"]).stdout
    )
    assert outcome.result.kind == "aborted"
    assert outcome.result.model_dump()["reason"] == "changed my mind"
    assert_well_formed(outcome.history)
    assert "start a:1" not in sqlite_scene.events()


BAD_DECISIONS = [
    (["--approve", "nope"], "run run-a has no pending call nope (pending: a-1)"),
    (["--approve", "a-1", "--skip", "a-1"], "call a-1 is both approved and skipped"),
    (["--abort", "--skip", "a-1"], "--abort decides every pending call: give it alone"),
    (["--skip", "=why"], "--skip '=why': expected CALL_ID[=REASON]"),
]


def test_a_bad_decision_is_refused_and_nothing_is_sent(sqlite_scene: Scene) -> None:
    _pause(sqlite_scene)  # one paused run for every case: each process start costs seconds
    for arguments, message in BAD_DECISIONS:
        code, out, err = _pod(sqlite_scene, "approve", "run-a", *arguments)
        assert (code, out, err) == (2, "", f"error: {message}\n"), arguments
    code, out, err = _pod(sqlite_scene, "approve", "run-zzz")
    assert (code, out) == (2, "")
    assert err == f"error: no durable run 'run-zzz' in {sqlite_scene.database}\n"
    with DurableRuns(sqlite_scene.database) as runs:
        assert runs.get("run-a").pending_calls == (PAUSED_CALL,)  # still waiting
