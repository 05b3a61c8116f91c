"""The Pod's live trace: one event per thing an interceptor did and per hook decision.

A trace is an optional callback (``Pod(trace=...)``) for demos, logs and debugging. It is
called synchronously, in the order things happen, on the task running the Pod. Events are
frozen plain data; they describe what happened and never give access to the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final, Literal, TypeAlias, final

from pydantic import BaseModel, ConfigDict

from llm_worker import (
    Abort,
    AbortInfo,
    Continue,
    HookPort,
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

__all__ = ["TraceEvent", "TraceSource", "Tracer", "TracingHookPort"]

TraceSource: TypeAlias = Literal["interceptor", "hooks", "pod"]
"""Who acted: an internal interceptor, the hooks of an event, or the Pod itself."""

_ARGUMENTS_PREVIEW: Final = 80


@final
class TraceEvent(BaseModel):
    """One step of a run, as the trace reports it."""

    model_config = ConfigDict(frozen=True, extra="forbid")
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


def _preview(text: str, limit: int = _ARGUMENTS_PREVIEW) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


@final
class TracingHookPort:
    """A hook port that asks ``inner`` and reports each event's input and decision."""

    def __init__(self, inner: HookPort, trace: Tracer) -> None:
        self._inner = inner
        self._trace = trace

    def _report(self, actor: str, message: str, decision: str) -> None:
        self._trace(TraceEvent(source="hooks", actor=actor, message=message, decision=decision))

    async def prompt_submit(self, info: PromptSubmitInfo) -> PromptSubmitDecision:
        decision = await self._inner.prompt_submit(info)
        message = f"turn {info.turn}: {json.dumps(_preview(info.input_text), ensure_ascii=False)}"
        self._report("PROMPT_SUBMIT", message, describe_decision(decision))
        return decision

    async def pre_llm_request(self, info: PreRequestInfo) -> PreRequestDecision:
        decision = await self._inner.pre_llm_request(info)
        message = (
            f"request {info.request_index}: {info.item_count} items, "
            f"~{info.estimated_tokens} tokens"
        )
        self._report("PRE_LLM_REQUEST", message, describe_decision(decision))
        return decision

    async def pre_tool_call(self, info: ToolCallSummary) -> PreToolDecision:
        decision = await self._inner.pre_tool_call(info)
        message = f"{info.call_id} {info.tool_name}({_preview(info.arguments)})"
        self._report("PRE_TOOL_CALL", message, describe_decision(decision))
        return decision

    async def post_tool_call(self, info: ToolResultSummary) -> PostToolDecision:
        decision = await self._inner.post_tool_call(info)
        error = ", error" if info.is_error else ""
        message = f"{info.call_id} {info.tool_name}: {info.output_length} bytes{error}"
        self._report("POST_TOOL_CALL", message, describe_decision(decision))
        return decision

    async def turn_end(self, info: TurnEndInfo) -> TurnEndDecision:
        decision = await self._inner.turn_end(info)
        message = f"turn {info.turn} ends after {info.tool_calls_in_turn} tool calls"
        self._report("TURN_END", message, describe_decision(decision))
        return decision

    async def abort(self, info: AbortInfo) -> None:
        await self._inner.abort(info)
        self._report("ABORT", info.reason, describe_decision(None))
