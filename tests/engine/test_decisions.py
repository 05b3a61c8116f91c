"""What each decision does: Skip, Abort, Pause and resume."""

from __future__ import annotations

import pytest

from llm_worker import (
    Abort,
    Aborted,
    AbortInfo,
    Continue,
    Finished,
    LimitReached,
    Pause,
    Paused,
    PendingCall,
    PreRequestInfo,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Skip,
    ToolCallSummary,
    ToolResult,
    ToolResultSummary,
    TurnEndInfo,
    Worker,
    WorkerStateError,
    call_digest,
)
from llm_worker.testing import assert_well_formed
from pod import HookRegistry, events

from .conftest import RecordingInterceptor, echo

TWO_CALLS = ScriptedReply(
    calls=[
        ScriptedCall("echo", {"text": "a"}, call_id="a"),
        ScriptedCall("echo", {"text": "b"}, call_id="b"),
    ]
)


def results(worker: Worker) -> dict[str, ToolResult]:
    return {item.call_id: item for item in worker.history if isinstance(item, ToolResult)}


def pre_tool(decide: dict[str, Continue | Skip | Abort | Pause]) -> HookRegistry:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def gate(call: ToolCallSummary) -> Continue | Skip | Abort | Pause:
        return decide.get(call.call_id, Continue())

    return registry


async def test_skip_gives_a_synthetic_error_result_and_the_run_goes_on() -> None:
    client = ScriptedClient([TWO_CALLS, ScriptedReply("done")])
    hooks = pre_tool({"a": Skip(reason="not allowed here")}).freeze()
    worker = Worker(client, tools=[echo], hooks=hooks)
    assert await worker.run("go") == Finished(text="done", turn=0)
    by_id = results(worker)
    assert by_id["a"].is_error
    assert by_id["a"].content == "tool call skipped: not allowed here"
    assert (by_id["b"].is_error, by_id["b"].content) == (False, "b")
    # The model saw both results, in call order, in its next request.
    last_request = client.requests[-1]
    assert [i.call_id for i in last_request if isinstance(i, ToolResult)] == ["a", "b"]
    assert_well_formed(worker.history)


async def test_abort_ends_the_run_with_the_reason_and_closes_open_calls() -> None:
    log: list[str] = []
    aborted: list[AbortInfo] = []
    registry = pre_tool({"a": Abort(reason="policy violation")})
    registry.on(events.ABORT, aborted.append)  # type: ignore[arg-type]
    worker = Worker(
        ScriptedClient([TWO_CALLS, ScriptedReply("never")]),
        tools=[echo],
        interceptors=[RecordingInterceptor(log)],
        hooks=registry.freeze(),
    )
    assert await worker.run("go") == Aborted(reason="policy violation", turn=0)
    assert aborted == [AbortInfo(reason="policy violation", turn=0)]
    assert log[-1] == "interceptor:abort"
    by_id = results(worker)
    assert by_id["a"].content == "not run: the run was aborted (policy violation)"
    assert by_id["b"].content == "not run: the run was aborted (policy violation)"
    assert_well_formed(worker.history)
    assert worker.status == "idle"


async def test_pause_returns_paused_and_resume_with_a_decision_continues_exactly_there() -> None:
    asked: list[str] = []
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def ask_human(call: ToolCallSummary) -> Continue | Pause:
        asked.append(call.call_id)
        return Pause(reason=f"approve {call.call_id}?")

    worker = Worker(
        ScriptedClient([TWO_CALLS, ScriptedReply("done")]), tools=[echo], hooks=registry.freeze()
    )
    paused = await worker.run("go")
    assert paused == Paused(
        point="pre_tool_call",
        reason="approve a?",
        pending_calls=(
            PendingCall(
                call_id="a",
                tool_name="echo",
                arguments='{"text": "a"}',
                digest=call_digest(
                    run_id=worker.run_id,
                    turn=0,
                    call_id="a",
                    tool_name="echo",
                    arguments='{"text": "a"}',
                ),
            ),
            PendingCall(
                call_id="b",
                tool_name="echo",
                arguments='{"text": "b"}',
                digest=call_digest(
                    run_id=worker.run_id,
                    turn=0,
                    call_id="b",
                    tool_name="echo",
                    arguments='{"text": "b"}',
                ),
            ),
        ),
        turn=0,
    )
    history_at_pause = worker.history

    # Without a decision the hooks are asked again: the pause is not forgotten.
    again = await worker.resume()
    assert isinstance(again, Paused)
    assert asked == ["a", "a"]
    assert worker.history == history_at_pause

    with pytest.raises(WorkerStateError, match="no pending tool call with id zzz"):
        await worker.resume({"zzz": Skip(reason="no such call")})

    approve_a = paused.pending_calls[0].approve()
    done = await worker.resume({"a": approve_a, "b": Skip(reason="human said no")})
    assert done == Finished(text="done", turn=0)
    assert asked == ["a", "a"]  # decided calls are not put to the hooks again
    by_id = results(worker)
    assert (by_id["a"].content, by_id["b"].content) == ("a", "tool call skipped: human said no")
    assert_well_formed(worker.history)


