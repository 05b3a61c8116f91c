"""Notifications: pushed from anywhere, flushed before the next request, never lost or doubled."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from pod_helpers import assert_well_formed

from llm_worker import (
    Item,
    LlmRequest,
    Message,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    tool,
)
from pod import (
    NOTIFICATION_PREFIX,
    Abort,
    Aborted,
    Continue,
    Finished,
    HookRegistry,
    Pause,
    Paused,
    Pod,
    PodSettings,
    PodUsageError,
    PreRequestInfo,
    PromptSubmitInfo,
    TraceEvent,
    events,
)


def notifications(items: tuple[Item, ...] | list[Item]) -> list[str]:
    """The notification texts in ``items``, in order."""
    return [
        item.text.removeprefix(NOTIFICATION_PREFIX)
        for item in items
        if isinstance(item, Message) and item.text.startswith(NOTIFICATION_PREFIX)
    ]


async def test_notifications_from_a_thread_and_a_task_land_once_and_in_order() -> None:
    count = 300
    thread_done = threading.Event()
    task_done = threading.Event()
    holder: list[Pod] = []

    def from_thread() -> None:
        for index in range(count):
            holder[0].notify(f"thread {index}")
            time.sleep(0)  # give up the GIL: pushes interleave with the run's steps
        thread_done.set()

    thread = threading.Thread(target=from_thread)

    @tool
    async def tick() -> str:
        """Do a little work."""
        if not thread.is_alive() and not thread_done.is_set():
            thread.start()  # from inside the run, so it pushes while the run goes on
        # A real (tiny) sleep idles the loop, so the notifying thread gets the GIL even on a
        # loaded machine; sleep(0) alone starved it into the request limit under load.
        await asyncio.sleep(0.0002)
        return "tock"

    def model(request: LlmRequest) -> ScriptedReply:
        if thread_done.is_set() and task_done.is_set():
            return ScriptedReply(text="done")
        return ScriptedReply(calls=[ScriptedCall("tick")])

    pod = Pod(
        ScriptedClient(then=model, record=False),
        tools=[tick],
        settings=PodSettings(max_requests_per_turn=1_000_000, compaction_threshold_tokens=None),
    )
    holder.append(pod)

    async def from_task() -> None:
        for index in range(count):
            pod.notify(f"task {index}")
            await asyncio.sleep(0)
        task_done.set()

    async with asyncio.TaskGroup() as group:
        run = group.create_task(pod.run("work"))
        group.create_task(from_task())
    thread.join()

    assert isinstance(run.result(), Finished)
    landed = notifications(pod.history)
    assert len(landed) + pod.pending_notifications == 2 * count  # none lost so far
    assert isinstance(await pod.run("again"), Finished)  # flushes what came after the last request
    assert pod.pending_notifications == 0
    landed = notifications(pod.history)
    assert sorted(landed) == sorted(
        [f"thread {i}" for i in range(count)] + [f"task {i}" for i in range(count)]
    )
    assert [t for t in landed if t.startswith("thread")] == [f"thread {i}" for i in range(count)]
    assert [t for t in landed if t.startswith("task")] == [f"task {i}" for i in range(count)]
    assert_well_formed(pod.history)


async def test_a_notification_is_a_user_message_flushed_just_before_the_request() -> None:
    client = ScriptedClient([ScriptedReply(text="ok")])
    pod = Pod(client)
    pod.notify("build 42 passed")
    assert pod.pending_notifications == 1
    assert isinstance(await pod.run("status?"), Finished)
    (sent,) = client.requests
    assert sent == (
        Message(role="user", text="status?"),
        Message(role="user", text=NOTIFICATION_PREFIX + "build 42 passed"),
    )
    assert pod.pending_notifications == 0


async def test_notifications_stay_pending_when_the_run_aborts_before_the_flush() -> None:
    registry = HookRegistry()
    refuse = [True]

    @registry.on(events.PROMPT_SUBMIT)
    def gate(info: PromptSubmitInfo) -> Continue | Abort:
        return Abort(reason="not now") if refuse[0] else Continue()

    pod = Pod(ScriptedClient([ScriptedReply(text="ok")]), hooks=registry)
    pod.notify("a")
    pod.notify("b")
    assert isinstance(await pod.run("first"), Aborted)
    assert pod.pending_notifications == 2
    assert notifications(pod.history) == []
    refuse[0] = False
    assert isinstance(await pod.run("second"), Finished)
    assert notifications(pod.history) == ["a", "b"]


async def test_notifications_are_not_doubled_by_a_pause_and_resume() -> None:
    registry = HookRegistry()
    pauses = [1]

    @registry.on(events.PRE_LLM_REQUEST)
    def hold(info: PreRequestInfo) -> Continue | Pause:
        if pauses[0]:
            pauses[0] -= 1
            return Pause(reason="wait")
        return Continue()

    @tool
    def noop() -> str:
        """Nothing."""
        return "done"

    client = ScriptedClient([ScriptedReply(calls=[ScriptedCall("noop")]), ScriptedReply(text="ok")])
    pod = Pod(client, tools=[noop], hooks=registry)
    pod.notify("x")
    paused = await pod.run("go")
    assert isinstance(paused, Paused)
    assert notifications(pod.history) == ["x"]  # flushed before the hooks: durable
    pod.notify("y")  # arrives during the pause: waits for the next request
    assert isinstance(await pod.resume(), Finished)
    assert notifications(pod.history) == ["x", "y"]
    first, second = client.requests
    assert notifications(list(first)) == ["x"]
    assert notifications(list(second)) == ["x", "y"]


async def test_a_notification_flushed_before_a_compaction_yield_is_not_flushed_again() -> None:
    chunk = "z" * 400
    holder: list[Pod] = []

    @tool
    def read(index: int) -> str:
        """Read a chunk."""
        if index == 3:
            holder[0].notify("mid-run news")
        return chunk

    agent_requests: list[tuple[Item, ...]] = []

    def model(request: LlmRequest) -> ScriptedReply:
        if request.system_prompt is not None:  # the summary request
            return ScriptedReply(text="summary")
        agent_requests.append(tuple(request.items))
        calls = len(agent_requests) - 1
        if calls < 4:
            return ScriptedReply(
                text=f"step {calls}", calls=[ScriptedCall("read", {"index": calls + 1})]
            )
        return ScriptedReply(text="done")

    trace: list[TraceEvent] = []
    pod = Pod(
        ScriptedClient(then=model),
        tools=[read],
        settings=PodSettings(compaction_threshold_tokens=250, compaction_keep_recent=3),
        trace=trace.append,
    )
    holder.append(pod)
    assert isinstance(await pod.run("go"), Finished)
    assert any(item.kind == "summary" for item in pod.history)
    assert notifications(pod.history) == ["mid-run news"]
    # The flush and the yield happened at the same request; the resumed request did not flush.
    steps = [(e.actor, e.message) for e in trace if e.source == "interceptor"]
    flush = steps.index(("notification", "flushed 1 notification(s) into the history"))
    assert steps[flush + 1][0] == "compaction"
    assert "yield" in steps[flush + 1][1]
    assert [len(notifications(list(r))) for r in agent_requests].count(1) >= 1
    assert all(len(notifications(list(r))) <= 1 for r in agent_requests)
    assert_well_formed(pod.history)


def test_an_empty_notification_is_refused() -> None:
    pod = Pod(ScriptedClient())
    with pytest.raises(PodUsageError, match=r"^a notification needs some text$"):
        pod.notify("  ")
    assert pod.pending_notifications == 0
