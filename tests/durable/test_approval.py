"""Durable approval: a run pauses and its process exits; ``pod approve`` runs in a second
process; a third process completes the run. Bad decisions are refused and send nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from dbos import DBOSClient

from llm_worker import Aborted, ApprovalMismatchError, Finished, Paused, ToolResult
from llm_worker.testing import assert_well_formed
from pod import Pod
from pod.durable import DurableRuns, RunDecision, RunOutcome
from pod.durable._agent import DECISION_TOPIC
from pod.durable._system import database_url
from tests.cli.terminal import Terminal

from . import app
from .conftest import REPO, Scene, counts

PAUSED_CALL = f"a-{app.APPROVAL_STEP}"


def _pause(scene: Scene, run_id: str = "run-a", *, agent: str = "approval") -> None:
    paused = scene.run(["-m", "tests.durable.app", "until-paused", agent, "a", run_id])
    assert paused.returncode == 0, paused.stderr


def _pod(scene: Scene, *arguments: str) -> tuple[int, str, str]:
    done = scene.run(["-m", "pod", *arguments, "--database", scene.database])
    return done.returncode, done.stdout, done.stderr


async def _reference(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Pod:
    monkeypatch.setenv("POD_TEST_COUNTS", str(folder))
    pod = Pod(**app.parts(approval=True))
    paused = await pod.run("a")
    assert isinstance(paused, Paused)
    assert isinstance(await pod.resume({PAUSED_CALL: paused.pending_calls[0].approve()}), Finished)
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
    assert listed["executor"] == "local"  # the worker holding it: SQLite's one process
    code, out, err = _pod(sqlite_scene, "runs")
    assert code == 0, err
    # off a terminal, a table wider than 80 columns is a list: the id on a line of its own
    assert "\nrun-a\n  agent              approval\n  status             paused\n" in out, out
    assert "\n  worker             local\n" in out, out

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
    reference = await _reference(reference_folder, monkeypatch)
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
    code, _, err = _pod(sqlite_scene, "approve", "run-a", "--abort")
    assert code == 0, err
    outcome = RunOutcome.model_validate_json(
        sqlite_scene.run(["-m", "tests.durable.app", "recover", "run-a"]).stdout
    )
    assert outcome.result.kind == "aborted"
    assert outcome.result.model_dump()["reason"] == "aborted by the user"
    assert_well_formed(outcome.history)
    assert "start a:1" not in sqlite_scene.events()
    assert counts(sqlite_scene.events(), "abort ") == {"aborted by the user": 1}


async def test_abort_of_a_pause_with_no_pending_call_tells_the_abort_hooks(
    sqlite_scene: Scene, reference_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pause(sqlite_scene, agent="review")  # paused at TURN_END: no call to decide
    with DurableRuns(sqlite_scene.database) as runs:
        assert runs.get("run-a").pending_calls == ()
    code, out, err = _pod(sqlite_scene, "approve", "run-a", "--abort")
    assert (code, err) == (0, ""), err
    assert "pending calls: none" in out
    recovered = sqlite_scene.run(["-m", "tests.durable.app", "recover", "run-a"])
    outcome = RunOutcome.model_validate_json(recovered.stdout)

    assert outcome.result == Aborted(reason="aborted by the user", turn=0)
    # Counted outside the processes: the ABORT hooks were told once, as in a Pod in memory.
    assert counts(sqlite_scene.events(), "abort ") == {"aborted by the user": 1}
    monkeypatch.setenv("POD_TEST_COUNTS", str(reference_folder))
    pod = Pod(**app.parts(review=True))
    assert isinstance(await pod.run("a"), Paused)
    assert await pod.abort("aborted by the user") == outcome.result
    assert outcome.history == pod.history


BAD_DECISIONS = [
    (["--approve", "nope"], "no pending tool call 'nope' (pending: a-1 work)"),
    (["--approve", "a-1", "--skip", "a-1"], "'a-1' is given two decisions"),
    (
        ["--abort", "--skip", "a-1"],
        "--abort ends the run: it cannot be combined with --approve or --skip",
    ),
    (["--skip", "=why"], "no pending tool call '' (pending: a-1 work)"),
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


def test_pod_approve_asks_in_a_terminal(sqlite_scene: Scene) -> None:
    _pause(sqlite_scene)
    argv = [sys.executable, "-m", "pod", "approve", "run-a", "--database", sqlite_scene.database]
    terminal = Terminal(argv, cwd=REPO)  # the prompt of pod resume, for a durable run
    try:
        terminal.expect(f"{PAUSED_CALL} work")
        terminal.expect("work: approve, skip or abort? [approve/skip/abort]:")
        terminal.type("skip")
        terminal.expect("reason for skipping (the model sees it) (skipped by the user):")
        terminal.type("not now")
        terminal.expect(f"sent to run-a (pending calls: {PAUSED_CALL})")
        assert terminal.finish() == 0
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
    outcome = RunOutcome.model_validate_json(
        sqlite_scene.run(["-m", "tests.durable.app", "recover", "run-a"]).stdout
    )
    results = {i.call_id: i.content for i in outcome.history if isinstance(i, ToolResult)}
    assert results[PAUSED_CALL] == "tool call skipped: not now"


WRONG_DIGEST = "jcs-sha256:" + "0" * 64


async def test_an_approval_names_the_digest_it_was_shown_and_is_consumed_once(
    sqlite_scene: Scene,
) -> None:
    _pause(sqlite_scene)
    with DurableRuns(sqlite_scene.database) as runs:
        paused = runs.get("run-a").paused
        assert paused is not None
        digest = paused.pending_calls[0].digest
        assert digest.startswith("jcs-sha256:")
        # Through the API: refused with both digests, nothing sent.
        with pytest.raises(ApprovalMismatchError, match=f"{WRONG_DIGEST}.*{digest}"):
            runs.approve(
                "run-a", RunDecision(approve=(PAUSED_CALL,), digests={PAUSED_CALL: WRONG_DIGEST})
            )
    # Through pod approve: refused with both digests, nothing sent.
    code, out, err = _pod(
        sqlite_scene, "approve", "run-a", f"--approve={PAUSED_CALL}={WRONG_DIGEST}"
    )
    assert (code, out) == (2, "")
    assert err == (
        f"error: '{PAUSED_CALL}' not approved: the approval names digest {WRONG_DIGEST}, the "
        f"pending call's is {digest}\n"
    )
    # A message that reached the run anyway (a stale or forged one) is refused there too, with
    # both digests: the run goes on waiting, and takes the approval of the call it shows.
    client = DBOSClient(system_database_url=database_url(sqlite_scene.database))
    try:
        stale = RunDecision(approve=(PAUSED_CALL,), digests={PAUSED_CALL: WRONG_DIGEST})
        client.send("run-a", stale.model_dump(mode="json"), DECISION_TOPIC)
    finally:
        client.destroy()
    code, out, err = _pod(sqlite_scene, "approve", "run-a", f"--approve={PAUSED_CALL}={digest}")
    assert (code, err) == (0, ""), err
    # A second decision for the same pause is refused, and nothing is sent: one decision per
    # pause (the skip would have contradicted the approval).
    for second in ([f"--approve={PAUSED_CALL}"], [f"--skip={PAUSED_CALL}=changed my mind"]):
        code, out, err = _pod(sqlite_scene, "approve", "run-a", *second)
        assert (code, out) == (2, ""), second
        assert err == (
            "error: run run-a: this pause was already answered by another decision (the run "
            "takes the first); nothing sent\n"
        )

    recovered = sqlite_scene.run(["-m", "tests.durable.app", "recover", "run-a"])
    assert recovered.returncode == 0, recovered.stderr
    assert (
        f"refused an approval of another call than the pending one: {PAUSED_CALL} was shown as "
        f"{WRONG_DIGEST}, the pending call is {digest}"
    ) in recovered.stderr
    outcome = RunOutcome.model_validate_json(recovered.stdout)
    assert isinstance(outcome.result, Finished)
    assert_well_formed(outcome.history)
    # The approved call ran once.
    assert counts(sqlite_scene.events(), "end ") == {f"a:{n}": 1 for n in range(app.STEPS)}
