"""MCP tools in a Pod: a real server (tools_server.py, written with the mcp SDK) over stdio.

An MCP tool is an ordinary tool to the Worker: the permission rules, the PRE_TOOL_CALL and
POST_TOOL_CALL hooks and the approval path govern it; nothing reaches the server otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_worker import (
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolResult,
    UsageError,
    tool,
)
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
    PodSettings,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    events,
)
from pod.mcp import McpServer
from tests.mcp.conftest import calls_received, logged_server, tools_server


def model_calls(*calls: ScriptedCall) -> ScriptedClient:
    """A model that makes ``calls`` in one reply, then answers ``done``."""
    return ScriptedClient([ScriptedReply(calls=calls), ScriptedReply(text="done")])


def results(pod: Pod) -> dict[str, ToolResult]:
    return {item.call_id: item for item in pod.history if isinstance(item, ToolResult)}


def recording_hooks() -> tuple[HookRegistry, list[str]]:
    """Hooks that record every PRE_TOOL_CALL and POST_TOOL_CALL they are asked."""
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


async def test_a_servers_tools_are_named_mcp_server_tool_with_its_schemas(
    call_log: Path,
) -> None:
    async with logged_server(call_log) as server:
        by_name = {t.name: t for t in server.tools}
        assert set(by_name) >= {"mcp__tools__echo", "mcp__tools__add", "mcp__tools__fail"}
        assert by_name["mcp__tools__add"].parameters["required"] == ["a", "b"]
        assert by_name["mcp__tools__echo"].description == "Return the text unchanged."


async def test_mcp_calls_run_through_both_tool_hooks(call_log: Path) -> None:
    async with logged_server(call_log) as server:
        hooks, seen = recording_hooks()
        pod = Pod(
            model_calls(
                ScriptedCall("mcp__tools__echo", {"text": "hi"}, call_id="e"),
                ScriptedCall("mcp__tools__add", {"a": 2, "b": 3}, call_id="a"),
            ),
            tools=server.tools,
            hooks=hooks,
        )
        assert isinstance(await pod.run("go"), Finished)
        assert results(pod)["e"].content == "hi"
        assert results(pod)["a"].content == "5"
        assert seen == [
            "pre mcp__tools__echo",
            "pre mcp__tools__add",
            "post mcp__tools__echo error=False",
            "post mcp__tools__add error=False",
        ]
        assert sorted(calls_received(call_log)) == ["add", "echo"]  # they run concurrently


async def test_a_deny_rule_stops_an_mcp_call_before_the_server(call_log: Path) -> None:
    async with logged_server(call_log) as server:
        rules = PermissionHook(
            [
                PermissionRule(action="deny", tool="mcp__tools__shout", reason="no shouting"),
                PermissionRule(action="allow", tool="mcp__tools__*"),
            ]
        )
        pod = Pod(
            model_calls(
                ScriptedCall("mcp__tools__shout", {"text": "hi"}, call_id="s"),
                ScriptedCall("mcp__tools__echo", {"text": "hi"}, call_id="e"),
            ),
            tools=server.tools,
            permissions=rules,
        )
        await pod.run("go")
        assert results(pod)["s"].is_error
        assert "no shouting" in results(pod)["s"].content
        assert results(pod)["e"].content == "hi"
        assert calls_received(call_log) == ["echo"]


async def test_a_skip_hook_stops_an_mcp_call_before_the_server(call_log: Path) -> None:
    async with logged_server(call_log) as server:
        registry = HookRegistry()

        @registry.on(events.PRE_TOOL_CALL)
        def no_mcp(call: ToolCallSummary) -> Continue | Skip:
            if call.tool_name.startswith("mcp__"):
                return Skip(reason="MCP is off today")
            return Continue()

        pod = Pod(
            model_calls(ScriptedCall("mcp__tools__echo", {"text": "hi"}, call_id="e")),
            tools=server.tools,
            hooks=registry,
        )
        await pod.run("go")
        assert "MCP is off today" in results(pod)["e"].content
        assert calls_received(call_log) == []


async def test_an_mcp_call_paused_for_approval_runs_once_when_approved(call_log: Path) -> None:
    async with logged_server(call_log) as server:
        hooks, seen = recording_hooks()
        registry = HookRegistry()

        @registry.on(events.PRE_TOOL_CALL)
        def ask_a_human(call: ToolCallSummary) -> Pause:
            return Pause(reason=f"approve {call.tool_name}?")

        pod = Pod(
            model_calls(ScriptedCall("mcp__tools__echo", {"text": "hi"}, call_id="e")),
            tools=server.tools,
            hooks=registry.freeze().then(hooks.freeze()),
        )
        paused = await pod.run("go")
        assert isinstance(paused, Paused)
        assert [p.call_id for p in paused.pending_calls] == ["e"]
        assert calls_received(call_log) == []
        assert isinstance(await pod.resume({"e": paused.pending_calls[0].approve()}), Finished)
        assert results(pod)["e"].content == "hi"
        assert calls_received(call_log) == ["echo"]
        assert seen == ["post mcp__tools__echo error=False"]


async def test_a_tool_the_server_adds_later_is_unknown_and_never_reaches_the_server(
    call_log: Path,
) -> None:
    async with logged_server(call_log) as server:
        hooks, seen = recording_hooks()
        client = ScriptedClient(
            [
                ScriptedReply(calls=[ScriptedCall("mcp__tools__grow", call_id="g")]),
                ScriptedReply(calls=[ScriptedCall("mcp__tools__late", call_id="l")]),
                ScriptedReply(text="done"),
            ]
        )
        pod = Pod(client, tools=server.tools, hooks=hooks)
        await pod.run("go")
        assert results(pod)["g"].content == "grown"
        late = results(pod)["l"]
        assert late.is_error
        assert "unknown tool 'mcp__tools__late'" in late.content
        assert "pre mcp__tools__late" in seen  # the hooks are asked even about unknown tools
        assert calls_received(call_log) == ["grow"]
        assert "mcp__tools__late" not in {t.name for t in server.tools}


async def test_server_notifications_run_nothing_on_their_own(call_log: Path) -> None:
    async with logged_server(call_log) as server:
        hooks, seen = recording_hooks()
        pod = Pod(
            model_calls(ScriptedCall("mcp__tools__chatty", call_id="c")),
            tools=server.tools,
            hooks=hooks,
        )
        await pod.run("go")
        assert results(pod)["c"].content == "done talking"
        assert calls_received(call_log) == ["chatty"]
        assert seen == ["pre mcp__tools__chatty", "post mcp__tools__chatty error=False"]


async def test_a_tool_name_taken_twice_refuses_to_start() -> None:
    @tool(name="mcp__tools__echo")
    def impostor(text: str) -> str:
        return text

    async with tools_server() as first, tools_server() as second:
        with pytest.raises(UsageError, match="two tools are named 'mcp__tools__echo'"):
            Pod(ScriptedClient(), tools=[*first.tools, *second.tools])
        with pytest.raises(UsageError, match="two tools are named 'mcp__tools__echo'"):
            Pod(ScriptedClient(), tools=[impostor, *first.tools])


async def test_mcp_results_pass_the_usual_output_limit(call_log: Path) -> None:
    async with logged_server(call_log) as server:
        pod = Pod(
            model_calls(ScriptedCall("mcp__tools__echo", {"text": "x" * 5000}, call_id="e")),
            tools=server.tools,
            settings=PodSettings(max_tool_output_bytes=200),
        )
        await pod.run("go")
        content = results(pod)["e"].content
        assert len(content.encode()) < 500
        assert content.startswith("x" * 50)


async def test_invalid_arguments_are_the_servers_error_result(call_log: Path) -> None:
    async with logged_server(call_log) as server:
        pod = Pod(
            model_calls(ScriptedCall("mcp__tools__add", {"a": "two"}, call_id="a")),
            tools=server.tools,
        )
        await pod.run("go")
        result = results(pod)["a"]
        assert result.is_error
        assert result.content.startswith("tool mcp__tools__add failed: McpToolError: MCP server")
        assert_well_formed(pod.history)


def test_server_names_that_would_read_two_ways_are_refused() -> None:
    with pytest.raises(ValueError, match="without '__'"):
        McpServer("a__b", command="true")
    with pytest.raises(ValueError, match="either a command or a url"):
        McpServer("a", command="true", url="http://127.0.0.1:1/mcp")


def test_tools_before_the_server_started_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="enter `async with`"):
        _ = tools_server().tools
