"""MCP servers over Streamable HTTP, started by the tests on the loopback: the published
reference time server (``mcp-server-time``, nobody on the project wrote it) and the
SDK-written test server. Their tools go through the same hooks, rules and approval path as
any tool; failures are error results and the history stays well-formed."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult
from llm_worker.testing import assert_well_formed
from pod import (
    Continue,
    Finished,
    HookRegistry,
    Pause,
    Paused,
    PermissionHook,
    PermissionRule,
    Pod,
    ToolCallSummary,
    ToolResultSummary,
    events,
)
from pod.mcp import McpServer
from tests.mcp.conftest import SERVERS, TIME_SERVER_OVER_HTTP, calls_received, http_server

TOOLS_SERVER = (sys.executable, str(SERVERS / "tools_server.py"), "http")


def results(pod: Pod) -> dict[str, ToolResult]:
    return {item.call_id: item for item in pod.history if isinstance(item, ToolResult)}


def recording_hooks() -> tuple[HookRegistry, list[str]]:
    seen: list[str] = []
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def before(call: ToolCallSummary) -> Continue:
        seen.append(f"pre {call.tool_name}")
        return Continue()

    @registry.on(events.POST_TOOL_CALL)
    def after(result: ToolResultSummary) -> Continue:
        seen.append(f"post {result.tool_name} error={result.is_error}")
        return Continue()

    return registry, seen


async def test_the_published_time_server_over_http_answers_through_the_hooks() -> None:
    with http_server(sys.executable, "-c", TIME_SERVER_OVER_HTTP) as (url, _):
        async with McpServer("time", url=url, call_timeout=10) as time_server:
            names = {tool.name for tool in time_server.tools}
            assert names == {"mcp__time__get_current_time", "mcp__time__convert_time"}
            hooks, seen = recording_hooks()
            arguments = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
            pod = Pod(
                ScriptedClient(
                    [
                        ScriptedReply(
                            calls=[ScriptedCall("mcp__time__convert_time", arguments, call_id="c")]
                        ),
                        ScriptedReply(text="21:00"),
                    ]
                ),
                tools=time_server.tools,
                hooks=hooks,
            )
            assert isinstance(await pod.run("Noon UTC in Tokyo?"), Finished)
    converted = json.loads(results(pod)["c"].content)
    assert converted["target"]["datetime"][11:16] == "21:00"
    assert seen == ["pre mcp__time__convert_time", "post mcp__time__convert_time error=False"]


async def test_an_unknown_timezone_is_the_published_servers_error_result() -> None:
    with http_server(sys.executable, "-c", TIME_SERVER_OVER_HTTP) as (url, _):
        async with McpServer("time", url=url, call_timeout=10) as time_server:
            pod = Pod(
                ScriptedClient(
                    [
                        ScriptedReply(
                            calls=[
                                ScriptedCall(
                                    "mcp__time__get_current_time",
                                    {"timezone": "Mars/Olympus"},
                                    call_id="t",
                                )
                            ]
                        ),
                        ScriptedReply(text="no such place"),
                    ]
                ),
                tools=time_server.tools,
            )
            await pod.run("Time on Mars?")
    result = results(pod)["t"]
    assert result.is_error
    assert "MCP server 'time' reported an error" in result.content
    assert "Mars/Olympus" in result.content
    assert_well_formed(pod.history)


async def test_rules_and_approval_govern_http_tools_as_any_other(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    with http_server(*TOOLS_SERVER, env={"CALL_LOG": str(log)}) as (url, _):
        async with McpServer(
            "tools", url=url, headers={"X-Test": "yes"}, call_timeout=10
        ) as server:
            registry = HookRegistry()

            @registry.on(events.PRE_TOOL_CALL)
            def ask_for_echo(call: ToolCallSummary) -> Continue | Pause:
                if call.tool_name == "mcp__tools__echo":
                    return Pause(reason="approve echo?")
                return Continue()

            rules = PermissionHook(
                [
                    PermissionRule(action="deny", tool="mcp__tools__shout", reason="no shouting"),
                    PermissionRule(action="allow", tool="mcp__tools__*"),
                ]
            )
            pod = Pod(
                ScriptedClient(
                    [
                        ScriptedReply(
                            calls=[
                                ScriptedCall("mcp__tools__shout", {"text": "hi"}, call_id="s"),
                                ScriptedCall("mcp__tools__echo", {"text": "hi"}, call_id="e"),
                                ScriptedCall("mcp__tools__add", {"a": 2, "b": 3}, call_id="a"),
                                ScriptedCall("mcp__tools__header", {"name": "X-Test"}, call_id="h"),
                            ]
                        ),
                        ScriptedReply(text="done"),
                    ]
                ),
                tools=server.tools,
                permissions=rules,
                hooks=registry,
            )
            paused = await pod.run("go")
            assert isinstance(paused, Paused)
            assert [p.call_id for p in paused.pending_calls] == ["e", "a", "h"]
            assert calls_received(log) == []  # nothing runs while a call waits for a human
            approved = {p.call_id: p.approve() for p in paused.pending_calls}
            assert isinstance(await pod.resume(approved), Finished)
    got = results(pod)
    assert got["s"].is_error
    assert "no shouting" in got["s"].content
    assert got["e"].content == "hi"
    assert got["a"].content == "5"
    assert got["h"].content == "yes"  # the configured header reached the server
    assert sorted(calls_received(log)) == ["add", "echo", "header"]
    assert_well_formed(pod.history)


async def test_an_http_server_that_dies_mid_run_gives_error_results() -> None:
    # Before the connection had a task of its own, the SDK's transport failing here
    # cancelled the caller's task: the run ended in CancelledError, not an error result.
    with http_server(*TOOLS_SERVER) as (url, process):
        async with McpServer("tools", url=url, call_timeout=5) as server:
            client = ScriptedClient(
                [
                    ScriptedReply(
                        calls=[ScriptedCall("mcp__tools__echo", {"text": "a"}, call_id="1")]
                    ),
                    ScriptedReply(text="once"),
                    ScriptedReply(
                        calls=[ScriptedCall("mcp__tools__echo", {"text": "b"}, call_id="2")]
                    ),
                    ScriptedReply(text="done"),
                ]
            )
            pod = Pod(client, tools=server.tools)
            assert isinstance(await pod.run("once"), Finished)
            process.send_signal(signal.SIGKILL)
            process.wait()
            await pod.run("again")
    got = results(pod)
    assert got["1"].content == "a"
    assert got["2"].is_error
    assert got["2"].content == (
        "tool mcp__tools__echo failed: McpToolError: MCP server 'tools': the connection is "
        "closed (the server exited or stopped answering)"
    )
    assert_well_formed(pod.history)
