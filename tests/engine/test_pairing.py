"""The pairing invariant: every tool call ends with exactly one result, whatever happens."""

from __future__ import annotations

import asyncio

import pytest

from llm_worker import (
    Aborted,
    Continue,
    Finished,
    LlmRequest,
    LlmResponse,
    Pause,
    Paused,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolCallSummary,
    ToolResult,
    Worker,
    WorkerStateError,
    tool,
)
from llm_worker.testing import assert_well_formed, pairing_problems
from pod import HookRegistry, events

from .conftest import echo, fail

started = asyncio.Event()


@tool
async def hang(seconds: float) -> str:
    """Sleep for a long time."""
    started.set()
    await asyncio.sleep(seconds)
    return "woke up"


def contents(worker: Worker) -> dict[str, tuple[bool, str]]:
    return {
        item.call_id: (item.is_error, item.content)
        for item in worker.history
        if isinstance(item, ToolResult)
    }


async def test_tool_failures_become_error_results_the_model_sees() -> None:
    client = ScriptedClient(
        [
            ScriptedReply(
                calls=[
                    ScriptedCall("fail", {"message": "disk full"}, call_id="raises"),
                    ScriptedCall("echo", {"text": 5}, call_id="invalid"),
                    ScriptedCall("echo", "{not json", call_id="malformed"),
                    ScriptedCall("echo", "[1, 2]", call_id="not_object"),
                    ScriptedCall("rm_rf", {}, call_id="unknown"),
                    ScriptedCall("echo", {"text": "fine"}, call_id="ok"),
                ]
            ),
            ScriptedReply("recovered"),
        ]
    )
    worker = Worker(client, tools=[echo, fail])
    assert await worker.run("go") == Finished(text="recovered", turn=0)
    got = contents(worker)
    assert got["raises"] == (True, "tool fail failed: RuntimeError: disk full")
    assert got["invalid"] == (
        True,
        "invalid arguments for echo: text: Input should be a valid string",
    )
    assert got["malformed"][0]
    assert got["malformed"][1].startswith("arguments are not valid JSON: ")
    assert got["not_object"] == (True, "arguments must be a JSON object")
    assert got["unknown"] == (True, "unknown tool 'rm_rf' (available: echo, fail)")
    assert got["ok"] == (False, "fine")
    assert list(got) == ["raises", "invalid", "malformed", "not_object", "unknown", "ok"]
    assert_well_formed(worker.history)


async def test_a_tool_past_its_timeout_gets_an_error_result() -> None:
    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("hang", {"seconds": 30})]), ScriptedReply("ok")]
    )
    worker = Worker(client, tools=[hang], tool_timeout=0.05)
    assert await worker.run("go") == Finished(text="ok", turn=0)
    assert list(contents(worker).values()) == [(True, "tool hang timed out after 0.05s")]


async def test_approved_calls_run_concurrently_and_results_keep_call_order() -> None:
    order: list[str] = []

    @tool
    async def slow(name: str, delay: float) -> str:
        """Finish after a delay."""
        await asyncio.sleep(delay)
        order.append(name)
        return name

    client = ScriptedClient(
        [
            ScriptedReply(
                calls=[
                    ScriptedCall("slow", {"name": "first", "delay": 0.2}, call_id="1"),
                    ScriptedCall("slow", {"name": "second", "delay": 0.0}, call_id="2"),
                ]
            ),
            ScriptedReply("ok"),
        ]
    )
    worker = Worker(client, tools=[slow])
    await worker.run("go")
    assert order == ["second", "first"]  # both were running at once
    assert [c for c, _ in contents(worker).items()] == ["1", "2"]


async def test_a_failing_hook_aborts_the_run_with_a_well_formed_history() -> None:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def broken(call: ToolCallSummary) -> Continue:
        raise KeyError("rules")

    worker = Worker(
        ScriptedClient(
            [ScriptedReply(calls=[ScriptedCall("echo", {"text": "x"}), ScriptedCall("echo", {})])]
        ),
        tools=[echo],
        hooks=registry.freeze(),
    )
    result = await worker.run("go")
    assert isinstance(result, Aborted)
    assert result.reason == (
        f"hook {__name__}.{broken.__qualname__} on PRE_TOOL_CALL failed: raised KeyError: 'rules'"
        f" at tests/engine/test_pairing.py:{broken.__code__.co_firstlineno + 2}"
    )
    assert result.error_type == "HookFailedError"
    assert len(contents(worker)) == 2
    assert_well_formed(worker.history)


