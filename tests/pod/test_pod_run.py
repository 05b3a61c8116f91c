"""The Pod as a whole: results, resume, one run at a time, usage, hook chaining, exports."""

from __future__ import annotations

import asyncio

import pytest

import pod
from llm_worker import (
    LlmRequest,
    LlmResponse,
    Message,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolResult,
    Usage,
    WorkerStateError,
    call_digest,
    tool,
)
from pod import (
    Continue,
    Finished,
    HookRegistry,
    Pause,
    Paused,
    PendingCall,
    Pod,
    Skip,
    ToolCallSummary,
    TraceEvent,
    events,
)


@tool
def shell(command: str) -> str:
    """Run a command."""
    return f"ran {command}"


async def test_a_paused_call_is_resumed_with_the_callers_decision() -> None:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def ask_a_human(info: ToolCallSummary) -> Pause:
        return Pause(reason="needs approval")

    client = ScriptedClient(
        [
            ScriptedReply(calls=[ScriptedCall("shell", {"command": "deploy"}, call_id="d1")]),
            ScriptedReply(text="deployed"),
        ]
    )
    pod_ = Pod(client, tools=[shell], hooks=registry)
    paused = await pod_.run("deploy it")
    assert paused == Paused(
        point="pre_tool_call",
        reason="needs approval",
        pending_calls=(
            PendingCall(
                call_id="d1",
                tool_name="shell",
                arguments='{"command": "deploy"}',
                digest=call_digest(
                    run_id=pod_.run_id,
                    turn=0,
                    call_id="d1",
                    tool_name="shell",
                    arguments='{"command": "deploy"}',
                ),
            ),
        ),
        turn=0,
    )
    assert isinstance(paused, Paused)
    assert await pod_.resume({"d1": paused.pending_calls[0].approve()}) == Finished(
        text="deployed", turn=0
    )
    assert ToolResult(call_id="d1", name="shell", content="ran deploy") in pod_.history


async def test_one_run_at_a_time() -> None:
    gate = asyncio.Event()

    class SlowClient:
        async def complete(self, request: LlmRequest) -> LlmResponse:
            await gate.wait()
            return LlmResponse(items=(Message(role="assistant", text="ok"),))

    pod_ = Pod(SlowClient())
    async with asyncio.TaskGroup() as group:
        first = group.create_task(pod_.run("one"))
        await asyncio.sleep(0)
        with pytest.raises(WorkerStateError, match=r"^the Pod is already running$"):
            await pod_.run("two")
        with pytest.raises(WorkerStateError, match=r"^the Pod is already running$"):
            await pod_.resume()
        gate.set()
    assert first.result() == Finished(text="ok", turn=0)
    with pytest.raises(WorkerStateError, match=r"^nothing to resume: the Worker is idle$"):
        await pod_.resume()


async def test_usage_and_history_are_the_callers_copies() -> None:
    client = ScriptedClient(
        [ScriptedReply(text="hi", usage=Usage(input_tokens=12, output_tokens=3))]
    )
    pod_ = Pod(client)
    await pod_.run("hello")
    assert pod_.usage == Usage(input_tokens=12, output_tokens=3)
    history = pod_.history
    assert history == (Message(role="user", text="hello"), Message(role="assistant", text="hi"))
    assert isinstance(history, tuple)
    assert pod_.turn == 0


async def test_then_asks_the_first_registry_before_the_second() -> None:
    order: list[str] = []
    first, second = HookRegistry(), HookRegistry()

    @first.on(events.PRE_TOOL_CALL)
    def policy(info: ToolCallSummary) -> Continue | Skip:
        order.append("policy")
        return Skip(reason="policy") if info.tool_name == "shell" else Continue()

    @second.on(events.PRE_TOOL_CALL)
    def user(info: ToolCallSummary) -> Continue:
        order.append("user")
        return Continue()

    chained = first.freeze().then(second.freeze())
    summary = ToolCallSummary(call_id="c", tool_name="other", arguments="{}", turn=0)
    assert await chained.dispatch(events.PRE_TOOL_CALL, summary) == Continue()
    assert order == ["policy", "user"]
    order.clear()
    shell_call = summary.model_copy(update={"tool_name": "shell"})
    assert await chained.dispatch(events.PRE_TOOL_CALL, shell_call) == Skip(reason="policy")
    assert order == ["policy"]
    assert chained.hooks_for(events.TURN_END) == ()


async def test_the_trace_reports_hook_decisions_and_interceptor_actions() -> None:
    trace: list[TraceEvent] = []
    client = ScriptedClient(
        [
            ScriptedReply(calls=[ScriptedCall("shell", {"command": "x" * 500})]),
            ScriptedReply(text="ok"),
        ]
    )
    pod_ = Pod(
        client,
        tools=[shell],
        trace=trace.append,
        settings=pod.PodSettings(max_tool_output_bytes=128),
    )
    pod_.notify("heads up")
    await pod_.run("go")
    assert [(e.source, e.actor) for e in trace] == [
        ("hooks", "RUN_START"),
        ("hooks", "PROMPT_SUBMIT"),
        ("interceptor", "notification"),
        ("hooks", "PRE_LLM_REQUEST"),
        ("hooks", "POST_LLM_RESPONSE"),
        ("hooks", "PRE_TOOL_CALL"),
        ("interceptor", "truncation"),
        ("hooks", "POST_TOOL_CALL"),
        ("hooks", "PRE_LLM_REQUEST"),
        ("hooks", "POST_LLM_RESPONSE"),
        ("hooks", "TURN_END"),
        ("hooks", "OUTPUT"),
        ("hooks", "RUN_END"),
    ]
    assert all(e.decision == "Continue" for e in trace[:-1] if e.source == "hooks")
    assert trace[-1].decision == "observed"
    assert [e.message for e in trace if e.actor in {"RUN_START", "OUTPUT", "RUN_END"}] == [
        "turn 0: tools shell",
        "turn 0: 2 bytes",
        "turn 0: finished",
    ]

    # An event without a message of its own is traced field by field.
    reply = next(e for e in trace if e.actor == "POST_LLM_RESPONSE")
    assert 'tool_call_count=1, tool_names=["shell"], tool_arguments=["{' in reply.message
    assert '..., stop_reason="tool_calls"' in reply.message  # each field cut to 80 characters


def test_the_public_names_are_exported() -> None:
    for name in (
        "Pod",
        "PodResult",
        "PodSettings",
        "PermissionHook",
        "PermissionRule",
        "Summariser",
    ):
        assert name in pod.__all__
        assert hasattr(pod, name)
    # The order of __all__ is ruff RUF022's (isort-style), checked by `make lint`.
    assert all(hasattr(pod, name) for name in pod.__all__)
