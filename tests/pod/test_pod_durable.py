"""Durable pause/resume of a Pod through JSON, and cancelling the task that runs a Pod."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest

from llm_worker import (
    ITEMS_ADAPTER,
    Message,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolResult,
    tool,
)
from llm_worker.testing import assert_well_formed
from pod import (
    NOTIFICATION_PREFIX,
    Abort,
    Aborted,
    AbortInfo,
    Continue,
    Finished,
    HookRegistry,
    Pause,
    Paused,
    Pod,
    PodSnapshot,
    PodUsageError,
    Skip,
    SnapshotError,
    ToolCallSummary,
    TurnEndInfo,
    WorkerStateError,
    events,
)
from pod.runtime._snapshot import POD_SNAPSHOT_VERSION

SCRIPT = (
    ScriptedReply(
        calls=(
            ScriptedCall("shell", {"command": "deploy"}, call_id="deploy"),
            ScriptedCall("shell", {"command": "ls"}, call_id="ls"),
        )
    ),
    ScriptedReply("all done"),
)


@tool
def shell(command: str) -> str:
    """Run a command."""
    return f"ran {command}"


def approval_pod(script: tuple[ScriptedReply, ...] = SCRIPT) -> Pod:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def ask_for_deploys(call: ToolCallSummary) -> Continue | Pause:
        if call.argument("command") == "deploy":
            return Pause(reason="a human must approve deploys")
        return Continue()

    return Pod(ScriptedClient(script), tools=[shell], hooks=registry)


async def test_a_paused_pod_resumes_from_json_in_a_fresh_pod() -> None:
    first = approval_pod()
    paused = await first.run("ship it")
    assert isinstance(paused, Paused)
    first.notify("the on-call engineer was paged")
    saved = first.snapshot().to_json()

    second = approval_pod(SCRIPT[1:])
    second.restore(PodSnapshot.from_json(saved))
    assert second.status == "paused"
    assert second.pending_notifications == 1
    # The digest shown before the save still approves: the restored Pod is the same run.
    result = await second.resume({"deploy": paused.pending_calls[0].approve()})
    assert result == Finished(text="all done", turn=0)

    reference = approval_pod()
    shown = await reference.run("ship it")
    assert isinstance(shown, Paused)
    reference.notify("the on-call engineer was paged")
    await reference.resume({"deploy": shown.pending_calls[0].approve()})
    assert ITEMS_ADAPTER.dump_json(list(second.history)) == ITEMS_ADAPTER.dump_json(
        list(reference.history)
    )
    notifications = [
        item
        for item in second.history
        if isinstance(item, Message) and item.text.startswith(NOTIFICATION_PREFIX)
    ]
    assert len(notifications) == 1
    assert_well_formed(second.history)


async def test_an_undecided_pending_call_is_put_to_the_hooks_again_after_restore() -> None:
    first = approval_pod()
    await first.run("ship it")
    second = approval_pod(SCRIPT[1:])
    second.restore(PodSnapshot.from_json(first.snapshot().to_json()))
    again = await second.resume()
    assert isinstance(again, Paused)
    assert again.reason == "a human must approve deploys"
    done = await second.resume({"deploy": Skip(reason="not today")})
    assert done == Finished(text="all done", turn=0)
    results = {i.call_id: i.content for i in second.history if isinstance(i, ToolResult)}
    assert results == {"deploy": "tool call skipped: not today", "ls": "ran ls"}


async def test_restore_needs_a_fresh_pod_and_a_valid_snapshot() -> None:
    first = approval_pod()
    await first.run("ship it")
    snapshot = first.snapshot()
    with pytest.raises(PodUsageError, match="fresh Pod"):
        first.restore(snapshot)
    data = json.loads(snapshot.to_json())
    data["version"] = 99
    with pytest.raises(SnapshotError, match=r"Pod snapshot version 99 is not supported"):
        PodSnapshot.from_json(json.dumps(data))
    data["version"] = POD_SNAPSHOT_VERSION
    data["worker"]["version"] = 7
    with pytest.raises(SnapshotError, match=r"^snapshot version 7 is not supported"):
        PodSnapshot.from_json(json.dumps(data))
    with pytest.raises(SnapshotError, match="not a Pod snapshot"):
        PodSnapshot.from_json(b"\xff\xfe")


async def test_cancelling_the_task_running_a_pod_keeps_history_and_pod_usable() -> None:
    started = asyncio.Event()

    @tool
    async def slow(seconds: float) -> str:
        """Sleep."""
        started.set()
        await asyncio.sleep(seconds)
        return "slept"

    client = ScriptedClient(
        [
            ScriptedReply(
                calls=(
                    ScriptedCall("slow", {"seconds": 30}, call_id="long"),
                    ScriptedCall("slow", {"seconds": 30}, call_id="longer"),
                )
            ),
            ScriptedReply("second run"),
        ]
    )
    pod = Pod(client, tools=[slow])
    task = asyncio.create_task(pod.run("sleep"))
    await started.wait()
    pod.notify("arrived during the cancelled run")
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()
    results = [i for i in pod.history if isinstance(i, ToolResult)]
    assert [(r.call_id, r.content) for r in results] == [
        ("long", "not run: the run was cancelled"),
        ("longer", "not run: the run was cancelled"),
    ]
    assert_well_formed(pod.history)
    assert pod.status == "idle"
    assert pod.pending_notifications == 1  # kept for the next request
    assert await pod.run("again") == Finished(text="second run", turn=1)
    assert pod.pending_notifications == 0


async def test_abort_ends_a_pause_with_no_pending_call_and_tells_the_abort_hooks() -> None:
    registry = HookRegistry()
    told: list[AbortInfo] = []

    @registry.on(events.TURN_END)
    def review(info: TurnEndInfo) -> Continue | Pause:
        return Pause(reason="a human reviews the answer")

    @registry.on(events.ABORT)
    def count(info: AbortInfo) -> None:
        told.append(info)

    pod = Pod(ScriptedClient((ScriptedReply("the answer"),)), hooks=registry)
    paused = await pod.run("question")
    assert isinstance(paused, Paused)
    assert paused.pending_calls == ()
    with pytest.raises(WorkerStateError):  # no decision can end this pause
        await pod.resume({"nothing": Abort(reason="no")})

    aborted = await pod.abort("not good enough")

    assert aborted == Aborted(reason="not good enough", turn=0)
    assert told == [AbortInfo(reason="not good enough", turn=0)]
    assert pod.status == "idle"
    assert_well_formed(pod.history)
    with pytest.raises(WorkerStateError, match="nothing to abort"):
        await pod.abort("again")


async def test_abort_closes_the_pending_calls_of_a_paused_run() -> None:
    pod = approval_pod()
    paused = await pod.run("deploy it")
    assert isinstance(paused, Paused)

    aborted = await pod.abort("changed my mind")

    assert aborted.reason == "changed my mind"
    results = {i.call_id: i for i in pod.history if isinstance(i, ToolResult)}
    assert set(results) == {"deploy", "ls"}
    assert all(r.is_error for r in results.values())
    assert_well_formed(pod.history)
