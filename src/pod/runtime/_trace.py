"""The Pod's live trace: one event per thing an interceptor did and per hook decision.

A trace is an optional callback (``Pod(trace=...)``) for demos, logs and debugging. It is
called synchronously, in the order things happen, on the task running the Pod. Events are
frozen plain data; they describe what happened and never give access to the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, TypeAlias, TypeVar, final

from pydantic import BaseModel

from llm_worker import (
    Abort,
    AbortInfo,
    Continue,
    HookPoint,
    Pause,
    PreRequestInfo,
    PromptSubmitInfo,
    Rewrite,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
)

from ..telemetry import DecidingHooks

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


def describe_decision(decision: Continue | Skip | Abort | Pause | Rewrite | None) -> str:
    """Return a one-line description of a decision (``None`` for observe-only events)."""
    match decision:
        case Rewrite(reason=reason, arguments=arguments, then=then):
            rewrite = f"Rewrite: {reason} -> {_preview(arguments)}"
            return rewrite if then is None else f"{rewrite}, then {describe_decision(then)}"
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


def _prompt_submit(info: PromptSubmitInfo) -> str:
    return f"turn {info.turn}: {json.dumps(_preview(info.input_text), ensure_ascii=False)}"


def _pre_llm_request(info: PreRequestInfo) -> str:
    return f"request {info.request_index}: {info.item_count} items, ~{info.estimated_tokens} tokens"


def _pre_tool_call(info: ToolCallSummary) -> str:
    return f"{info.call_id} {info.tool_name}({_preview(info.arguments)})"


def _post_tool_call(info: ToolResultSummary) -> str:
    error = ", error" if info.is_error else ""
    return f"{info.call_id} {info.tool_name}: {info.output_length} bytes{error}"


def _turn_end(info: TurnEndInfo) -> str:
    return f"turn {info.turn} ends after {info.tool_calls_in_turn} tool calls"


def _abort(info: AbortInfo) -> str:
    return info.reason


def _fields(info: BaseModel) -> str:
    """Any Input in one line, field by field (events without a message of their own).

    Previews are left out: they repeat text the run shows elsewhere (a reply's preview is
    the answer itself)."""
    return ", ".join(
        f"{name}={_preview(json.dumps(value, ensure_ascii=False))}"
        for name, value in info.model_dump(mode="json").items()
        if not name.endswith("_preview")
    )


# Keyed by event name; an event missing here is traced field by field.
_MESSAGES: Final[Mapping[str, Callable[[Any], str]]] = {
    "prompt_submit": _prompt_submit,
    "pre_llm_request": _pre_llm_request,
    "pre_tool_call": _pre_tool_call,
    "post_tool_call": _post_tool_call,
    "turn_end": _turn_end,
    "abort": _abort,
}


@final
class TracingHookPort:
    """A hook port that asks ``hooks`` and reports each event's input, its decision, and
    the hook that made it."""

    def __init__(self, hooks: DecidingHooks, trace: Tracer) -> None:
        self._hooks = hooks
        self._trace = trace

    def has_hooks_at(self, point: HookPoint[Any, Any], /) -> bool:
        """Whether a hook listens at ``point`` (the trace reports every point all the same,
        so this port is not a ``SelectiveHookPort``)."""
        return self._hooks.listens_to(point)

    async def ask(self, point: HookPoint[InputT, DecisionT], info: InputT, /) -> DecisionT:
        # Described before the hooks run: the last hook is handed the original Input.
        message = _MESSAGES.get(point.name, _fields)(info)
        deciders: list[str] = []
        decision = await self._hooks.ask(point, info, on_decided=deciders.append)
        described = describe_decision(decision)  # type: ignore[arg-type]  # a decision or None
        if deciders:
            described += f"{_BY}{deciders[0]})"
        self._trace(
            TraceEvent(
                source="hooks", actor=point.name.upper(), message=message, decision=described
            )
        )
        return decision
