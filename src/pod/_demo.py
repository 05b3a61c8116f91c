"""``pod demo``: a scripted session that shows the two APIs at work, step by step.

No network: the model is a ``ScriptedClient``. An interceptor (privileged) rewrites tool-call
paths into the workspace; then public hooks observe the rewritten call and decide. The trace
shows, at each decision point, the interceptor first, then the hooks, then what the Worker did.
"""

from __future__ import annotations

import asyncio
import json
import posixpath

from rich.console import Console
from rich.table import Table

from llm_worker import (
    Finished,
    Item,
    Message,
    PreRequestInfo,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolCall,
    ToolCallSummary,
    ToolResult,
    ToolResultSummary,
    TurnEndInfo,
    Worker,
    tool,
)
from llm_worker.interceptor import (
    CONTINUE,
    Abort,
    Continue,
    Interceptor,
    Pause,
    Skip,
    ToolCallInfo,
    ToolResultInfo,
    Yield,
)

from . import events
from ._registry import HookRegistry

__all__ = ["run_demo"]

WORKSPACE = "/workspace"
FILES = {
    "/workspace/README.md": "# Demo project\nRun `make test`.",
    "/workspace/notes.txt": "remember the milk",
}


@tool
def read_file(path: str) -> str:
    """Read a text file."""
    return FILES.get(path, f"no such file: {path}")


@tool
def delete_path(path: str) -> str:
    """Delete a file or folder."""
    return f"deleted {path}"


SCRIPT = [
    ScriptedReply(
        text="I'll look around first.",
        calls=[
            ScriptedCall("read_file", {"path": "README.md"}),
            ScriptedCall("delete_path", {"path": "build"}),
            ScriptedCall("read_file", {"path": "../../etc/passwd"}),
        ],
    ),
    ScriptedReply(
        text="The README says to run `make test`. I did not delete `build`: policy refused it."
    ),
]


class WorkspacePaths(Interceptor):
    """Privileged: rewrites every ``path`` argument to an absolute path in the workspace."""

    def __init__(self, console: Console) -> None:
        self._console = console

    def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
        self._console.print(
            f"  [cyan]interceptor[/] WorkspacePaths: context has {len(context)} items, no change"
        )
        return CONTINUE

    def pre_tool_call(self, info: ToolCallInfo) -> Continue | Skip | Abort | Pause:
        parsed = json.loads(info.call.arguments)
        path = str(parsed.get("path", ""))
        absolute = posixpath.normpath(posixpath.join(WORKSPACE, path))
        if absolute != path:
            parsed["path"] = absolute
            info.call = info.call.model_copy(update={"arguments": json.dumps(parsed)})
            self._console.print(
                f"  [cyan]interceptor[/] WorkspacePaths: rewrote path {path!r} -> {absolute!r}"
            )
        return CONTINUE

    def post_tool_call(self, info: ToolResultInfo) -> Continue | Abort:
        self._console.print(
            f"  [cyan]interceptor[/] WorkspacePaths: result of {info.call.name} passes unchanged"
        )
        return CONTINUE


def _user_hooks(console: Console) -> HookRegistry:
    registry = HookRegistry()

    def say(event: str, hook: str, decision: str) -> None:
        console.print(f"  [magenta]hook[/] {hook} on {event}: [bold]{decision}[/]")

    @registry.on(events.PRE_LLM_REQUEST)
    def budget(info: PreRequestInfo) -> Continue:
        say(
            "PRE_LLM_REQUEST",
            "budget",
            f"Continue ({info.item_count} items, ~{info.estimated_tokens} tokens)",
        )
        return Continue()

    @registry.on(events.PRE_TOOL_CALL)
    def audit(call: ToolCallSummary) -> Continue:
        say("PRE_TOOL_CALL", "audit", f"Continue (logged {call.tool_name} {call.arguments})")
        return Continue()

    @registry.on(events.PRE_TOOL_CALL)
    def no_deletes(call: ToolCallSummary) -> Continue | Skip:
        if call.tool_name == "delete_path":
            say("PRE_TOOL_CALL", "no_deletes", "Skip (deleting is not allowed)")
            return Skip(reason="deleting is not allowed in this workspace")
        say("PRE_TOOL_CALL", "no_deletes", "Continue")
        return Continue()

    @registry.on(events.PRE_TOOL_CALL)
    def stay_inside(call: ToolCallSummary) -> Continue | Skip:
        path = str(call.argument("path"))
        if not path.startswith(WORKSPACE + "/"):
            say("PRE_TOOL_CALL", "stay_inside", f"Skip ({path} is outside the workspace)")
            return Skip(reason=f"{path} is outside the workspace")
        say("PRE_TOOL_CALL", "stay_inside", "Continue")
        return Continue()

    @registry.on(events.POST_TOOL_CALL)
    def watch(result: ToolResultSummary) -> Continue:
        say("POST_TOOL_CALL", "watch", f"Continue ({result.output_length} bytes)")
        return Continue()

    @registry.on(events.TURN_END)
    def done(info: TurnEndInfo) -> Continue:
        say("TURN_END", "done", f"Continue ({info.tool_calls_in_turn} tool calls this turn)")
        return Continue()

    return registry


def _history_table(history: tuple[Item, ...]) -> Table:
    table = Table(title="Final history", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("item")
    table.add_column("content")
    for index, item in enumerate(history):
        if isinstance(item, Message):
            table.add_row(str(index), f"{item.role} message", item.text)
        elif isinstance(item, ToolCall):
            table.add_row(str(index), f"tool call {item.call_id}", f"{item.name} {item.arguments}")
        elif isinstance(item, ToolResult):
            style = "red" if item.is_error else "green"
            table.add_row(str(index), f"tool result {item.call_id}", f"[{style}]{item.content}[/]")
        else:
            table.add_row(str(index), item.kind, item.text)
    return table


async def _demo(console: Console) -> None:
    console.rule("llm-pod demo: interceptors first, then hooks")
    console.print(
        "[cyan]interceptor[/] = privileged, gets the live context; "
        "[magenta]hook[/] = public, gets a frozen summary and decides\n"
    )
    worker = Worker(
        ScriptedClient(SCRIPT),
        tools=[read_file, delete_path],
        interceptors=[WorkspacePaths(console)],
        hooks=_user_hooks(console).freeze(),
    )
    result = await worker.run("Tidy up: read the README, delete build/, and check /etc/passwd.")
    console.print()
    console.print(_history_table(worker.history))
    if isinstance(result, Finished):
        console.print(f"[bold green]Finished[/] after turn {result.turn}: {result.text}")
    else:
        console.print(f"[bold red]{type(result).__name__}[/]: {result}")


def run_demo(console: Console | None = None) -> None:
    """Run the scripted showcase and print its trace."""
    asyncio.run(_demo(console or Console()))
