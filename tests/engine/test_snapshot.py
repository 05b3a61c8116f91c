"""A paused run saved as JSON resumes in a fresh Worker exactly where it stopped."""

from __future__ import annotations

import json

import pytest

from llm_worker import (
    ITEMS_ADAPTER,
    SNAPSHOT_VERSION,
    Approve,
    Continue,
    Finished,
    Pause,
    Paused,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Skip,
    SnapshotError,
    ToolCallSummary,
    UsageError,
    Worker,
    WorkerSnapshot,
    WorkerStateError,
)
from llm_worker.testing import assert_well_formed
from pod import HookRegistry, events

from .conftest import echo

SCRIPT = [
    ScriptedReply(
        calls=[
            ScriptedCall("echo", {"text": "a"}, call_id="a"),
            ScriptedCall("echo", {"text": "b"}, call_id="b"),
        ]
    ),
    ScriptedReply("done"),
]


def approval_hooks() -> HookRegistry:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def ask(call: ToolCallSummary) -> Continue | Pause:
        return Pause(reason=f"approve {call.call_id}?")

    return registry


def fresh_worker() -> Worker:
    return Worker(ScriptedClient(SCRIPT), tools=[echo], hooks=approval_hooks().freeze())


async def test_a_paused_run_resumes_from_json_in_a_fresh_worker() -> None:
    first = fresh_worker()
    paused = await first.run("go")
    assert isinstance(paused, Paused)
    saved = first.snapshot().to_json()

    # A new process: same configuration, state from the JSON text only.
    second = Worker(ScriptedClient(SCRIPT[1:]), tools=[echo], hooks=approval_hooks().freeze())
    second.restore(WorkerSnapshot.from_json(saved))
    assert second.status == "paused"
    # The digest shown before the save approves the restored run: it is the same run.
    assert second.run_id == first.run_id
    approve_a = paused.pending_calls[0].approve()
    result = await second.resume({"a": approve_a, "b": Skip(reason="no")})
    assert result == Finished(text="done", turn=0)

    # The same decisions without the interruption give the same history.
    uninterrupted = fresh_worker()
    shown = await uninterrupted.run("go")
    assert isinstance(shown, Paused)
    await uninterrupted.resume({"a": shown.pending_calls[0].approve(), "b": Skip(reason="no")})
    assert ITEMS_ADAPTER.dump_json(list(second.history)) == ITEMS_ADAPTER.dump_json(
        list(uninterrupted.history)
    )
    assert_well_formed(second.history)


async def test_an_unresolved_call_in_a_restored_run_is_put_to_the_hooks_again() -> None:
    first = fresh_worker()
    await first.run("go")
    second = fresh_worker()
    second.restore(WorkerSnapshot.from_json(first.snapshot().to_json()))
    again = await second.resume()
    assert isinstance(again, Paused)
    assert again.reason == "approve a?"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", r"^not a snapshot: invalid JSON"),
        ('{"format": "something else"}', r"^not a snapshot: expected format"),
        (
            json.dumps({"format": "llm-pod/worker-snapshot", "version": SNAPSHOT_VERSION + 1}),
            r"^snapshot version 2 is not supported by this llm-pod \(it reads version 1\)",
        ),
        (
            json.dumps({"format": "llm-pod/worker-snapshot", "version": 1, "history": []}),
            r"^corrupt snapshot: ",
        ),
    ],
)
def test_bad_snapshots_are_refused_clearly(text: str, message: str) -> None:
    with pytest.raises(SnapshotError, match=message):
        WorkerSnapshot.from_json(text)


async def test_a_snapshot_whose_pending_call_is_missing_is_refused() -> None:
    first = fresh_worker()
    await first.run("go")
    data = json.loads(first.snapshot().to_json())
    data["history"] = data["history"][:1]  # drop the tool calls
    with pytest.raises(SnapshotError, match="pending call 'a' is not in the history"):
        WorkerSnapshot.from_json(json.dumps(data))


async def test_a_running_worker_cannot_be_saved() -> None:
    worker = fresh_worker()
    worker._state.status = "running"  # as seen from inside a hook's task
    with pytest.raises(WorkerStateError, match="cannot snapshot a running Worker"):
        worker.snapshot()


async def test_a_snapshot_saved_before_runs_had_ids_resumes_with_its_own_digests() -> None:
    first = fresh_worker()
    assert isinstance(await first.run("go"), Paused)
    document = json.loads(first.snapshot().to_json())
    del document["run_id"]  # as an earlier version wrote it
    legacy = WorkerSnapshot.from_json(json.dumps(document))
    assert legacy.run_id == ""

    # Even a Worker given a run id takes the snapshot's (none): its digests are the snapshot's.
    second = Worker(
        ScriptedClient(SCRIPT[1:]), tools=[echo], hooks=approval_hooks().freeze(), run_id="r-2"
    )
    second.restore(legacy)
    assert second.run_id == ""
    digests = legacy.pending_digests()
    result = await second.resume({"a": Approve(digest=digests["a"]), "b": Skip(reason="no")})
    assert result == Finished(text="done", turn=0)


def test_a_run_id_is_not_empty() -> None:
    with pytest.raises(UsageError, match=r"run_id must not be empty \(give None for a fresh one\)"):
        Worker(ScriptedClient([]), run_id="")
    assert Worker(ScriptedClient([])).run_id != Worker(ScriptedClient([])).run_id
