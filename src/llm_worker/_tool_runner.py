"""Running tool calls: every failure becomes an error result the model sees, never a crash.

An unknown tool, arguments that are not a JSON object, arguments the tool rejects, a tool
that raises, times out or returns something other than text: each gives the call an error
``ToolResult`` saying why. The approved calls of one reply run concurrently in a task group.

While a tool runs, :func:`current_tool_call_id` names its call (each call runs in a context
of its own), so a tool wrapper such as ``pod.telemetry``'s can tell the calls apart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextvars import ContextVar
from typing import final

from ._arguments import ArgumentsError, load_arguments
from ._errors import ToolArgumentsError
from ._items import ToolCall, ToolResult
from ._run_state import ToolBatch
from ._tools import Tool
from ._validated import validated

__all__ = ["ToolRunner", "current_tool_call_id", "error_result"]

_CALL_ID: ContextVar[str | None] = ContextVar("llm_worker_tool_call_id", default=None)


def current_tool_call_id() -> str | None:
    """The ``call_id`` of the tool call running in this context; ``None`` outside a tool."""
    return _CALL_ID.get()


@final
class ToolRunner:
    """Runs calls against a fixed set of tools, each within ``timeout`` seconds (``None``: no
    limit)."""

    def __init__(self, tools: Mapping[str, Tool], timeout: float | None) -> None:
        self._tools = tools
        self._timeout = timeout

    async def run_batch(self, batch: ToolBatch) -> None:
        """Give every approved call of ``batch`` without a result one, running them together."""
        calls = batch.calls
        if len(calls) == 1:  # the common case: no list, no task group
            only = calls[0]
            if only.decision == "approved" and only.result is None:
                only.result = await self.run(only.call)
            return
        to_run = batch.to_run()
        if len(to_run) == 1:
            to_run[0].result = await self.run(to_run[0].call)
            return
        async with asyncio.TaskGroup() as group:
            tasks = [(c, group.create_task(self.run(c.call))) for c in to_run]
        for call_state, task in tasks:
            call_state.result = task.result()

    async def run(self, call: ToolCall) -> ToolResult:
        """Run one tool call; every failure becomes an error result the model sees."""
        tool = self._tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self._tools)) or "none"
            return error_result(call, f"unknown tool {call.name!r} (available: {known})")
        try:
            # The hooks' parser (``ToolCallSummary.parsed_arguments``): a tool runs only with
            # the value the hooks could see.
            arguments = load_arguments(call.arguments)
        except ArgumentsError as exc:
            return error_result(call, str(exc))
        token = _CALL_ID.set(call.call_id)
        try:
            if self._timeout is None:
                content = await tool.call(arguments)
            else:
                async with asyncio.timeout(self._timeout):
                    content = await tool.call(arguments)
        except ToolArgumentsError as exc:
            return error_result(call, f"invalid arguments for {call.name}: {exc}")
        except TimeoutError:
            return error_result(call, f"tool {call.name} timed out after {self._timeout}s")
        except Exception as exc:  # a failing tool is the model's news, not a crash
            return error_result(call, f"tool {call.name} failed: {type(exc).__name__}: {exc}")
        finally:
            _CALL_ID.reset(token)
        problem = _not_text(content)
        if problem is not None:
            return error_result(call, f"tool {call.name} returned {problem}")
        return validated(ToolResult, call_id=call.call_id, name=call.name, content=content)


def _not_text(content: object) -> str | None:
    """What is wrong with a tool's output, if it is not text (a ``Tool`` is any object of the
    protocol's shape, and nothing checks what it returns at run time)."""
    return None if isinstance(content, str) else f"{type(content).__name__}, not text"


def error_result(call: ToolCall, message: str) -> ToolResult:
    """The error result ``call`` gets instead of running (or when running it failed)."""
    return ToolResult(call_id=call.call_id, name=call.name, content=message, is_error=True)
