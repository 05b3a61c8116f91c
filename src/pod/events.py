"""The hook event catalogue: each event fixes its Input (a frozen summary) and its Output
(the decisions legal there).

This is the one place events are declared. Dispatch, the registry's checks, ``pod events``,
``pod schema``, the mypy plugin and the docs table all derive from :data:`CATALOGUE`.

| event | Input | Output |
|---|---|---|
| ``PROMPT_SUBMIT`` | ``PromptSubmitInfo`` | ``Continue | Abort`` |
| ``PRE_LLM_REQUEST`` | ``PreRequestInfo`` | ``Continue | Abort | Pause`` |
| ``PRE_TOOL_CALL`` | ``ToolCallSummary`` | ``Continue | Skip | Abort | Pause`` |
| ``POST_TOOL_CALL`` | ``ToolResultSummary`` | ``Continue | Abort | Pause`` |
| ``TURN_END`` | ``TurnEndInfo`` | ``Continue | Pause`` |
| ``ABORT`` | ``AbortInfo`` | ``None`` (observe only) |
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, Any, Final, Generic, TypeVar, Union, final, get_args

from pydantic import BaseModel, Field, TypeAdapter

from llm_worker import (
    AbortInfo,
    Continue,
    PostToolDecision,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    PromptSubmitDecision,
    PromptSubmitInfo,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndDecision,
    TurnEndInfo,
)

__all__ = [
    "ABORT",
    "CATALOGUE",
    "POST_TOOL_CALL",
    "PRE_LLM_REQUEST",
    "PRE_TOOL_CALL",
    "PROMPT_SUBMIT",
    "TURN_END",
    "HookEvent",
    "by_name",
]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")


@final
@dataclass(frozen=True, eq=False)
class HookEvent(Generic[InputT, DecisionT]):
    """A decision point hooks can observe: its name, Input type and legal decisions."""

    name: str
    """Stable, snake_case name (used in JSON, TOML, the CLI and error messages)."""
    input_type: type[InputT]
    """The frozen summary a hook receives."""
    decision_types: tuple[type[BaseModel], ...]
    """The decision classes a hook may return; empty for observe-only events."""
    neutral: DecisionT
    """What the event resolves to when every hook continues (``Continue()``, or ``None``)."""
    description: str

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
        """JSON Schema of what a hook may return (``null`` for observe-only events)."""
        if self.observe_only:
            return {"type": "null"}
        return self.decision_adapter().json_schema()


def _legal(decisions: object) -> tuple[type[BaseModel], ...]:
    return tuple(get_args(decisions))


@functools.cache
def _decision_adapter(decision_types: tuple[type[BaseModel], ...]) -> TypeAdapter[Any]:
    if len(decision_types) == 1:
        return TypeAdapter(decision_types[0])
    tagged: Any = Annotated[Union[decision_types], Field(discriminator="decision")]  # noqa: UP007
    return TypeAdapter(tagged)


_CONTINUE: Final = Continue()

PROMPT_SUBMIT: Final = HookEvent[PromptSubmitInfo, PromptSubmitDecision](
    "prompt_submit",
    PromptSubmitInfo,
    _legal(PromptSubmitDecision),
    _CONTINUE,
    "A user prompt is about to enter the history.",
)
PRE_LLM_REQUEST: Final = HookEvent[PreRequestInfo, PreRequestDecision](
    "pre_llm_request",
    PreRequestInfo,
    _legal(PreRequestDecision),
    _CONTINUE,
    "The context is about to be sent to the model (after compaction and notifications).",
)
PRE_TOOL_CALL: Final = HookEvent[ToolCallSummary, PreToolDecision](
    "pre_tool_call",
    ToolCallSummary,
    _legal(PreToolDecision),
    _CONTINUE,
    "The model asked for a tool call; decide whether it runs.",
)
POST_TOOL_CALL: Final = HookEvent[ToolResultSummary, PostToolDecision](
    "post_tool_call",
    ToolResultSummary,
    _legal(PostToolDecision),
    _CONTINUE,
    "A tool ran; its result (after truncation) is about to enter the history.",
)
TURN_END: Final = HookEvent[TurnEndInfo, TurnEndDecision](
    "turn_end",
    TurnEndInfo,
    _legal(TurnEndDecision),
    _CONTINUE,
    "The model answered without tool calls; the turn is about to end.",
)
ABORT: Final = HookEvent[AbortInfo, None](
    "abort",
    AbortInfo,
    (),
    None,
    "The run is being aborted (observe only).",
)

CATALOGUE: Final[tuple[HookEvent[Any, Any], ...]] = (
    PROMPT_SUBMIT,
    PRE_LLM_REQUEST,
    PRE_TOOL_CALL,
    POST_TOOL_CALL,
    TURN_END,
    ABORT,
)
"""Every event, in the order a run meets them."""


def by_name(name: str) -> HookEvent[Any, Any]:
    """Return the event called ``name`` (e.g. ``"pre_tool_call"``), case-insensitively.

    Raises:
        KeyError: no event has that name; the message lists the names.
    """
    wanted = name.strip().lower()
    for event in CATALOGUE:
        if event.name == wanted:
            return event
    raise KeyError(f"no hook event {name!r}; events: {', '.join(e.name for e in CATALOGUE)}")
