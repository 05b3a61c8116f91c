"""Strands Agents on a scripted ``Model`` (Strands ships no fake model; this one streams the
events of one tool call, or of the final text), with ``BeforeModelCallEvent`` and
``BeforeToolCallEvent`` hooks.

The default conversation manager trims the history to a sliding window; it is replaced by
``NullConversationManager`` so every peer keeps the whole history. Strands' event loop
recurses once per tool cycle (and its tracer serialises nested state), so 1,000 turns
exceed Python's default recursion limit of 1,000: the limit is raised for this run. Run by
``python -m bench.peers`` with the interpreter of ``bench/.venvs/strands``.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Any

from _driver import drive
from floor import ARGUMENTS, FINAL_TEXT, echo_body
from strands import Agent, tool
from strands.agent.conversation_manager import NullConversationManager
from strands.hooks import BeforeModelCallEvent, BeforeToolCallEvent
from strands.models import Model


class ScriptedModel(Model):
    def __init__(self, turns: int) -> None:
        self.turns = turns
        self.requests = 0

    def update_config(self, **model_config: Any) -> None:
        return None

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the benchmark does not ask for structured output")

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self.requests += 1
        yield {"messageStart": {"role": "assistant"}}
        if self.requests <= self.turns:
            use = {"toolUseId": f"call_{self.requests}", "name": "echo"}
            yield {"contentBlockStart": {"start": {"toolUse": use}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": ARGUMENTS}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
        else:
            yield {"contentBlockDelta": {"delta": {"text": FINAL_TEXT}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}


@tool
async def echo(text: str) -> str:
    """Return the text."""
    return await echo_body(text)


def watch_request(event: BeforeModelCallEvent) -> None:
    return None


def allow_tool(event: BeforeToolCallEvent) -> None:
    return None


sys.setrecursionlimit(100_000)


def make(turns: int):  # type: ignore[no-untyped-def]
    agent = Agent(
        model=ScriptedModel(turns),
        tools=[echo],
        callback_handler=None,
        conversation_manager=NullConversationManager(),
    )
    agent.add_hook(watch_request, BeforeModelCallEvent)
    agent.add_hook(allow_tool, BeforeToolCallEvent)

    async def run() -> None:
        result = await agent.invoke_async("go")
        assert FINAL_TEXT in str(result), str(result)

    return run


drive(
    "Strands Agents",
    version("strands-agents"),
    make,
    notes=[
        "model: a scripted Model subclass streaming its events (no fake model ships)",
        "hooks: BeforeModelCallEvent and BeforeToolCallEvent callbacks",
        "NullConversationManager: the default sliding window would trim the history",
        "recursion limit raised to 100,000: the event loop recurses once per tool cycle",
    ],
)
