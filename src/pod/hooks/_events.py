"""The hook event catalogue: each event fixes its Input (a frozen summary) and its Output
(the decisions legal there).

This is the one place events are declared. Dispatch, the registry's checks, ``pod events``,
``pod schema``, the mypy plugin, the docs tables and the meta-tests all derive from
:data:`CATALOGUE`. Each event wraps the engine's :class:`~llm_worker.HookPoint` (the typed key
the Worker asks its hook port with) and adds what users read: a description.

Every event's Input and decision alias is importable from here, beside its event (the first
six Inputs are also at ``pod``'s top level).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, Any, Final, Generic, TypeVar, Union, final

from pydantic import BaseModel, Field, TypeAdapter

from llm_worker import (
    ABORT_POINT,
    OUTPUT_POINT,
    POST_LLM_RESPONSE_POINT,
    POST_TOOL_CALL_POINT,
    PRE_COMPACT_POINT,
    PRE_LLM_REQUEST_POINT,
    PRE_TOOL_CALL_POINT,
    PROMPT_SUBMIT_POINT,
    RUN_END_POINT,
    RUN_START_POINT,
    TURN_END_POINT,
    AbortInfo,
    HookPoint,
    OutputDecision,
    OutputInfo,
    PostLlmResponseInfo,
    PostResponseDecision,
    PostToolDecision,
    PreCompactDecision,
    PreCompactInfo,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    PromptSubmitDecision,
    PromptSubmitInfo,
    RunEndInfo,
    RunStartDecision,
    RunStartInfo,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndDecision,
    TurnEndInfo,
)

from ._errors import PodUsageError

__all__ = [
    "ABORT",
    "CATALOGUE",
    "OUTPUT",
    "POST_LLM_RESPONSE",
    "POST_TOOL_CALL",
    "PRE_COMPACT",
    "PRE_LLM_REQUEST",
    "PRE_TOOL_CALL",
    "PROMPT_SUBMIT",
    "RUN_END",
    "RUN_START",
    "TURN_END",
    "AbortInfo",
    "HookEvent",
    "OutputDecision",
    "OutputInfo",
    "PostLlmResponseInfo",
    "PostResponseDecision",
    "PostToolDecision",
    "PreCompactDecision",
    "PreCompactInfo",
    "PreRequestDecision",
    "PreRequestInfo",
    "PreToolDecision",
    "PromptSubmitDecision",
    "PromptSubmitInfo",
    "RunEndInfo",
    "RunStartDecision",
    "RunStartInfo",
    "ToolCallSummary",
    "ToolResultSummary",
    "TurnEndDecision",
    "TurnEndInfo",
    "UnknownEventError",
    "by_name",
]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")


@final
@dataclass(frozen=True, eq=False)
class HookEvent(Generic[InputT, DecisionT]):
    """A decision point hooks can observe: the engine's point, and what users read about it."""

    point: HookPoint[InputT, DecisionT]
    """The engine's typed key for this decision point (what the Worker asks its port with)."""
    description: str
    """When the event fires, in one sentence."""

    @property
    def name(self) -> str:
        """Stable, snake_case name (used in JSON, TOML, the CLI and error messages)."""
        return self.point.name

    @property
    def input_type(self) -> type[InputT]:
        """The frozen summary a hook receives."""
        return self.point.input_type

    @property
    def decision_types(self) -> tuple[type[BaseModel], ...]:
        """The decision classes a hook may return; empty for observe-only events."""
        return self.point.decision_types

    @property
    def neutral(self) -> DecisionT:
        """What the event resolves to when every hook continues (``Continue()``, or ``None``)."""
        return self.point.neutral

    def __repr__(self) -> str:
        return f"<HookEvent {self.name.upper()}>"

    @property
    def observe_only(self) -> bool:
        """True when hooks of this event return ``None`` (no decision to make)."""
        return not self.decision_types

    def decision_adapter(self) -> TypeAdapter[Any]:
        """A validator for this event's decisions as JSON (tagged by ``decision``)."""
        return _decision_adapter(self.decision_types)

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the Input a hook receives."""
        return self.input_type.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        """JSON Schema of what a hook may return (``null`` for observe-only events).

        A decision's ``decision`` tag is required, as in every decision written as JSON:
        ``{}`` names no decision, and the run refuses it.
        """
        if self.observe_only:
            return {"type": "null"}
        schema = self.decision_adapter().json_schema()
        for definition in [schema, *schema.get("$defs", {}).values()]:
            if "decision" in definition.get("properties", {}):
                required = definition.setdefault("required", [])
                if "decision" not in required:
                    required.insert(0, "decision")
        return schema


@functools.cache
def _decision_adapter(decision_types: tuple[type[BaseModel], ...]) -> TypeAdapter[Any]:
    if len(decision_types) == 1:
        return TypeAdapter(decision_types[0])
    tagged: Any = Annotated[Union[decision_types], Field(discriminator="decision")]  # noqa: UP007
    return TypeAdapter(tagged)


RUN_START: Final = HookEvent(
    RUN_START_POINT,
    "A run is starting, before its prompt is submitted; abort to refuse it.",
)
PROMPT_SUBMIT: Final = HookEvent(
    PROMPT_SUBMIT_POINT, "A user prompt is about to enter the history."
)
PRE_COMPACT: Final = HookEvent(
    PRE_COMPACT_POINT,
    "Compaction is about to replace older history items by a summary; observe, or pause "
    "for a human before the context is lost.",
)
PRE_LLM_REQUEST: Final = HookEvent(
    PRE_LLM_REQUEST_POINT,
    "The context is about to be sent to the model (after compaction and notifications).",
)
POST_LLM_RESPONSE: Final = HookEvent(
    POST_LLM_RESPONSE_POINT,
    "The model replied; check the reply before any of its tool calls is decided or run.",
)
PRE_TOOL_CALL: Final = HookEvent(
    PRE_TOOL_CALL_POINT, "The model asked for a tool call; decide whether it runs."
)
POST_TOOL_CALL: Final = HookEvent(
    POST_TOOL_CALL_POINT,
    "A tool ran; its result (after truncation) is about to enter the history.",
)
TURN_END: Final = HookEvent(
    TURN_END_POINT, "The model answered without tool calls; the turn is about to end."
)
OUTPUT: Final = HookEvent(
    OUTPUT_POINT,
    "The turn ended and its final answer is about to be returned; abort to withhold it.",
)
ABORT: Final = HookEvent(ABORT_POINT, "The run is being aborted (observe only).")
RUN_END: Final = HookEvent(
    RUN_END_POINT,
    "The run finished, aborted or reached its limit; its result is about to be returned "
    "(observe only).",
)

CATALOGUE: Final[tuple[HookEvent[Any, Any], ...]] = (
    RUN_START,
    PROMPT_SUBMIT,
    PRE_COMPACT,
    PRE_LLM_REQUEST,
    POST_LLM_RESPONSE,
    PRE_TOOL_CALL,
    POST_TOOL_CALL,
    TURN_END,
    OUTPUT,
    ABORT,
    RUN_END,
)
"""Every event, in the order a run meets them."""


class UnknownEventError(PodUsageError):
    """Something that is not one of ``pod.events`` was given as an event: a hook registered
    for another object, or an event name (``events.by_name``, a ``[[hook]]`` table, ``pod
    schema NAME``) that no event has. The message lists the events."""

    def __init__(self, event: object) -> None:
        self.event = event
        named = [
            known for known in CATALOGUE if isinstance(event, str) and known.name == event.lower()
        ]
        if named:  # the event's name where the event was wanted: registry.on("pre_tool_call")
            message = (
                f"{event!r} is the name of an event, not the event: give "
                f"events.{named[0].name.upper()} (from pod import events)"
            )
        elif isinstance(event, str):
            names = ", ".join(known.name for known in CATALOGUE)
            message = f"no hook event {event!r}; events: {names}"
        else:
            names = ", ".join(known.name.upper() for known in CATALOGUE)
            message = f"{event!r} is not a hook event; use one of pod.events ({names})"
        super().__init__(message)


def by_name(name: str) -> HookEvent[Any, Any]:
    """Return the event called ``name`` (e.g. ``"pre_tool_call"``), case-insensitively.

    Raises:
        UnknownEventError: no event has that name; the message lists the names.
    """
    wanted = name.strip().lower()
    for event in CATALOGUE:
        if event.name == wanted:
            return event
    raise UnknownEventError(name)
