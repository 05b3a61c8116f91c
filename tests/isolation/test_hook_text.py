"""Hook text that reaches the model is bounded, with a marker (docs/security.md, "Hook and
model text")."""

from __future__ import annotations

import logging

import pytest

from llm_worker import (
    REASON_BYTES,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolResult,
    bounded,
    tool,
    visible,
)
from pod import Abort, Aborted, Finished, HookRegistry, Pod, Skip, ToolCallSummary, events

HUGE = "why " * 2_500_000  # 10 MB
RUNS: list[str] = []


@pytest.fixture(autouse=True)
def _no_runs() -> None:
    RUNS.clear()


@tool
def shell(command: str) -> str:
    """Run a command."""
    RUNS.append(command)
    return f"ran {command}"


def _client() -> ScriptedClient:
    return ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("shell", {"command": "ls"}, call_id="c1")])],
        then=ScriptedReply(text="done"),
    )


def _results(client: ScriptedClient) -> list[str]:
    return [item.content for item in client.requests[-1] if isinstance(item, ToolResult)]


async def test_a_10_mb_skip_reason_reaches_the_model_cut_to_the_bound_with_a_marker() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Skip(reason=HUGE))
    client = _client()
    assert await Pod(client, tools=[shell], hooks=registry).run("go") == Finished(
        text="done", turn=0
    )
    [content] = _results(client)
    cut = len(HUGE) - REASON_BYTES
    assert content == f"tool call skipped: {HUGE[:REASON_BYTES]} [... {cut:,} bytes cut]"
    assert RUNS == []


async def test_an_abort_reason_reaches_the_model_on_the_next_run_bounded() -> None:
    registry = HookRegistry()

    def stop(call: ToolCallSummary) -> Abort:
        return Abort(reason=HUGE)

    registry.on(events.PRE_TOOL_CALL, stop)
    client = _client()
    pod = Pod(client, tools=[shell], hooks=registry)
    aborted = await pod.run("go")
    assert isinstance(aborted, Aborted)
    assert await pod.run("again") == Finished(text="done", turn=1)
    [content] = _results(client)
    assert content == f"not run: the run was aborted ({bounded(HUGE)})"
    assert len(content.encode()) < REASON_BYTES + 100
    assert RUNS == []


def test_control_characters_and_escape_sequences_are_written_out() -> None:
    text = "ok\x1b[2J\x1b]0;pwned\x07\r\n\t\x9b\u202egnp.exe"
    assert visible(text) == "ok\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\x0a\\x09\\x9b\\u202egnp.exe"
    assert (
        visible(text, multiline=True) == "ok\\x1b[2J\\x1b]0;pwned\\x07\\x0d\n\t\\x9b\\u202egnp.exe"
    )
    assert visible("été ✓") == "été ✓"


async def test_an_ignored_failure_is_logged_with_its_escape_sequences_written_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = HookRegistry()

    def broken(call: ToolCallSummary) -> None:
        raise ValueError("\x1b[2Jgone")

    registry.on(events.PRE_TOOL_CALL, broken, on_error="ignore")  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="pod.hooks"):
        await Pod(_client(), tools=[shell], hooks=registry).run("go")
    [record] = caplog.records
    assert "raised ValueError: \\x1b[2Jgone" in record.getMessage()
    assert "\x1b" not in record.getMessage()
    assert RUNS == ["ls"]