async def test_a_failed_model_request_aborts_without_touching_the_history() -> None:
    worker = Worker(ScriptedClient([]))
    result = await worker.run("go")
    assert result == Aborted(
        reason="model request failed: scripted: the script has no reply left",
        turn=0,
        error_type="LlmClientError",
    )
    assert [item.kind for item in worker.history] == ["message"]


async def test_cancelling_the_run_during_tool_execution_closes_every_call() -> None:
    started.clear()
    client = ScriptedClient(
        [
            ScriptedReply(
                calls=[
                    ScriptedCall("echo", {"text": "quick"}, call_id="quick"),
                    ScriptedCall("hang", {"seconds": 60}, call_id="slow"),
                ]
            ),
            ScriptedReply("after cancel"),
        ]
    )
    worker = Worker(client, tools=[echo, hang])
    task = asyncio.create_task(worker.run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    got = contents(worker)
    assert got["slow"] == (True, "not run: the run was cancelled")
    assert list(got) == ["quick", "slow"]
    assert_well_formed(worker.history)
    # The Worker is usable again.
    assert worker.status == "idle"
    assert await worker.run("again") == Finished(text="after cancel", turn=1)


async def test_cancelling_the_run_while_a_hook_deliberates_closes_every_call() -> None:
    deliberating = asyncio.Event()
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    async def slow_human(call: ToolCallSummary) -> Continue:
        deliberating.set()
        await asyncio.sleep(60)
        return Continue()

    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("echo", {"text": "x"}), ScriptedCall("echo", {})])]
    )
    worker = Worker(client, tools=[echo], hooks=registry.freeze())
    task = asyncio.create_task(worker.run("go"))
    await deliberating.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(contents(worker)) == 2
    assert_well_formed(worker.history)


async def test_cancelling_during_the_model_request_leaves_no_partial_reply() -> None:
    requested = asyncio.Event()

    async def never_answers(request: LlmRequest) -> LlmResponse:
        requested.set()
        await asyncio.sleep(60)
        raise AssertionError("unreachable")

    class Hanging:
        async def complete(self, request: LlmRequest) -> LlmResponse:
            return await never_answers(request)

    worker = Worker(Hanging())
    task = asyncio.create_task(worker.run("go"))
    await requested.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [item.kind for item in worker.history] == ["message"]


def test_pairing_problems_names_each_kind_of_breakage() -> None:
    from llm_worker import ToolCall

    call = ToolCall(call_id="c", name="t", arguments="{}")
    answer = ToolResult(call_id="c", name="t", content="")
    assert pairing_problems([call, answer]) == []
    assert pairing_problems([call]) == ["item 0: call 'c' has no result"]
    assert pairing_problems([answer]) == ["item 0: result for unknown call 'c'"]
    assert pairing_problems([call, answer, answer]) == ["item 2: second result for call 'c'"]


async def test_a_tool_that_returns_something_other_than_text_gets_an_error_result() -> None:
    class Sloppy:
        name = "sloppy"
        description = "Returns a number, against the protocol."
        parameters: dict[str, object] = {"type": "object"}  # noqa: RUF012

        async def call(self, arguments: dict[str, object]) -> str:
            return 42  # type: ignore[return-value]

    client = ScriptedClient([ScriptedReply(calls=[ScriptedCall("sloppy")]), ScriptedReply("ok")])
    worker = Worker(client, tools=[Sloppy()])  # type: ignore[list-item]
    assert await worker.run("go") == Finished(text="ok", turn=0)
    assert list(contents(worker).values()) == [(True, "tool sloppy returned int, not text")]


async def test_the_owner_can_abort_a_paused_run_and_every_call_gets_a_result() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Pause(reason="ask a human"))
    observed: list[str] = []
    registry.on(events.ABORT, lambda info: observed.append(info.reason))
    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("echo", {"text": "a"}), ScriptedCall("echo", {})])]
    )
    worker = Worker(client, tools=[echo], hooks=registry.freeze())
    assert isinstance(await worker.run("go"), Paused)

    result = await worker.abort("the human said no")

    assert result == Aborted(reason="the human said no", turn=0)
    assert observed == ["the human said no"]
    assert worker.status == "idle"
    assert_well_formed(worker.history)
    assert [r.content for r in worker.history if isinstance(r, ToolResult)] == [
        "not run: the run was aborted (the human said no)"
    ] * 2
    with pytest.raises(WorkerStateError, match=r"^nothing to abort: the Worker is idle$"):
        await worker.abort("again")
