"""Tool-call arguments: the one parser for the JSON text the model writes.

The model controls this text, so parsing it must neither raise nor take unbounded time or
memory. Hooks (``ToolCallSummary.parsed_arguments``, ``PermissionHook``) and the tool
itself read the arguments through the same function, so a hook approves exactly the value
the tool will get: what the parser refuses, no tool runs with.

Bounds: at most :data:`MAX_ARGUMENTS_CHARS` characters (an LLM's whole output is far less)
and at most 200 levels of nesting below the arguments object (pydantic-core's own limit,
checked while it parses: 100,000-deep text is refused after about 200 brackets). NaN
and infinities are refused: they are not JSON.
"""

from __future__ import annotations

from typing import Final, cast

import pydantic_core
from pydantic import JsonValue

__all__ = ["MAX_ARGUMENTS_CHARS", "ArgumentsError", "load_arguments", "parse_arguments"]

MAX_ARGUMENTS_CHARS: Final = 1 << 20
"""Longest arguments text accepted, in characters (1 Mi): above it the call is refused."""


class ArgumentsError(ValueError):
    """The arguments text is not a JSON object within the bounds; the message says why."""


def load_arguments(text: str) -> dict[str, JsonValue]:
    """Parse tool-call arguments; blank text means no arguments (``{}``).

    Raises:
        ArgumentsError: too long, not JSON (or nested too deeply), or not a JSON object.
    """
    if len(text) > MAX_ARGUMENTS_CHARS:
        raise ArgumentsError(
            f"arguments are {len(text)} characters long (at most {MAX_ARGUMENTS_CHARS})"
        )
    if not text.strip():
        return {}
    try:
        value: object = pydantic_core.from_json(text, allow_inf_nan=False)
    except ValueError as exc:  # includes "recursion limit exceeded" and bad surrogates
        raise ArgumentsError(f"arguments are not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ArgumentsError("arguments must be a JSON object")
    return cast("dict[str, JsonValue]", value)  # JSON object keys are strings


def parse_arguments(text: str) -> dict[str, JsonValue] | None:
    """Return :func:`load_arguments` of ``text`` (a fresh object), or ``None`` if refused."""
    try:
        return load_arguments(text)
    except ArgumentsError:
        return None
