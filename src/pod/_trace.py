"""The Pod's live trace: one event per thing an interceptor did and per hook decision.

A trace is an optional callback (``Pod(trace=...)``) for demos, logs and debugging. It is
called synchronously, in the order things happen, on the task running the Pod. Events are
frozen plain data; they describe what happened and never give access to the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final, Literal, TypeAlias, TypeVar, final

from pydantic import BaseModel

from llm_worker import (
    Abort,
    AbortInfo,
    Continue,
    Pause,
    PostToolDecision,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    PromptSubmitDecision,
    PromptSubmitInfo,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndDecision,
    TurnEndInfo,
)

from . import events
from ._registry import FrozenHookRegistry
from .events import HookEvent

__all__ = ["TraceEvent", "TraceSource", "Tracer", "TracingHookPort", "decided_by"]

TraceSource: TypeAlias = Literal["interceptor", "hooks", "pod"]
"""Who acted: an internal interceptor, the hooks of an event, or the Pod itself."""

_ARGUMENTS_PREVIEW: Final = 80

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")


@final
class TraceEvent(BaseModel, frozen=True, extra="forbid"):
    """One step of a run, as the trace reports it."""

    source: TraceSource
    actor: str
    """The interceptor (``compaction``, ``notification``, ``truncation``), the event
    (``PRE_TOOL_CALL``, ...) or ``pod``."""
    message: str
    """What happened, in one line."""
    decision: str | None = None
    """For ``hooks``: the decision they reached (``Continue``, ``Skip: reason``, ...)."""


Tracer: TypeAlias = Callable[[TraceEvent], None]
"""Receives trace events; called synchronously on the task running the Pod."""


def describe_decision(decision: Continue | Skip | Abort | Pause | None) -> str:
    """Return a one-line description of a decision (``None`` for observe-only events)."""
    match decision:
        case None:
            return "observed"
        case Continue():
            return "Continue"
        case Skip(reason=reason):
            return f"Skip: {reason}"
        case Abort(reason=reason):
            return f"Abort: {reason}"
        case Pause(reason=reason):
            return f"Pause: {reason}" if reason else "Pause"


_BY: Final = " (by "


def decided_by(decision: str) -> str | None:
    """The hook named in a traced decision (``"Pause: why (by my.hook)"`` -> ``my.hook``)."""
    head, marker, name = decision.rpartition(_BY)
    return name[:-1] if marker and head and name.endswith(")") else None


def _preview(text: str, limit: int = _ARGUMENTS_PREVIEW) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


@final
class TracingHookPort:
    """A hook port that asks ``hooks`` and reports each event's input, its decision, and
    the hook that made it."""

    def __init__(self, hooks: FrozenHookRegistry, trace: Tracer) -> None:
        self._hooks = hooks
        self._trace = trace

    async def _ask(
        self, event: HookEvent[InputT, DecisionT], info: InputT, message: str
    ) -> DecisionT:
        deciders: list[str] = []
        decision = await self._hooks.dispatch(event, info, on_decided=deciders.append)
        described = describe_decision(decision)  # type: ignore[arg-type]  # a decision or None
        if deciders:
            described += f"{_BY}{deciders[0]})"
        self._trace(
            TraceEvent(
                source="hooks", actor=event.name.upper(), message=message, decision=described
            )
        )
        return decision

    async def prompt_submit(self, info: PromptSubmitInfo) -> PromptSubmitDecision:
        message = f"turn {info.turn}: {json.dumps(_preview(info.input_text), ensure_ascii=False)}"
        return await self._ask(events.PROMPT_SUBMIT, info, message)

    async def pre_llm_request(self, info: PreRequestInfo) -> PreRequestDecision:
        message = (
            f"request {info.request_index}: {info.item_count} items, "
            f"~{info.estimated_tokens} tokens"
        )
        return await self._ask(events.PRE_LLM_REQUEST, info, message)

    async def pre_tool_call(self, info: ToolCallSummary) -> PreToolDecision:
        message = f"{info.call_id} {info.tool_name}({_preview(info.arguments)})"
        return await self._ask(events.PRE_TOOL_CALL, info, message)

    async def post_tool_call(self, info: ToolResultSummary) -> PostToolDecision:
        error = ", error" if info.is_error else ""
        message = f"{info.call_id} {info.tool_name}: {info.output_length} bytes{error}"
        return await self._ask(events.POST_TOOL_CALL, info, message)

    async def turn_end(self, info: TurnEndInfo) -> TurnEndDecision:
        message = f"turn {info.turn} ends after {info.tool_calls_in_turn} tool calls"
        return await self._ask(events.TURN_END, info, message)

    async def abort(self, info: AbortInfo) -> None:
        await self._ask(events.ABORT, info, info.reason)
