"""Control-flow decisions: what a hook (or an interceptor) may answer at a decision point.

Decisions are frozen values, never exceptions. Each event accepts only its own subset,
spelled as a union alias (:data:`PreToolDecision`, ...), so a hook returning ``Skip`` from
``PRE_LLM_REQUEST`` is a type error under any checker. No decision carries items: a hook
can stop or steer the run, never write to its context.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, final

from pydantic import BaseModel

__all__ = [
    "CONTINUE",
    "Abort",
    "Continue",
    "Pause",
    "PostToolDecision",
    "PreRequestDecision",
    "PreToolDecision",
    "PromptSubmitDecision",
    "Skip",
    "TurnEndDecision",
]


@final
class Continue(BaseModel, frozen=True, extra="forbid"):
    """Carry on: the neutral decision. The next hook in registration order is asked."""

    decision: Literal["continue"] = "continue"


CONTINUE: Final = Continue()
"""The shared ``Continue`` (decisions are immutable, so one will do)."""


@final
class Skip(BaseModel, frozen=True, extra="forbid"):
    """Do not run this tool call; the model gets an error result carrying ``reason``."""

    decision: Literal["skip"] = "skip"
    reason: str


@final
class Abort(BaseModel, frozen=True, extra="forbid"):
    """End the run now with ``reason``; open tool calls are closed with synthetic results."""

    decision: Literal["abort"] = "abort"
    reason: str


@final
class Pause(BaseModel, frozen=True, extra="forbid"):
    """Stop the run resumably (e.g. to ask a human); the caller resumes it later."""

    decision: Literal["pause"] = "pause"
    reason: str = ""


PromptSubmitDecision: TypeAlias = Continue | Abort
"""Legal at ``PROMPT_SUBMIT``."""
PreRequestDecision: TypeAlias = Continue | Abort | Pause
"""Legal at ``PRE_LLM_REQUEST``."""
PreToolDecision: TypeAlias = Continue | Skip | Abort | Pause
"""Legal at ``PRE_TOOL_CALL``."""
PostToolDecision: TypeAlias = Continue | Abort | Pause
"""Legal at ``POST_TOOL_CALL``."""
TurnEndDecision: TypeAlias = Continue | Pause
"""Legal at ``TURN_END``."""
