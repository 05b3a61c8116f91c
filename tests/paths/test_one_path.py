"""One path for every tool call: whichever way a tool is called, the call passes through the
permission rules, the PRE_TOOL_CALL hooks, the approval path and the POST_TOOL_CALL hooks,
and a deny stops it before it runs.

The ways, enumerated (``SOURCES`` x ``RUNNERS``): a native ``@tool``, an MCP tool over stdio
and an MCP tool over Streamable HTTP (the SDK-written test server, a real subprocess), each
called by a Pod that pauses and resumes in place, by a fresh Pod restored from the paused
one's snapshot, and by a durable run (``pod.durable`` on SQLite, in this process: the tool
call a checkpointed step, the approval sent through ``DurableRuns``, the run resumed after
its pause from its saved state).

In every case the model asks for two calls in one reply: ``shout`` (which a rule denies) and
``echo`` (which a rule allows and a PRE_TOOL_CALL hook pauses for a person). The test proves
that ``shout`` never reached its tool, that ``echo`` did not run before it was approved and
ran exactly once after, that both hooks saw it, and that the history is well-formed.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from llm_worker import (
    Finished,
    Item,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Tool,
    ToolResult,
    tool,
)
from llm_worker.testing import assert_well_formed
from pod import (
    Continue,
    HookRegistry,
    Pause,
    Paused,
    PermissionHook,
    PermissionRule,
    Pod,
    PodSnapshot,
    ToolCallSummary,
    ToolResultSummary,
    events,
)
from pod.mcp import McpServer
from tests.mcp.conftest import SERVERS, http_server

SOURCES: Final = ("native", "stdio", "http")
RUNNERS: Final = ("pod", "restored", "durable")


@dataclass
class Source:
    """Where the tools come from, and what reached them."""

    prefix: str
    tools: tuple[Tool, ...]
    received: Callable[[], list[str]]


def _native(log: list[str]) -> tuple[Tool, ...]:
    @tool(name="native_echo")
    def echo(text: str) -> str:
        """Return the text unchanged."""
        log.append("echo")
        return text

    @tool(name="native_shout")
    def shout(text: str) -> str:
        """Return the text in capitals."""
        log.append("shout")
        return text.upper()

    return (echo, shout)


def _logged(path: Path) -> Callable[[], list[str]]:
    return lambda: path.read_text(encoding="utf-8").split() if path.exists() else []


@asynccontextmanager
async def source(kind: str, folder: Path) -> AsyncIterator[Source]:
    if kind == "native":
        log: list[str] = []
        yield Source("native_", _native(log), lambda: list(log))
        return
    calls = folder / f"{kind}-calls.log"
    if kind == "stdio":
        server = McpServer(
            "stdio",
            command=sys.executable,
            args=[str(SERVERS / "tools_server.py")],
            env={"CALL_LOG": str(calls)},
            call_timeout=10,
        )
        async with server:
            yield Source("mcp__stdio__", server.tools, _logged(calls))
        return
    command = (sys.executable, str(SERVERS / "tools_server.py"), "http")
    with http_server(*command, env={"CALL_LOG": str(calls)}) as (url, _):
        async with McpServer("http", url=url, call_timeout=10) as server:
            yield Source("mcp__http__", server.tools, _logged(calls))


@dataclass
class Seen:
    hooks: list[str]


def governance(prefix: str) -> tuple[PermissionHook, HookRegistry, Seen]:
    seen = Seen([])
    rules = PermissionHook(
        [
            PermissionRule(action="deny", tool=f"{prefix}shout", reason="no shouting"),
            PermissionRule(action="allow", tool=f"{prefix}echo"),
        ]
    )
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def ask_a_person(call: ToolCallSummary) -> Pause:
        seen.hooks.append(f"pre {call.tool_name}")
        return Pause(reason=f"approve {call.tool_name}?")

    @registry.on(events.POST_TOOL_CALL)
    def after(result: ToolResultSummary) -> Continue:
        seen.hooks.append(f"post {result.tool_name} error={result.is_error}")
        return Continue()

    return rules, registry, seen


def model(prefix: str) -> ScriptedClient:
    return ScriptedClient(
        [
            ScriptedReply(
                calls=[
                    ScriptedCall(f"{prefix}shout", {"text": "hi"}, call_id="shout"),
                    ScriptedCall(f"{prefix}echo", {"text": "hi"}, call_id="echo"),
                ]
            ),
            ScriptedReply(text="done"),
        ]
    )


async def run_in_a_pod(
    runner: str, src: Source, rules: PermissionHook, hooks: HookRegistry
) -> tuple[Item, ...]:
    client = model(src.prefix)  # one script: a restored Pod asks for its next reply

    def build() -> Pod:
        return Pod(client, tools=src.tools, permissions=rules, hooks=hooks)

    pod = build()
    paused = await pod.run("go")
    assert isinstance(paused, Paused)
    assert [p.call_id for p in paused.pending_calls] == ["echo"]
    assert src.received() == []  # nothing ran while a person decides
    if runner == "restored":
        snapshot = PodSnapshot.from_json(pod.snapshot().to_json())
        pod = build()
        pod.restore(snapshot)
    assert isinstance(await pod.resume({"echo": paused.pending_calls[0].approve()}), Finished)
    return pod.history


async def run_durably(
    kind: str, src: Source, rules: PermissionHook, hooks: HookRegistry, folder: Path
) -> tuple[Item, ...]:
    from pod.durable import (
        DurableAgent,
        DurableRuns,
        DurableSettings,
        RunDecision,
        launch,
        shutdown,
    )

    agent = DurableAgent(
        f"one-path-{kind}", model(src.prefix), tools=src.tools, permissions=rules, hooks=hooks
    )
    database = f"sqlite:///{folder / 'durable.sqlite'}"
    await launch(DurableSettings(database=database))
    try:
        run_id = await agent.start("go")
        with DurableRuns(database) as runs:
            # The pause is written by the workflow, in this loop: poll for it.
            while (await asyncio.to_thread(runs.get, run_id)).status != "paused":  # noqa: ASYNC110
                await asyncio.sleep(0.05)
            shown = runs.get(run_id).paused
            assert shown is not None
            assert [c.call_id for c in shown.pending_calls] == ["echo"]
            assert src.received() == []  # nothing ran while a person decides
            decision = RunDecision.approving(*shown.pending_calls)
            await asyncio.to_thread(runs.approve, run_id, decision)
            outcome = await asyncio.to_thread(runs.result, run_id)
        steps = await asyncio.to_thread(recorded_steps, database, run_id)
    finally:
        shutdown()
    assert isinstance(outcome.result, Finished)
    # The call that ran is a checkpointed step; the denied one is none.
    assert steps.count(f"pod.tool:{src.prefix}echo") == 1, steps
    assert f"pod.tool:{src.prefix}shout" not in steps
    return outcome.history


def recorded_steps(database: str, run_id: str) -> list[str]:
    """The names of the steps of pod that DBOS recorded for ``run_id``, in order."""
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=database)
    try:
        steps = client.list_workflow_steps(run_id, load_output=False)
    finally:
        client.destroy()
    return [s["function_name"] for s in steps if s["function_name"].startswith("pod.")]


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("kind", SOURCES)
async def test_every_tool_call_passes_the_rules_the_hooks_and_the_approval_path(
    kind: str, runner: str, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        src = await stack.enter_async_context(source(kind, tmp_path))
        rules, hooks, seen = governance(src.prefix)
        if runner == "durable":
            history = await run_durably(kind, src, rules, hooks, tmp_path)
        else:
            history = await run_in_a_pod(runner, src, rules, hooks)
        received = src.received()
    results = {item.call_id: item for item in history if isinstance(item, ToolResult)}
    # The deny is a deny: shout never reached its tool; the model was told why.
    assert results["shout"].is_error
    assert "no shouting" in results["shout"].content
    # echo ran once, after the approval, and both hooks saw it.
    assert received == ["echo"]
    assert results["echo"].content == "hi"
    assert not results["echo"].is_error
    assert seen.hooks == [f"pre {src.prefix}echo", f"post {src.prefix}echo error=False"]
    assert_well_formed(history)
