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
    Annotate,
    Approve,
    Continue,
    Feedback,
    HookPoint,
    OutputInfo,
    Pause,
    PreRequestInfo,
    PromptSubmitInfo,
    Rewrite,
    RunEndInfo,
    RunStartInfo,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
)

from ..telemetry import DecidingHooks

__all__ = [
    "TraceEvent",
    "TraceSource",
    "TracedDecision",
    "Tracer",
    "TracingHookPort",
    "decided_by",
    "traced_decision",
]

TraceSource: TypeAlias = Literal["interceptor", "hooks", "pod", "person"]
"""Who acted: an internal interceptor, the hooks of an event, the Pod itself, or a person
answering a pause (the CLI's approval prompt and ``--approve``/``--skip``/``--abort``)."""

_ARGUMENTS_PREVIEW: Final = 80

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")


@final
class TracedDecision(BaseModel, frozen=True, extra="forbid"):
    """A decision as data: what it was, why, and which hook made it."""

    kind: Literal[
        "Continue", "Skip", "Abort", "Pause", "Rewrite", "Feedback", "Annotate", "observed"
    ]
    """The decision's class; ``observed`` for an observe-only event."""
    reason: str | None = None
    """The reason it gave (``Skip``, ``Abort``, ``Pause``; a ``Feedback``'s or an
    ``Annotate``'s text)."""
    hook: str | None = None
    """The hook that decided, by its public name; ``None`` when every hook continued (or a
    person decided)."""

    def display(self) -> str:
        """``Skip: reason (by my.hook)``: the decision in one line, as the trace prints it."""
        text = f"{self.kind}: {self.reason}" if self.reason else self.kind
        return f"{text}{_BY}{self.hook})" if self.hook else text


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
    """For ``hooks`` and ``person``: the decision reached, in one line (``Continue``,
    ``Skip: reason (by my.hook)``, ...): ``decided.display()``."""
    decided: TracedDecision | None = None
    """The same decision as data (``--json`` prints this one)."""


Tracer: TypeAlias = Callable[[TraceEvent], None]
"""Receives trace events; called synchronously on the task running the Pod."""


def traced_decision(
    decision: Continue | Approve | Skip | Abort | Pause | Rewrite | Feedback | Annotate | None,
    hook: str | None = None,
) -> TracedDecision:
    """A decision as the trace records it (``None``: an observe-only event; an ``Approve``
    of a paused call is recorded as the ``Continue`` it resolves to)."""
    match decision:
        case Approve():
            return TracedDecision(kind="Continue", hook=hook)
        case Rewrite(reason=reason, arguments=arguments, then=then):
            rewrite = f"{reason} -> {_preview(arguments)}"
            if then is not None:
                rewrite = f"{rewrite}, then {describe_decision(then)}"
            return TracedDecision(kind="Rewrite", reason=rewrite, hook=hook)
        case None:
            return TracedDecision(kind="observed", hook=hook)
        case Continue():
            return TracedDecision(kind="Continue", hook=hook)
        case Skip(reason=reason):
            return TracedDecision(kind="Skip", reason=reason, hook=hook)
        case Abort(reason=reason):
            return TracedDecision(kind="Abort", reason=reason, hook=hook)
        case Pause(reason=reason):
            return TracedDecision(kind="Pause", reason=reason or None, hook=hook)
        case Feedback(text=text):
            return TracedDecision(kind="Feedback", reason=text, hook=hook)
        case Annotate(text=text, then=then):
            note = text if then is None else f"{text}, then {describe_decision(then)}"
            return TracedDecision(kind="Annotate", reason=note, hook=hook)


def describe_decision(
    decision: Continue | Skip | Abort | Pause | Rewrite | Feedback | Annotate | None,
) -> str:
    """Return a one-line description of a decision (``None`` for observe-only events)."""
    return traced_decision(decision).display()


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


def _run_start(info: RunStartInfo) -> str:
    return f"turn {info.turn}: tools {', '.join(info.tool_names) or '(none)'}"


def _output(info: OutputInfo) -> str:
    return f"turn {info.turn}: {info.text_length} bytes"


def _run_end(info: RunEndInfo) -> str:
    # An aborted run's reason is ABORT's message, just before: not repeated.
    return f"turn {info.turn}: {info.outcome}"


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
    "run_start": _run_start,
    "turn_end": _turn_end,
    "output": _output,
    "abort": _abort,
    "run_end": _run_end,
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
        decided = traced_decision(
            decision,  # type: ignore[arg-type]  # a decision or None
            deciders[0] if deciders else None,
        )
        self._trace(
            TraceEvent(
                source="hooks",
                actor=point.name.upper(),
                message=message,
                decision=decided.display(),
                decided=decided,
            )
        )
        return decision
