"""Read-only summaries: the Input a hook receives at each decision point.

The engine builds a summary from the state *after* the interceptors have run, and hands the
hook only the summary. Every summary is a frozen pydantic model made of strings, numbers and
booleans: it holds no reference back into the run (no item, list, dict or tool), so a hook
that keeps one sees later exactly what it saw then, and nothing it does to it can reach the
history. Building one costs O(1) in history length: counters are kept as the run goes.
"""

from __future__ import annotations

from typing import Final, final

from pydantic import BaseModel, JsonValue

from ._arguments import parse_arguments

__all__ = [
    "PREVIEW_BYTES",
    "AbortInfo",
    "PreRequestInfo",
    "PromptSubmitInfo",
    "ToolCallSummary",
    "ToolResultSummary",
    "TurnEndInfo",
]

PREVIEW_BYTES: Final = 512
"""Maximum UTF-8 length of every ``*_preview`` field; cuts fall on character boundaries."""


@final
class PromptSubmitInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """A user prompt about to enter the history."""

    input_text: str
    """The prompt as it will be appended (after interceptors)."""
    turn: int
    """0-based index of the turn this prompt starts (one turn per ``run``)."""


@final
class PreRequestInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The context about to be sent to the model."""

    turn: int
    """0-based index of the current turn."""
    request_index: int
    """0-based index of this model request within the turn."""
    item_count: int
    """Number of items in the history that will be sent."""
    estimated_tokens: int
    """Estimated input tokens of the request: calibrated on the provider's last reported
    input tokens when known, otherwise a local estimate (about 4 characters a token)."""
    tool_calls_this_turn: int
    """Tool calls the model has made so far in this turn."""


@final
class ToolCallSummary(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """A tool call the model asked for, as it stands after the interceptors."""

    call_id: str
    tool_name: str
    arguments: str
    """The arguments as JSON text (a copy: parsing it gives a fresh object every time)."""
    turn: int
    """0-based index of the current turn."""

    def parsed_arguments(self) -> dict[str, JsonValue] | None:
        """Return a fresh parse of the arguments, or ``None`` if they are refused.

        Refused: not a JSON object, longer than ``MAX_ARGUMENTS_CHARS`` (1 Mi characters),
        or nested more than 200 levels below the object. Never raises, whatever the model
        wrote. The tool is given the same parse (blank text is ``{}``), and a refused call
        never runs. The result is the hook's own copy: changing it changes nothing in the run.
        """
        return parse_arguments(self.arguments)

    def argument(self, name: str) -> JsonValue:
        """Return one argument by name (a fresh copy), or ``None`` if it is absent."""
        parsed = self.parsed_arguments()
        return None if parsed is None else parsed.get(name)


@final
class ToolResultSummary(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The result of a tool call, as it stands after the interceptors (e.g. truncated)."""

    call_id: str
    tool_name: str
    is_error: bool
    output_preview: str
    """The start of the output, at most ``PREVIEW_BYTES`` UTF-8 bytes."""
    output_length: int
    """Length of the whole output in UTF-8 bytes."""
    turn: int
    """0-based index of the current turn."""


@final
class TurnEndInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The model answered without asking for tools: the turn is about to end."""

    turn: int
    """0-based index of the turn that is ending."""
    tool_calls_in_turn: int
    """Tool calls the model made during this turn."""
    final_text_preview: str
    """The start of the final answer, at most ``PREVIEW_BYTES`` UTF-8 bytes."""


@final
class AbortInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The run is being aborted; observe only."""

    reason: str
    turn: int
    """0-based index of the turn being aborted."""
