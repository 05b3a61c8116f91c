"""Telemetry: the spans a Pod sends, read back from the OpenTelemetry SDK's in-memory exporter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, Usage, tool
from pod import Continue, HookRegistry, Pause, Paused, Pod, Skip, ToolCallSummary, events
from pod.telemetry import CAPTURE_CONTENT_VARIABLE, Telemetry
from tests.mcp.conftest import tools_server


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


@tool
def broken() -> str:
    """Always fails."""
    raise OSError("disk on fire")


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def telemetry(exporter: InMemorySpanExporter, **options: bool) -> Telemetry:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Telemetry(agent_name="helper", tracer_provider=provider, model="m-1", **options)


def by_name(exporter: InMemorySpanExporter) -> dict[str, list[ReadableSpan]]:
    spans: dict[str, list[ReadableSpan]] = {}
    for span in exporter.get_finished_spans():
        spans.setdefault(span.name, []).append(span)
    return spans


def one_call_then_done(*calls: ScriptedCall) -> ScriptedClient:
    return ScriptedClient(
        [
            ScriptedReply(calls=calls, usage=Usage(input_tokens=10, output_tokens=3)),
            ScriptedReply(text="done", usage=Usage(input_tokens=20, output_tokens=1)),
        ]
    )


async def test_a_run_is_an_invoke_agent_span_over_chat_and_execute_tool_spans(
    exporter: InMemorySpanExporter,
) -> None:
    pod = Pod(
        one_call_then_done(ScriptedCall("read_file", {"path": "a.txt"}, call_id="c1")),
        tools=[read_file],
        telemetry=telemetry(exporter),
    )
    await pod.run("read a.txt")
    spans = by_name(exporter)
    (agent,) = spans["invoke_agent helper"]
    first, second = spans["chat m-1"]
    (tool_span,) = spans["execute_tool read_file"]
    assert agent.attributes is not None
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.agent.name"] == "helper"
    assert agent.attributes["pod.run.outcome"] == "finished"
    assert first.attributes == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "pod",
        "gen_ai.request.model": "m-1",
        "gen_ai.response.finish_reasons": ("tool_calls",),
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 3,
        "pod.response.tool_call_ids": ("c1",),
    }
    assert second.attributes is not None
    assert second.attributes["gen_ai.response.finish_reasons"] == ("end_turn",)
    assert tool_span.attributes == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "read_file",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.description": "Read a file.",
    }
    agent_id = agent.context.span_id
    assert all(
        span.parent is not None and span.parent.span_id == agent_id
        for span in (first, second, tool_span)
    )


async def test_a_hook_dispatch_span_carries_the_decision_and_the_deciding_hook(
    exporter: InMemorySpanExporter,
) -> None:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def no_env(call: ToolCallSummary) -> Continue | Skip:
        if str(call.argument("path")).endswith(".env"):
            return Skip(reason="secrets stay secret")
        return Continue()

    pod = Pod(
        one_call_then_done(
            ScriptedCall("read_file", {"path": ".env"}, call_id="secret"),
            ScriptedCall("read_file", {"path": "a.txt"}, call_id="plain"),
        ),
        tools=[read_file],
        hooks=registry,
        telemetry=telemetry(exporter),
    )
    await pod.run("go")
    spans = by_name(exporter)
    denied, allowed = spans["hooks pre_tool_call"]
    assert denied.attributes is not None
    assert denied.attributes["gen_ai.tool.call.id"] == "secret"
    assert denied.attributes["pod.hook.decision"] == "Skip"
    assert denied.attributes["pod.hook.reason"] == "secrets stay secret"
    assert str(denied.attributes["pod.hook.decided_by"]).endswith("no_env")
    assert allowed.attributes is not None
    assert allowed.attributes["pod.hook.decision"] == "Continue"
    assert "pod.hook.decided_by" not in allowed.attributes
    # only the allowed call ran; no event without hooks has a dispatch span
    assert [
        s.attributes and s.attributes["gen_ai.tool.call.id"]
        for s in spans["execute_tool read_file"]
    ] == ["plain"]
    assert {name for name in spans if name.startswith("hooks ")} == {"hooks pre_tool_call"}


async def test_a_pause_and_the_resume_decisions_are_events_on_the_agent_spans(
    exporter: InMemorySpanExporter,
) -> None:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def ask(call: ToolCallSummary) -> Pause:
        return Pause(reason="approve?")

    pod = Pod(
        one_call_then_done(ScriptedCall("read_file", {"path": "a"}, call_id="c1")),
        tools=[read_file],
        hooks=registry,
        telemetry=telemetry(exporter),
    )
    paused = await pod.run("go")
    assert isinstance(paused, Paused)
    await pod.resume({"c1": paused.pending_calls[0].approve()})
    paused_run, resumed_run = by_name(exporter)["invoke_agent helper"]
    (paused,) = paused_run.events
    assert paused.name == "pod.paused"
    assert paused.attributes == {
        "pod.pause.point": "pre_tool_call",
        "pod.pause.reason": "approve?",
        "pod.pause.pending_call_ids": ("c1",),
    }
    (resumed,) = resumed_run.events
    assert resumed.name == "pod.resumed"
    assert resumed.attributes == {"pod.decision.c1": "Approve"}
    assert resumed_run.attributes is not None
    assert resumed_run.attributes["pod.run.outcome"] == "finished"


async def test_a_failing_tool_is_an_error_span(exporter: InMemorySpanExporter) -> None:
    pod = Pod(
        one_call_then_done(ScriptedCall("broken", call_id="b")),
        tools=[broken],
        telemetry=telemetry(exporter),
    )
    await pod.run("go")
    (span,) = by_name(exporter)["execute_tool broken"]
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None
    assert span.attributes["error.type"] == "OSError"


async def test_tool_content_is_recorded_only_when_asked(
    exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def run_once() -> dict[str, object]:
        exporter.clear()
        pod = Pod(
            one_call_then_done(ScriptedCall("read_file", {"path": "a"}, call_id="c1")),
            tools=[read_file],
            telemetry=telemetry(exporter),
        )
        await pod.run("go")
        (span,) = by_name(exporter)["execute_tool read_file"]
        return dict(span.attributes or {})

    monkeypatch.delenv(CAPTURE_CONTENT_VARIABLE, raising=False)
    assert "gen_ai.tool.call.arguments" not in await run_once()
    monkeypatch.setenv(CAPTURE_CONTENT_VARIABLE, "true")
    recorded = await run_once()
    assert recorded["gen_ai.tool.call.arguments"] == '{"path": "a"}'
    assert recorded["gen_ai.tool.call.result"] == "contents of a"


async def test_messages_are_recorded_on_the_chat_spans_only_when_asked(
    exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def chats() -> list[dict[str, object]]:
        exporter.clear()
        pod = Pod(
            one_call_then_done(ScriptedCall("read_file", {"path": "a"}, call_id="c1")),
            tools=[read_file],
            telemetry=telemetry(exporter),
            system_prompt="Be brief.",
        )
        await pod.run("go")
        return [dict(span.attributes or {}) for span in by_name(exporter)["chat m-1"]]

    monkeypatch.delenv(CAPTURE_CONTENT_VARIABLE, raising=False)
    for chat in await chats():
        assert not {k for k in chat if k.endswith(("messages", "instructions"))}, chat
    monkeypatch.setenv(CAPTURE_CONTENT_VARIABLE, "true")
    first, second = await chats()
    assert json.loads(str(first["gen_ai.system_instructions"])) == [
        {"type": "text", "content": "Be brief."}
    ]
    assert json.loads(str(first["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "go"}]}
    ]
    call = {"type": "tool_call", "id": "c1", "name": "read_file", "arguments": {"path": "a"}}
    assert json.loads(str(first["gen_ai.output.messages"])) == [
        {"role": "assistant", "parts": [call], "finish_reason": "tool_calls"}
    ]
    assert json.loads(str(second["gen_ai.input.messages"]))[1:] == [
        {"role": "assistant", "parts": [call]},
        {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": "c1", "response": "contents of a"}],
        },
    ]
    assert json.loads(str(second["gen_ai.output.messages"])) == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "done"}],
            "finish_reason": "end_turn",
        }
    ]


async def test_an_mcp_tool_call_is_an_execute_tool_span(exporter: InMemorySpanExporter) -> None:
    async with tools_server() as server:
        pod = Pod(
            one_call_then_done(ScriptedCall("mcp__tools__echo", {"text": "hi"}, call_id="m1")),
            tools=server.tools,
            telemetry=telemetry(exporter),
        )
        await pod.run("go")
    (span,) = by_name(exporter)["execute_tool mcp__tools__echo"]
    assert span.attributes is not None
    assert span.attributes["gen_ai.tool.call.id"] == "m1"


def test_a_pod_without_telemetry_never_imports_opentelemetry() -> None:
    script = textwrap.dedent(
        """
        import asyncio, sys
        from llm_worker import ScriptedClient, ScriptedReply
        from pod import HookRegistry, Pod
        asyncio.run(Pod(ScriptedClient([ScriptedReply(text="hi")]), hooks=HookRegistry()).run("x"))
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
