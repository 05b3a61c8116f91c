"""MCP servers that fail: every failing call is one clear error result, the history stays
well-formed, a server that cannot be used says why, and no server process outlives its block."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult
from llm_worker.testing import assert_well_formed
from pod import Continue, Finished, HookRegistry, Pod, ToolResultSummary, events
from pod.mcp import McpServer, McpServerError
from tests.mcp.conftest import SERVERS, raw_server, tools_server


def replies(*calls: ScriptedCall) -> ScriptedClient:
    """A model that makes one call per reply, then answers ``done``."""
    return ScriptedClient([*(ScriptedReply(calls=[c]) for c in calls), ScriptedReply(text="done")])


def results(pod: Pod) -> dict[str, ToolResult]:
    return {item.call_id: item for item in pod.history if isinstance(item, ToolResult)}


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_tool_error_is_an_error_result_the_post_hooks_see() -> None:
    seen: list[bool] = []
    registry = HookRegistry()

    @registry.on(events.POST_TOOL_CALL)
    def note(result: ToolResultSummary) -> Continue:
        seen.append(result.is_error)
        return Continue()

    async with tools_server() as server:
        pod = Pod(
            replies(ScriptedCall("mcp__tools__fail", {"message": "disk full"}, call_id="f")),
            tools=server.tools,
            hooks=registry,
        )
        assert isinstance(await pod.run("go"), Finished)
    result = results(pod)["f"]
    assert result.is_error
    assert result.content.startswith(
        "tool mcp__tools__fail failed: McpToolError: MCP server 'tools' reported an error: "
    )
    assert result.content.endswith("disk full")  # the SDK's server puts its words between
    assert seen == [True]


async def test_a_server_that_dies_mid_call_gives_error_results_and_leaves_no_process(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "pid"
    async with tools_server(env={"PID_FILE": str(pid_file)}) as server:
        pod = Pod(
            replies(
                ScriptedCall("mcp__tools__crash", call_id="crash"),
                ScriptedCall("mcp__tools__echo", {"text": "still there?"}, call_id="after"),
            ),
            tools=server.tools,
        )
        assert isinstance(await pod.run("go"), Finished)
    for call_id in ("crash", "after"):
        assert results(pod)[call_id].is_error
        assert "the connection is closed (the server exited" in results(pod)[call_id].content
    assert_well_formed(pod.history)
    assert not is_running(int(pid_file.read_text()))


async def test_a_call_that_hangs_times_out_and_the_server_keeps_serving(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    async with tools_server(env={"PID_FILE": str(pid_file)}, call_timeout=1.0) as server:
        pod = Pod(
            replies(
                ScriptedCall("mcp__tools__hang", call_id="hang"),
                ScriptedCall("mcp__tools__echo", {"text": "next"}, call_id="next"),
            ),
            tools=server.tools,
        )
        await pod.run("go")
        assert is_running(int(pid_file.read_text()))
    assert results(pod)["hang"].content.endswith("MCP server 'tools' did not answer within 1.0s")
    assert results(pod)["next"].content == "next"
    assert_well_formed(pod.history)
    assert not is_running(int(pid_file.read_text()))


async def test_a_malformed_result_is_an_error_result() -> None:
    async with raw_server("malformed") as server:
        pod = Pod(replies(ScriptedCall("mcp__raw__echo", call_id="m")), tools=server.tools)
        await pod.run("go")
    result = results(pod)["m"]
    assert result.is_error
    assert "MCP server 'raw': malformed result" in result.content
    assert "content: Input should be a valid list" in result.content
    assert_well_formed(pod.history)


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("duplicate", "MCP server 'raw' lists 'echo' twice"),
        ("badname", "MCP server 'raw' lists a tool named 'rm -rf'"),
        ("exit", "MCP server 'raw' did not start"),
    ],
)
async def test_a_server_that_cannot_be_used_refuses_to_start(mode: str, problem: str) -> None:
    with pytest.raises(McpServerError, match=problem):
        async with raw_server(mode):
            pass


async def test_a_server_that_never_answers_the_handshake_times_out() -> None:
    with pytest.raises(McpServerError, match=r"'raw' did not start within 1.0s \(.*raw_server"):
        async with raw_server("silent", start_timeout=1.0):
            pass


async def test_a_command_that_does_not_exist_is_named() -> None:
    missing = str(SERVERS / "no_such_server")
    with pytest.raises(McpServerError, match=f"did not start \\({missing}\\): "):
        async with McpServer("gone", command=missing):
            pass