async def test_a_paused_run_abandoned_for_a_new_prompt_closes_its_calls() -> None:
    registry = pre_tool({"a": Pause(reason="wait")})
    worker = Worker(
        ScriptedClient([TWO_CALLS, ScriptedReply("second turn")]),
        tools=[echo],
        hooks=registry.freeze(),
    )
    assert isinstance(await worker.run("go"), Paused)
    assert await worker.run("never mind") == Finished(text="second turn", turn=1)
    by_id = results(worker)
    abandoned = "not run: the paused run was abandoned for a new prompt"
    assert (by_id["a"].content, by_id["b"].content) == (abandoned, abandoned)
    assert_well_formed(worker.history)


async def test_pause_before_a_request_resumes_with_that_request() -> None:
    seen: list[int] = []
    registry = HookRegistry()

    @registry.on(events.PRE_LLM_REQUEST)
    def budget(info: PreRequestInfo) -> Continue | Pause:
        seen.append(info.request_index)
        return Pause(reason="budget check") if info.request_index == 1 else Continue()

    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("echo", {"text": "x"})]), ScriptedReply("done")]
    )
    worker = Worker(client, tools=[echo], hooks=registry.freeze())
    paused = await worker.run("go")
    assert isinstance(paused, Paused)
    assert (paused.point, paused.reason, paused.pending_calls) == (
        "pre_llm_request",
        "budget check",
        (),
    )
    assert len(client.requests) == 1
    assert await worker.resume() == Finished(text="done", turn=0)
    assert seen == [0, 1]  # not asked again: resuming is the go-ahead
    assert len(client.requests) == 2


async def test_pause_after_a_result_resumes_with_the_next_result() -> None:
    seen: list[str] = []
    registry = HookRegistry()

    @registry.on(events.POST_TOOL_CALL)
    def review(result: ToolResultSummary) -> Continue | Pause:
        seen.append(result.call_id)
        return Pause(reason="review") if result.call_id == "a" else Continue()

    worker = Worker(
        ScriptedClient([TWO_CALLS, ScriptedReply("done")]), tools=[echo], hooks=registry.freeze()
    )
    paused = await worker.run("go")
    assert isinstance(paused, Paused)
    assert paused.point == "post_tool_call"
    assert list(results(worker)) == ["a"]  # a's result is in; b's waits
    assert await worker.resume() == Finished(text="done", turn=0)
    assert seen == ["a", "b"]
    assert_well_formed(worker.history)


async def test_pause_at_turn_end_resumes_to_finished() -> None:
    registry = HookRegistry()
    registry.on(events.TURN_END, lambda info: Pause(reason=f"check {info.final_text_preview}"))
    worker = Worker(ScriptedClient([ScriptedReply("answer")]), hooks=registry.freeze())
    paused = await worker.run("go")
    assert isinstance(paused, Paused)
    assert (paused.point, paused.reason) == ("turn_end", "check answer")
    assert await worker.resume() == Finished(text="answer", turn=0)
    with pytest.raises(WorkerStateError, match="nothing to resume: the Worker is idle"):
        await worker.resume()


async def test_turn_end_summary_counts_the_calls_of_the_turn() -> None:
    seen: list[TurnEndInfo] = []
    registry = HookRegistry()
    registry.on(events.TURN_END, lambda info: (seen.append(info), Continue())[1])
    worker = Worker(
        ScriptedClient([TWO_CALLS, ScriptedReply("é" * 600)]), tools=[echo], hooks=registry.freeze()
    )
    await worker.run("go")
    assert seen[0].tool_calls_in_turn == 2
    assert seen[0].final_text_preview == "é" * 256  # 512 UTF-8 bytes, cut between characters


async def test_a_turn_that_keeps_calling_tools_reaches_its_limit_well_formed() -> None:
    forever = ScriptedReply(calls=[ScriptedCall("echo", {"text": "again"})])
    worker = Worker(ScriptedClient(then=forever), tools=[echo], max_requests_per_turn=3)
    assert await worker.run("go") == LimitReached(limit=3, turn=0)
    assert sum(isinstance(item, ToolResult) for item in worker.history) == 3
    assert_well_formed(worker.history)
