"""The Interceptor API: privileged, internal, with the mutable context in hand.

Interceptors are how the engine and the layer above it (``pod``'s compaction,
notifications, truncation) change a run. They get the live history (``list[Item]``), a
mutable :class:`ToolCallInfo` whose ``call`` may be replaced, and a mutable
:class:`ToolResultInfo` whose ``result`` may be replaced. They are not a public extension
point: users write hooks (``pod.HookRegistry``), which receive read-only summaries.

Interceptor methods are synchronous and must be quick: work that needs I/O (such as
summarising the history through a model) returns :class:`Yield` from ``pre_llm_request``,
and the Worker's owner does it before resuming.

At each decision point the Worker calls the interceptors in order; the first action that is
not ``Continue`` stops the chain, and the hooks do not run for that point. Otherwise the
Worker builds the hook summary from the state *after* the interceptors and asks the hooks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, final

from pydantic import BaseModel

from ._decisions import CONTINUE, Abort, Continue, Pause, Skip
from ._history import History
from ._items import Item, Message, ToolCall, ToolResult
from ._privilege import Privileged
from ._tools import PrivilegedTool

__all__ = [
    "CONTINUE",
    "Abort",
    "Continue",
    "History",
    "Interceptor",
    "Pause",
    "PromptInfo",
    "Skip",
    "ToolCallInfo",
    "ToolMeta",
    "ToolResultInfo",
    "Yield",
]


@final
class Yield(BaseModel, frozen=True, extra="forbid"):
    """Interceptor-only action at ``pre_llm_request``: hand control to the Worker's owner.

    The Worker returns ``Yielded(reason)``; its owner (the Pod) does the work (e.g.
    compaction) and resumes, and the interceptors run again for that request.
    """

    reason: str


@final
class ToolMeta(NamedTuple):
    """Where a tool call stands in the run (immutable; a tuple because one is built for every
    call on the hot path, where a frozen dataclass costs four times as much)."""

    turn: int
    """0-based turn index."""
    request_index: int
    """0-based index, within the turn, of the model request whose reply made this call."""
    position: int
    """0-based position of the call in its reply."""
    batch_size: int
    """Number of tool calls in that reply."""


@final
@dataclass(slots=True)
class PromptInfo(Privileged):
    """The user prompt about to be appended; ``message`` may be replaced."""

    message: Message


@final
@dataclass(slots=True)
class ToolCallInfo(Privileged):
    """A tool call about to be decided on. Replace ``call`` to rewrite it (same ``call_id``);
    the history then records the rewritten call. ``tool`` is ``None`` for an unknown tool."""

    call: ToolCall
    meta: ToolMeta
    tool: PrivilegedTool | None


@final
@dataclass(slots=True)
class ToolResultInfo(Privileged):
    """A tool result about to enter the history. Replace ``result`` to rewrite it."""

    call: ToolCall
    result: ToolResult
    meta: ToolMeta
    tool: PrivilegedTool | None


class Interceptor(Privileged):
    """Base class of internal mechanisms; every method defaults to carrying on."""

    def on_prompt_submit(self, prompt: PromptInfo) -> Continue | Abort:
        """Before a user prompt enters the history."""
        del prompt
        return CONTINUE

    def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
        """Before each model request. Changes to ``context`` are durable: it is the history."""
        del context
        return CONTINUE

    def pre_tool_call(self, info: ToolCallInfo) -> Continue | Skip | Abort | Pause:
        """Before each tool call is decided on, in call order."""
        del info
        return CONTINUE

    def post_tool_call(self, info: ToolResultInfo) -> Continue | Abort:
        """After a tool ran, before its result enters the history, in call order."""
        del info
        return CONTINUE

    def on_turn_end(self, history: list[Item]) -> Continue | Pause:
        """When the model answered without tool calls, before the turn ends."""
        del history
        return CONTINUE

    def on_abort(self, reason: str) -> None:
        """When the run is aborted, after open tool calls were closed."""
        del reason
